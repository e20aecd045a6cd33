"""Whole-graph compilation (``torch.compile``, ``jax.jit``) behind names that import no library."""

from __future__ import annotations

import numpy as np

from ..errors import ConfigurationError
from . import _config, _registry
from ._compile_report import CompileReport
from ._dispatch import configured, impl_of
from ._hooks import hook_of

TRACE_CONSTANTS = [_config.get_backend, _config.get_precision, _config.get_device]


def trace_constant(fn):
    """Decorator: ``fn()`` is evaluated once while a graph is traced, its result baked in.

    For reads a compiler cannot trace (``ContextVar.get``); callers key their cache on the value.
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

    TorchDynamo capturing; on jax, one of ``arrays`` abstract (a ``jit``/``vmap`` tracer, not
    eager ``jax.grad``), or without arrays any transformation tracing.
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
    """True when ``value`` cannot be read on the host (a ``jit``/``vmap`` tracer): skip checks."""
    if isinstance(value, (int, float, complex, np.ndarray, np.generic)):
        return False
    return impl_of(value).abstract(value)


def can_compile() -> bool:
    """True when the configured backend compiles whole graphs (torch, jax; not NumPy)."""
    return _registry.info(_config.get_backend()).compile


def compile_function(fn, *, rows=None, chunk_rows=None, runner=None, **options):
    """``fn`` compiled by the configured backend into one graph, reused for matching shapes.

    Compiles on the first call; raises ConfigurationError on a backend that does not (NumPy).

    Parameters
    ----------
    fn : callable
        Takes and returns arrays of the configured backend (also in Python structures and
        objects holding them).
    rows : int, optional
        A promise that ``fn`` is row-independent along the leading axis of every argument
        array of this length: a ``compile_uses_rows`` backend (jax) then runs the graph over
        chunks of ``chunk_rows`` rows (None: one), each call run by ``runner`` (such as
        :class:`optics.accel.RowParts`; None: the whole call).  Values do not depend on either.
    **options
        Backend-specific (torch: ``compiler``, ``dynamic``, ``fullgraph``, ``mode``,
        ``options``, ``memory_budget``, ``private``); jax ignores them.
    """
    if not can_compile():
        raise ConfigurationError(
            f"the {_config.get_backend()} backend does not compile graphs; choose one of "
            f"{', '.join(n for n in _registry.names() if _registry.info(n).compile)}"
        )
    impl = configured()
    if rows is not None and hook_of(impl, "compile_uses_rows"):  # an optional hook
        options.update(rows=int(rows), chunk_rows=chunk_rows, runner=runner)
    return impl.compile_function(fn, **options)


def explain_compile(fn, *args, **kwargs) -> CompileReport:
    """Capture ``fn(*args, **kwargs)`` as a graph and report its breaks (nothing is compiled)."""
    return configured().explain_compile(fn, *args, **kwargs)


def reset_compiled() -> None:
    """Forget every compiled graph of this process (every loaded backend's caches)."""
    for impl in _registry.loaded():
        impl.reset_compiled()
