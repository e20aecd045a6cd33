"""Whole-graph compilation (torch.compile) behind backend-neutral names.

Everything optics knows about ``torch.compile`` and TorchDynamo lives here;
:mod:`optics.compiled` builds the fused trace on top of these names.  torch is
imported lazily, inside the functions, so that ``import optics`` never loads it.

Why the configuration getters are marked constant: optics reads its backend,
precision and device from ``contextvars`` (safe across threads), and Dynamo
cannot trace ``ContextVar.get``; every call would be a graph break.  Inside a
compiled trace the answers are fixed anyway (the backend is torch, and the
precision and device are part of the compiled-trace cache key), so the getters
are evaluated once at trace time and the result is baked into the graph.
:func:`trace_constant` extends the same treatment to other such reads (the
forced Newton iteration count).
"""

from __future__ import annotations

import functools
import sys
import types
from dataclasses import dataclass, field

from . import _config

# Functions evaluated once while Dynamo traces; marked when torch is first needed.
_TRACE_CONSTANTS = [_config.get_backend, _config.get_precision, _config.get_device]
_marked = False


def _torch():
    """The torch module with the trace constants marked (imports torch on first use)."""
    global _marked
    from ._dispatch import torch_impl

    torch = torch_impl().torch  # raises BackendUnavailableError when torch is missing
    if not _marked:
        for fn in _TRACE_CONSTANTS:
            torch.compiler.assume_constant_result(fn)
        _marked = True
    return torch


def trace_constant(fn):
    """Decorator: ``fn()`` is evaluated once while a graph is traced, its result baked in.

    For reads of configuration that Dynamo cannot trace (``ContextVar.get``).
    The caller of a compiled function must make the value part of its cache
    key, since a baked result is not re-checked on later calls.  Outside a
    compiled trace the function behaves exactly as before.
    """
    _TRACE_CONSTANTS.append(fn)
    if _marked:
        sys.modules["torch"].compiler.assume_constant_result(fn)
    return fn


def is_compiling() -> bool:
    """True while TorchDynamo traces the calling code into a graph.

    Code that has a fused, host-sync-free variant (the fixed-count masked
    Newton solve) asks this to choose it.  False whenever torch is not loaded.
    """
    torch = sys.modules.get("torch")
    return torch is not None and torch.compiler.is_compiling()


def can_compile() -> bool:
    """True when the configured backend compiles whole graphs (torch; not NumPy)."""
    return _config.get_backend() == "torch"


def compile_function(
    fn,
    *,
    compiler="inductor",
    dynamic=False,
    fullgraph=True,
    mode=None,
    options=None,
    memory_budget=None,
    private=True,
):
    """``fn`` compiled into one graph with ``torch.compile``.

    Parameters
    ----------
    fn : callable
        Takes and returns torch tensors (and plain Python structures of them).
    compiler : str
        The TorchDynamo backend: ``"inductor"`` generates fused C++/Triton
        kernels (tens of seconds to compile a whole trace on 2 CPU cores);
        ``"aot_eager"`` runs the captured forward and backward graphs without
        code generation (seconds; for tests); ``"eager"`` only captures.
    dynamic : bool
        Compile for symbolic shapes.  False specializes on the input shapes,
        which is why callers bucket batch sizes.
    fullgraph : bool
        Raise instead of silently splitting the graph at a break.
    mode : str, optional
        ``torch.compile`` mode, e.g. ``"max-autotune-no-cudagraphs"``.
    options : dict, optional
        Inductor options (``torch._inductor.config`` names), e.g.
        ``{"max_fusion_size": 4096}``; only with ``compiler="inductor"``.
    memory_budget : float, optional
        AOTAutograd's activation memory budget for the graphs compiled by
        calls of the result (``torch._functorch.config.activation_memory_budget``):
        1.0 (the default) saves what its heuristics choose for the backward
        pass, 0.0 saves as little as possible and recomputes the rest in the
        backward pass.
    private : bool
        Compile a private copy of ``fn``'s code.  TorchDynamo keeps its graphs,
        and its limit of 8 recompilations, per code object; with a copy each
        result of this function has its own (callers that cache compiled
        functions per key then get one budget per key).

    Returns
    -------
    callable
        Compiled on the first call; later calls with matching shapes reuse it.
    """
    torch = _torch()
    if private:
        fn = types.FunctionType(
            fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__
        )
    compiled = torch.compile(
        fn, backend=compiler, dynamic=dynamic, fullgraph=fullgraph, mode=mode, options=options
    )
    if memory_budget is None:
        return compiled
    patch = torch._functorch.config.patch

    @functools.wraps(fn)
    def call(*args, **kwargs):
        # Graphs are partitioned when a call compiles them: the setting must hold then.
        with patch(activation_memory_budget=memory_budget):
            return compiled(*args, **kwargs)

    return call


@dataclass(frozen=True)
class CompileReport:
    """What TorchDynamo captured of one call: graphs, breaks and why."""

    graph_count: int
    graph_break_count: int
    break_reasons: list = field(default_factory=list)
    op_count: int = 0


def explain_compile(fn, *args, **kwargs) -> CompileReport:
    """Capture ``fn(*args, **kwargs)`` with TorchDynamo and report its graph breaks.

    Nothing is compiled to code; ``graph_break_count == 0`` means the whole call
    became one graph.
    """
    torch = _torch()
    explanation = torch._dynamo.explain(fn)(*args, **kwargs)
    reasons = [
        f"{reason.reason} at {''.join(str(frame) for frame in reason.user_stack[-2:])}"
        for reason in explanation.break_reasons
    ]
    return CompileReport(
        graph_count=explanation.graph_count,
        graph_break_count=explanation.graph_break_count,
        break_reasons=reasons,
        op_count=explanation.op_count,
    )


def reset_compiled() -> None:
    """Forget every compiled graph of this process (TorchDynamo's caches)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch._dynamo.reset()
