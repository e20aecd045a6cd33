"""Gradient switches: the one place optics asks whether autograd is recording."""

from __future__ import annotations

from . import _config
from ._dispatch import configured, impl_of, torch_impl


def grad_active() -> bool:
    """True exactly when the torch backend is active and torch records gradients."""
    return _config.get_backend() == "torch" and torch_impl().grad_enabled()


def no_grad():
    """Context manager that stops gradient recording (a no-op on NumPy)."""
    return configured().no_grad()


def enable_grad():
    """Context manager that turns gradient recording on (a no-op on NumPy).

    Build caches of parameter-derived values inside it, so they never end up
    detached because they were first filled during a no-grad solve.
    """
    return configured().enable_grad()


def quiet_float_errors():
    """Context manager silencing division-by-zero/invalid warnings (NumPy only).

    For formulas whose infinite results are meaningful (an afocal system's
    focal length, a telecentric pupil at infinity).
    """
    return configured().quiet_float_errors()


def detach(x):
    """x cut from the autograd graph (NumPy arrays and scalars pass through)."""
    if isinstance(x, (int, float)):
        return x
    return impl_of(x).detach(x)


def requires_grad(x) -> bool:
    """True when x is a tensor that records gradients."""
    if isinstance(x, (int, float)):
        return False
    return bool(impl_of(x).requires_grad(x))


def parameter(value, dtype=None):
    """A trainable leaf: a tensor requiring grad on torch, a plain array on NumPy.

    Arrays never become gradient leaves by themselves; this is the explicit
    way to mark one (see the design rule "parameters are explicit").
    """
    from ._creation import array

    out = array(value, dtype=dtype)
    if _config.get_backend() == "torch":
        out = out.detach().requires_grad_(True)
    return out
