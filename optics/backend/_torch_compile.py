"""torch.compile behind the backend-neutral compile names (the torch backend's companion).

Everything optics knows about ``torch.compile`` and TorchDynamo lives here;
:mod:`optics.backend._compile` dispatches to it when the configured backend
is torch.  Imported by the torch implementation only, so loading it loads torch.

Why the configuration getters are marked constant: optics reads its backend,
precision and device from ``contextvars`` (safe across threads), and Dynamo
cannot trace ``ContextVar.get``; every call would be a graph break.  Inside a
compiled trace the answers are fixed anyway (the backend is torch, and the
precision and device are part of the compiled-trace cache key), so the getters
are evaluated once at trace time and the result is baked into the graph.
"""

from __future__ import annotations

import functools
import types

import torch

from ._compile_report import CompileReport


def mark_trace_constant(fn):
    """Have Dynamo evaluate ``fn()`` once while tracing and bake its result in."""
    torch.compiler.assume_constant_result(fn)


def _torch():
    return torch


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
    torch._dynamo.reset()


def tracing():
    return torch.compiler.is_compiling()


compiling = tracing


def abstract(x):
    return False  # under TorchDynamo every tensor is symbolic: asked through compiling()
