"""Whole-graph compilation behind backend-neutral names.

``compile_function`` hands a function to the configured backend's compiler:
``torch.compile`` (see ``_torch_compile``) or ``jax.jit``.  Whether a backend
compiles at all is a registry capability (:func:`can_compile`).  Nothing here
imports a library: the implementation modules do, when they are loaded.
"""

from __future__ import annotations

from ..errors import ConfigurationError
from . import _config, _registry
from ._compile_report import CompileReport
from ._dispatch import configured, impl_of, impls_of

#: Functions evaluated once while a graph is traced (their results baked in):
#: reads of ``contextvars`` configuration that TorchDynamo cannot trace.
TRACE_CONSTANTS = [_config.get_backend, _config.get_precision, _config.get_device]


def trace_constant(fn):
    """Decorator: ``fn()`` is evaluated once while a graph is traced, its result baked in.

    For reads of configuration that a graph compiler cannot trace
    (``ContextVar.get`` under TorchDynamo; JAX evaluates all Python at trace
    time anyway).  The caller of a compiled function must make the value part
    of its cache key, since a baked result is not re-checked on later calls.
    Outside a compiled trace the function behaves exactly as before.
    """
    TRACE_CONSTANTS.append(fn)
    for impl in _registry.loaded():
        impl.mark_trace_constant(fn)
    return fn


def _mark_trace_constants(impl):
    """A backend loaded after some trace constants were declared learns them now."""
    for fn in TRACE_CONSTANTS:
        impl.mark_trace_constant(fn)


_registry.LOAD_HOOKS.append(_mark_trace_constants)


def is_compiling(*arrays) -> bool:
    """True while a graph compiler traces the calling code: values cannot be read on the host.

    TorchDynamo capturing a graph; on JAX, given ``arrays``, when any of them
    is abstract (a ``jit`` or ``vmap`` tracer; under an eager ``jax.grad``
    values are concrete and this is False), and without arrays whenever a JAX
    transformation traces.  Code with a fused, host-sync-free variant (the
    fixed-shape masked Newton solve) asks this to choose it.  False whenever
    no such library is loaded.
    """
    if configured().compiling():
        return True  # checked first: TorchDynamo traces nothing of another library here
    impls = _registry.loaded()
    if arrays:
        return any(impl.compiling() for impl in impls) or any(
            impl_of(a).abstract(a) for a in arrays if a is not None
        )
    return any(impl.tracing() for impl in impls)


def can_compile() -> bool:
    """True when the configured backend compiles whole graphs (torch, jax; not NumPy)."""
    return _registry.info(_config.get_backend()).compile


def pads_batches() -> bool:
    """True when the configured backend's compiled traces pad batches to shared sizes.

    The ``batch_buckets`` capability (:mod:`optics.backend._registry`):
    callers of :func:`compile_function` then round batch sizes up to a few
    buckets; otherwise they compile for the exact size.
    """
    return _registry.info(_config.get_backend()).batch_buckets


def compile_function(fn, *, rows=None, **options):
    """``fn`` compiled into one graph by the configured backend.

    Parameters
    ----------
    fn : callable
        Takes and returns arrays of the configured backend (and plain Python
        structures of them, and objects holding them).
    rows : int, optional
        A promise that ``fn`` is row-independent along the leading axis of
        every array of this length among its arguments (row i of such an
        output depends only on row i of such inputs; see
        ``_jax_compile.in_row_chunks``).  A backend that gains from it
        (``compile_uses_rows = True`` in its module) runs the graph over
        cache-sized chunks of rows and splits a call among the CPU cores
        (jax); others ignore it.
    **options
        Backend-specific: torch takes ``compiler``, ``dynamic``,
        ``fullgraph``, ``mode``, ``options``, ``memory_budget`` and
        ``private`` (see ``_torch_compile.compile_function``); jax ignores
        them (``jax.jit`` has no equivalent).

    Returns
    -------
    callable
        Compiled on the first call; later calls with matching shapes reuse it.

    Raises
    ------
    ConfigurationError
        When the configured backend does not compile (NumPy).
    """
    if not can_compile():
        raise ConfigurationError(
            f"the {_config.get_backend()} backend does not compile graphs; choose one of "
            f"{', '.join(n for n in _registry.names() if _registry.info(n).compile)}"
        )
    impl = configured()
    if rows is not None and getattr(impl, "compile_uses_rows", False):  # optional name
        options["rows"] = int(rows)
    return impl.compile_function(fn, **options)


def compiled_stage(fn, state):
    """``fn(state)``; in a graph being compiled, a stage of its own where the backend gains.

    ``state`` is a tuple of arrays, and ``fn`` returns a tuple of the same
    shapes and dtypes.  XLA:CPU recomputes cheap elementwise chains inside
    every consumer, so a long sequential graph (the surfaces of a trace)
    recomputes its whole history at each step unless the steps are stages
    with materialized inputs and outputs (jax: ``lax.cond`` on a run-time
    True, see ``_jax_compile.compiled_stage``).  Backends without the
    optional name ``compiled_stage`` (NumPy, torch: Inductor fuses without
    recomputation) just call ``fn``; values are the same either way.
    """
    impls = impls_of(list(state))
    stage = getattr(impls[0], "compiled_stage", None) if impls else None
    return fn(state) if stage is None else stage(fn, state)


def explain_compile(fn, *args, **kwargs) -> CompileReport:
    """Capture ``fn(*args, **kwargs)`` as a graph and report its breaks (nothing is compiled).

    ``graph_break_count == 0`` means the whole call became one graph.
    """
    return configured().explain_compile(fn, *args, **kwargs)


def reset_compiled() -> None:
    """Forget every compiled graph of this process (every loaded backend's caches)."""
    for impl in _registry.loaded():
        impl.reset_compiled()
