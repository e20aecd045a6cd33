"""Gradient switches: the one place optics asks whether derivatives are being taken.

On jax "recording" means "a transformation traces" (docs/backend.md, "Derivatives on JAX").
"""

from __future__ import annotations

import contextlib

from ..errors import ConfigurationError
from . import _config, _registry
from ._creation import array
from ._dispatch import configured, impl_of, impls_of
from ._hooks import hook_of


def grad_active(*arrays) -> bool:
    """True when derivatives of the current computation may be taken.

    torch: ``torch.is_grad_enabled()``; jax: a transformation traces outside :func:`no_grad`.
    Given ``arrays``, their backends answer (any one); else the configured one or any jax trace.
    """
    impls = impls_of(arrays) if arrays else [configured()]
    if any(impl.grad_enabled() for impl in impls):
        return True
    if configured().compiling():
        return False  # inside a torch.compile graph: nothing else is asked (no graph breaks)
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
    """Context manager: nothing is recorded inside (on jax: :func:`grad_active` is False)."""
    return _all("no_grad")


def enable_grad():
    """Context manager turning derivatives back on inside :func:`no_grad` (for caches)."""
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
    """``obj`` with every array detached: itself, or while jax traces a ``stop_gradient`` copy."""
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
    """A trainable value: the one way to make a torch leaf; a plain array elsewhere."""
    return configured().as_parameter(array(value, dtype=dtype))


def autodiff_kind(name=None):
    """How backend ``name`` (default: configured) differentiates: "tape", "transform" or None."""
    return _registry.info(name or _config.get_backend()).autodiff


def recompute(fn, *arrays):
    """``fn(*arrays)`` whose intermediates are not kept for the backward pass.

    Recording eager torch checkpoints: only ``arrays`` are saved and ``fn`` (pure in them and
    the parameters it closes over) runs again backward.  Elsewhere a plain call.
    """
    return hook_of(impls_of(arrays)[0], "recompute")(fn, *arrays)


def graph_free_loop(body, state, steps, active=None):
    """``state`` after at most ``steps`` applications of ``body``, never differentiated.

    A Python loop under :func:`no_grad` on NumPy and torch, one ``lax.while_loop`` on
    stop-gradient inputs on jax: the host-sync-free loop of the compiled solver paths.

    Parameters
    ----------
    body : callable
        ``state -> state`` with the same structure and shapes.
    state : array or tuple of arrays
        The start (used detached); the final state is returned detached.
    steps : int
    active : callable, optional
        ``state -> bool array``; jax stops once it is false everywhere (``body`` must
        leave such a state unchanged).
    """
    leaves = list(state) if isinstance(state, (tuple, list)) else [state]
    return impls_of(leaves)[0].graph_free_loop(body, state, int(steps), active)


def _differentiating(what):
    """The configured backend's module, refused where it has no derivatives."""
    name = _config.get_backend()
    if _registry.info(name).autodiff is None:
        raise ConfigurationError(
            f"{what} needs a backend with derivatives, not {name!r}: choose one of "
            f"{', '.join(_config.autodiff_backends()) or 'torch or jax (not installed)'}"
        )
    return configured()


def value_and_grad(fn, arrays):
    """``fn(*arrays)`` and its exact gradient per array, by the configured backend.

    Parameters
    ----------
    fn : callable
        Maps the arrays to a 0-d array.
    arrays : sequence of arrays
        Arrays of the configured backend (gradients are taken at their values).

    Returns
    -------
    value : array, shape ()
    gradients : list of arrays
        One per array, of its shape (zeros where ``fn`` does not depend on it).

    Raises
    ------
    ConfigurationError
        The configured backend does not differentiate (NumPy).
    """
    return _differentiating("be.value_and_grad").value_and_grad(fn, list(arrays))


def jacobian(fn, arrays):
    """``fn(*arrays)`` and its exact Jacobian per array, by the configured backend.

    Parameters
    ----------
    fn : callable
        Maps the arrays to an array of shape (m,).
    arrays : sequence of arrays
        Arrays of the configured backend.

    Returns
    -------
    value : array, shape (m,)
    columns : list of arrays
        Per array j, shape (m, *shape_j): the derivatives of the m values.

    Raises
    ------
    ConfigurationError
        The configured backend does not differentiate (NumPy).
    """
    return _differentiating("be.jacobian").jacobian(fn, list(arrays))
