"""Whole-graph compilation behind backend-neutral names.

``compile_function`` hands a function to the configured backend's compiler:
``torch.compile`` (see ``_torch_compile``) or ``jax.jit``.  Whether a backend
compiles at all is a registry capability (:func:`can_compile`); whether code
is being traced by one, or a value is abstract, is asked here too.  Nothing
here imports a library: the implementation modules do, when they are loaded.
When to compile and how to shape the batches is :mod:`optics.accel`'s.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigurationError
from . import _config, _registry
from ._compile_report import CompileReport
from ._dispatch import configured, impl_of

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


def is_abstract(value) -> bool:
    """True when ``value`` has no value to read on the host: a ``jax.jit``/``jax.vmap`` tracer.

    Code that would read a value to decide a warning, an error or an optional
    rescue step asks this first and skips that step for abstract values (the
    results of rays it would have handled stay invalid or NaN).  False for
    Python numbers and NumPy arrays.
    """
    if isinstance(value, (int, float, complex, np.ndarray, np.generic)):
        return False
    return impl_of(value).abstract(value)


def can_compile() -> bool:
    """True when the configured backend compiles whole graphs (torch, jax; not NumPy)."""
    return _registry.info(_config.get_backend()).compile


def compile_function(fn, *, rows=None, chunk_rows=None, runner=None, **options):
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
        chunks of rows and hands each call to ``runner`` (jax); others
        ignore it.
    chunk_rows : int, optional
        With ``rows``, on such a backend: rows per chunk (None: one chunk).
    runner : object, optional
        With ``rows``, on such a backend: what runs each call, such as
        :class:`optics.accel.RowParts` (parts side by side on the CPU cores;
        None: the whole call at once).  Sizes and runner are the caller's
        speed strategy (the compiled trace method's); values are the same.
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
        options.update(rows=int(rows), chunk_rows=chunk_rows, runner=runner)
    return impl.compile_function(fn, **options)


def explain_compile(fn, *args, **kwargs) -> CompileReport:
    """Capture ``fn(*args, **kwargs)`` as a graph and report its breaks (nothing is compiled).

    ``graph_break_count == 0`` means the whole call became one graph.
    """
    return configured().explain_compile(fn, *args, **kwargs)


def reset_compiled() -> None:
    """Forget every compiled graph of this process (every loaded backend's caches)."""
    for impl in _registry.loaded():
        impl.reset_compiled()
