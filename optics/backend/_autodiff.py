"""Gradient switches: the one place optics asks whether derivatives are being taken.

Two models of differentiation meet here (see docs/backend.md):

- a *tape* (torch): a process-wide recording mode, trainable leaves, and
  ``no_grad()`` / ``enable_grad()`` to switch recording off and on;
- *transformations* (jax): no mode and no leaves; a function is
  differentiated by ``jax.grad``, which calls it with tracers.  Code cannot
  know whether a traced value will be differentiated later (``jax.grad`` of a
  ``jax.jit`` function traces the jit first), so on JAX "gradients are being
  recorded" means "a JAX transformation is tracing this code".  Work that
  must not be differentiated runs on ``be.detach``-ed (``stop_gradient``)
  inputs; ``no_grad()`` only turns :func:`grad_active` off inside the block.

NumPy has neither: :func:`grad_active` is False and the switches are no-ops.
"""

from __future__ import annotations

import contextlib

from . import _config, _registry
from ._dispatch import configured, impl_of, impls_of


def grad_active(*arrays) -> bool:
    """True when derivatives of the current computation may be taken.

    Parameters
    ----------
    *arrays : array, optional
        The arrays the computation works on.  Given, the answer follows their
        backends (any one recording is enough); without them it is the
        configured backend's, or True while a JAX transformation traces.

    Returns
    -------
    bool
        torch: gradient recording is enabled (``torch.is_grad_enabled()``);
        jax: a JAX transformation (``grad``, ``jit``, ``vmap`` ...) is tracing
        and no :func:`no_grad` block is active; NumPy: False.
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
    """``method()`` of every loaded backend with derivatives, as one context manager.

    Inside a torch.compile graph only the configured backend's (TorchDynamo
    traces torch's own context managers, not a ContextVar of another library).
    """
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
    """Context manager: no derivatives are recorded inside, on every loaded backend.

    torch stops recording; on JAX :func:`grad_active` is False inside (the
    caller detaches its inputs, see the module docstring); a no-op on NumPy.
    """
    return _all("no_grad")


def enable_grad():
    """Context manager turning derivatives back on inside a :func:`no_grad` block.

    Build caches of parameter-derived values inside it, so they never end up
    detached because they were first filled during a no-grad solve.
    """
    return _all("enable_grad")


def quiet_float_errors():
    """Context manager silencing division-by-zero/invalid warnings (NumPy only).

    For formulas whose infinite results are meaningful (an afocal system's
    focal length, a telecentric pupil at infinity).
    """
    return configured().quiet_float_errors()


def detach(x):
    """x cut from differentiation (torch ``detach``, jax ``stop_gradient``; NumPy passes)."""
    if isinstance(x, (int, float)):
        return x
    return impl_of(x).detach(x)


def detach_all(obj):
    """``obj`` (an optic, a surface, a dataclass ...) with every array in it detached.

    For graph-free work on an object whose parameters may carry derivatives:
    on torch and NumPy ``no_grad()`` already suffices and ``obj`` itself is
    returned; while a JAX transformation traces, a shallow copy whose arrays
    went through ``stop_gradient`` (under an eager ``jax.grad`` they are then
    concrete again, so the work records nothing).
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

    Arrays never become gradient leaves by themselves; this is the explicit
    way to mark one (see the design rule "parameters are explicit").  On JAX
    there are no leaves: differentiate a function of the value with
    ``jax.grad`` (or :mod:`optics.backend.optim`).
    """
    from ._creation import array

    return configured().as_parameter(array(value, dtype=dtype))


def autodiff_kind(name=None):
    """How backend ``name`` (default: configured) differentiates: "tape", "transform" or None."""
    return _registry.info(name or _config.get_backend()).autodiff


def recompute(fn, *arrays):
    """``fn(*arrays)`` whose intermediates are not kept for the backward pass.

    On torch, while gradients are recorded (eagerly), autograd keeps only
    ``arrays`` and runs ``fn`` again in the backward pass (a checkpoint):
    the saved memory of an expensive pointwise evaluation (a Newton
    surface's slopes) drops to its inputs, for one more evaluation's time.
    Elsewhere a plain call.  ``fn`` must be a pure function of ``arrays``
    and of the parameters it closes over (it runs twice).

    Parameters
    ----------
    fn : callable
        ``fn(*arrays) -> array or tuple of arrays``.
    *arrays : array
        Its array arguments (all of one backend).
    """
    impl = impls_of(arrays)[0]
    own = getattr(impl, "recompute", None)
    return fn(*arrays) if own is None else own(fn, *arrays)


def graph_free_loop(body, state, steps, active=None):
    """``state`` after ``steps`` applications of ``body``, never differentiated.

    The fixed-shape, host-sync-free loop of the compiled and traced solver
    paths.  NumPy and torch run a Python loop (the caller is inside
    :func:`no_grad`; torch.compile unrolls it); JAX runs one
    ``lax.while_loop`` on stop-gradient inputs, so its jaxpr holds one body
    whatever ``steps`` is.

    Parameters
    ----------
    body : callable
        ``state -> state``, the same structure and shapes out as in.
    state : array or tuple of arrays
        The starting state (used detached).
    steps : int
        Most applications of ``body``.
    active : callable, optional
        ``state -> bool array``; a backend with device-side control flow
        (JAX) stops once it is false everywhere.  ``body`` must leave such a
        state unchanged, so stopping early never changes the result.

    Returns
    -------
    The final state, detached.
    """
    leaves = list(state) if isinstance(state, (tuple, list)) else [state]
    return impls_of(leaves)[0].graph_free_loop(body, state, int(steps), active)
