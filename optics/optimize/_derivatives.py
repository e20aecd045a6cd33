"""Exact derivatives at a point on any backend that differentiates (NumPy values in and out).

The optimizer's glue over the array layer's ``be.value_and_grad`` and ``be.jacobian``:
the drivers, ``optics.gradcheck``, tolerance sensitivities and the tests hold NumPy
vectors of variable values and want NumPy results.
"""

from __future__ import annotations

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError


def has_autograd() -> bool:
    """True when the configured backend computes exact gradients (torch, jax).

    Returns
    -------
    bool
    """
    return be.autodiff_kind() is not None


def require_autograd(what: str) -> None:
    """Refuse to go on unless the configured backend has derivatives.

    Parameters
    ----------
    what : str
        What needs them, named in the message ("the 'adam' driver").

    Returns
    -------
    None

    Raises
    ------
    ConfigurationError
        On a backend without derivatives (NumPy), naming the ones that have them.
    """
    if not has_autograd():
        names = " or ".join(be.autodiff_backends()) or "torch or jax (not installed)"
        raise ConfigurationError(
            f"{what} needs automatic differentiation: use the {names} backend "
            "(--backend, OPTICS_BACKEND or be.using(...))"
        )


def _points(values):
    """One 0-d array of the configured backend and precision per value."""
    return [be.array(float(v)) for v in np.asarray(values, dtype=float).ravel()]


def value_and_gradient(loss_fn, values):
    """The loss and its exact gradient at ``values``.

    Parameters
    ----------
    loss_fn : callable
        Maps a list of n 0-d arrays to a 0-d loss.
    values : array_like, shape (n,)
        The point (variable values in their own units).

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
        The point.

    Returns
    -------
    residuals : ndarray, shape (m,)
    jacobian : ndarray, shape (m, n)
    """
    require_autograd("an autograd Jacobian")
    points = _points(values)
    residuals, columns = be.jacobian(lambda *p: residual_fn(list(p)), points)
    residuals = np.asarray(be.to_numpy(residuals), dtype=float)
    jacobian = np.stack([np.asarray(be.to_numpy(c), dtype=float) for c in columns], axis=1)
    return residuals, jacobian.reshape(residuals.shape[0], len(points))


def gradients(fn, arrays):
    """``fn(*arrays)`` as a float, and its exact gradient per array.

    Parameters
    ----------
    fn : callable
        Maps the arrays to a 0-d array.
    arrays : sequence of arrays
        Arrays of the configured backend, each of any shape.

    Returns
    -------
    value : float
    gradients : list of ndarray
        One per array, of its shape.
    """
    require_autograd("an autograd gradient")
    value, grads = be.value_and_grad(fn, list(arrays))
    return float(be.to_numpy(value)), [np.asarray(be.to_numpy(g), dtype=float) for g in grads]
