"""Exact derivatives at a point on any backend that differentiates (NumPy values in and out)."""

from __future__ import annotations

import numpy as np

from ..errors import ConfigurationError
from . import _config, _registry
from ._creation import array, to_numpy
from ._dispatch import configured


def has_autograd() -> bool:
    """True when the configured backend computes exact gradients (torch, jax)."""
    return _registry.info(_config.get_backend()).autodiff is not None


def require_autograd(what: str) -> None:
    """Raise ConfigurationError unless the configured backend has derivatives."""
    if not has_autograd():
        names = " or ".join(_config.autodiff_backends()) or "torch or jax (not installed)"
        raise ConfigurationError(
            f"{what} needs automatic differentiation: use the {names} backend "
            "(--backend, OPTICS_BACKEND or be.using(...))"
        )


def _points(values):
    """One 0-d array of the configured backend and precision per value."""
    return [array(float(v)) for v in np.asarray(values, dtype=float).ravel()]


def value_and_gradient(loss_fn, values):
    """The loss and its exact gradient at ``values``.

    Parameters
    ----------
    loss_fn : callable
        Maps a list of n 0-d arrays to a 0-d loss.
    values : array_like, shape (n,)

    Returns
    -------
    loss : float
    gradient : ndarray, shape (n,)
    """
    require_autograd("an autograd gradient")
    loss, grads = gradients(lambda *p: loss_fn(list(p)), _points(values))
    return loss, np.array(grads, dtype=float)


def residuals_and_jacobian(residual_fn, values):
    """Residuals and their exact Jacobian at ``values``.

    Parameters
    ----------
    residual_fn : callable
        Maps a list of n 0-d arrays to a 1-D residual array of length m.
    values : array_like, shape (n,)

    Returns
    -------
    residuals : ndarray, shape (m,)
    jacobian : ndarray, shape (m, n)
    """
    require_autograd("an autograd Jacobian")
    points = _points(values)
    residuals, columns = configured().jacobian(lambda *p: residual_fn(list(p)), points)
    residuals = np.asarray(to_numpy(residuals), dtype=float)
    jacobian = np.stack([np.asarray(to_numpy(c), dtype=float) for c in columns], axis=1)
    return residuals, jacobian.reshape(residuals.shape[0], len(points))


def gradients(fn, arrays):
    """``fn(*arrays)`` (0-d) as a float, and its gradient per array (ndarrays of their shapes)."""
    require_autograd("an autograd gradient")
    value, grads = configured().value_and_grad(fn, list(arrays))
    return float(to_numpy(value)), [np.asarray(to_numpy(g), dtype=float) for g in grads]
