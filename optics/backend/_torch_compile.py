"""torch.compile and TorchDynamo behind the backend-neutral compile names (_compile)."""

from __future__ import annotations

import functools
import types

import torch

from ._compile_report import CompileReport


def mark_trace_constant(fn):
    """Have Dynamo evaluate ``fn()`` once while tracing and bake its result in."""
    # For the configuration getters: Dynamo cannot trace ContextVar.get (a graph break per
    # call), and inside a graph the backend, precision and device are fixed (the cache key).
    torch.compiler.assume_constant_result(fn)


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
    """``fn`` compiled into one graph with ``torch.compile`` (on the first call).

    Parameters
    ----------
    compiler : str
        The TorchDynamo backend: ``"inductor"`` (fused C++/Triton kernels; tens of seconds
        for a whole trace on 2 CPU cores), ``"aot_eager"`` (no code generation; tests), "eager".
    dynamic : bool
        Symbolic shapes; False specializes on input shapes (so callers bucket batch sizes).
    fullgraph : bool
        Raise at a graph break instead of silently splitting the graph.
    mode, options : optional
        ``torch.compile``'s mode and Inductor options (``{"max_fusion_size": 4096}``).
    memory_budget : float, optional
        AOTAutograd's ``activation_memory_budget`` while the graphs compile (1.0: what its
        heuristics save for the backward pass; 0.0: as little as possible).
    private : bool
        Compile a private copy of ``fn``'s code: Dynamo keeps graphs, and its limit of 8
        recompilations, per code object, so each result gets its own budget.
    """
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
    """Capture ``fn(*args, **kwargs)`` with TorchDynamo and report its graph breaks."""
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


tracing = compiling = torch.compiler.is_compiling


def abstract(x):
    return False  # under TorchDynamo every tensor is symbolic: asked through compiling()
