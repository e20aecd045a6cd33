"""Gradient switches: the one place optics asks whether derivatives are being taken.

torch records on a tape (a mode, trainable leaves); jax transforms functions, so there
"recording" means "a JAX transformation is tracing" (docs/backend.md, "Derivatives on
JAX"); NumPy has neither, and the switches are no-ops.
"""

from __future__ import annotations

import contextlib

from . import _config, _registry
from ._dispatch import configured, impl_of, impls_of


def grad_active(*arrays) -> bool:
    """True when derivatives of the current computation may be taken.

    torch: ``torch.is_grad_enabled()``; jax: a transformation (``grad``, ``jit``, ``vmap``
    ...) traces outside a :func:`no_grad` block; NumPy: False.  Given ``arrays``, their
    backends answer (any one is enough); without, the configured one or any JAX trace.
    """
    impls = impls_of(arrays) if arrays else [configured()]
    if any(impl.grad_enabled() for impl in impls):
        return True
    if configured().compiling():
        return False  # inside a torch.compile graph: nothing else is asked (no graph breaks)
    # A transformation that is tracing is active whatever backend is configured.
    return any(
        impl.grad_enabled()
        for impl in _registry.loaded()
        if _registry.info(impl.name).autodiff == "transform"
    )


def _all(method):
    """``method()`` of every loaded backend with derivatives, as one context manager."""
    # Inside a torch.compile graph only the configured backend's: TorchDynamo traces torch's
    # own context managers, not another library's ContextVar.
    impl = configured()
    if impl.compiling():
        return getattr(impl, method)()
    impls = [i for i in _registry.loaded() if _registry.info(i.name).autodiff is not None]
    if len(impls) == 1:
        return getattr(impls[0], method)()
    return _stacked([getattr(i, method) for i in impls])


@contextlib.contextmanager
def _stacked(contexts):
    with contextlib.ExitStack() as stack:
        for context in contexts:
            stack.enter_context(context())
        yield


def no_grad():
    """Context manager: nothing is recorded inside, on every loaded backend.

    On JAX only :func:`grad_active` turns False (the caller detaches its inputs).
    """
    return _all("no_grad")


def enable_grad():
    """Context manager turning derivatives back on inside a :func:`no_grad` block.

    For caches of parameter-derived values, so a no-grad solve never fills them detached.
    """
    return _all("enable_grad")


def quiet_float_errors():
    """Context manager silencing NumPy's divide/invalid warnings where inf is the answer."""
    return configured().quiet_float_errors()


def detach(x):
    """x cut from differentiation (torch ``detach``, jax ``stop_gradient``; NumPy passes)."""
    if isinstance(x, (int, float)):
        return x
    return impl_of(x).detach(x)


def detach_all(obj):
    """``obj`` (an optic, a surface, a dataclass ...) with every array in it detached.

    ``obj`` itself on torch and NumPy (``no_grad()`` suffices); while a JAX
    transformation traces, a shallow copy whose arrays went through ``stop_gradient``.
    """
    if configured().compiling():
        return obj
    for impl in _registry.loaded():
        if _registry.info(impl.name).autodiff == "transform" and impl.tracing():
            return impl.detach_all(obj)
    return obj


def requires_grad(x) -> bool:
    """True when x may carry a derivative: a recording torch tensor, or a JAX tracer."""
    if isinstance(x, (int, float)):
        return False
    return bool(impl_of(x).requires_grad(x))


def parameter(value, dtype=None):
    """A trainable value: a leaf requiring grad on torch, a plain array elsewhere.

    The one way an array becomes a leaf.  JAX has none: differentiate a function of
    the value with ``jax.grad`` or :func:`value_and_gradient`.
    """
    from ._creation import array

    return configured().as_parameter(array(value, dtype=dtype))


def autodiff_kind(name=None):
    """How backend ``name`` (default: configured) differentiates: "tape", "transform" or None."""
    return _registry.info(name or _config.get_backend()).autodiff


def recompute(fn, *arrays):
    """``fn(*arrays)`` whose intermediates are not kept for the backward pass.

    On eager torch while recording, a checkpoint: only ``arrays`` (of one backend) are
    saved and ``fn`` (pure in them and the parameters it closes over) runs again in the
    backward pass, so a Newton surface's slopes cost their inputs' memory and one more
    evaluation.  Elsewhere a plain call; ``fn`` returns an array or a tuple of them.
    """
    impl = impls_of(arrays)[0]
    own = getattr(impl, "recompute", None)
    return fn(*arrays) if own is None else own(fn, *arrays)


def graph_free_loop(body, state, steps, active=None):
    """``state`` after ``steps`` applications of ``body``, never differentiated.

    A Python loop on NumPy and torch (inside :func:`no_grad`), one ``lax.while_loop`` on
    stop-gradient inputs on JAX: the host-sync-free loop of the compiled solver paths.

    Parameters
    ----------
    body : callable
        ``state -> state``, the same structure and shapes out as in.
    state : array or tuple of arrays
        The starting state (used detached).
    steps : int
        Most applications of ``body``.
    active : callable, optional
        ``state -> bool array``; JAX stops once it is false everywhere (``body`` must
        leave such a state unchanged).

    Returns
    -------
    The final state, detached.
    """
    leaves = list(state) if isinstance(state, (tuple, list)) else [state]
    return impls_of(leaves)[0].graph_free_loop(body, state, int(steps), active)
