"""Optimizer glue: exact derivatives at a point and gradient-optimizer steps, on any backend.

The optimization package (optics/optimize/) is written against these
backend-neutral functions and never sees torch or jax: it asks whether the
configured backend differentiates (:func:`has_autograd`), then either hands
its loss to a :class:`GradientOptimizer` or asks for a gradient or a Jacobian
at a point.  Each backend with derivatives supplies ``value_and_grad`` and
``jacobian`` in its implementation module (torch: autograd on fresh leaves;
jax: ``jax.value_and_grad`` / ``jax.jacrev``), and optionally a native
``gradient_optimizer`` (torch.optim); otherwise :class:`GradientOptimizer`
runs Adam here, in NumPy, on the backend's gradients.  On NumPy everything
raises :class:`~optics.errors.ConfigurationError` with the fix in the message.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigurationError
from . import _config, _registry
from ._creation import array, to_numpy
from ._dispatch import configured

#: The gradient algorithms :class:`GradientOptimizer` offers, by driver name.
GRADIENT_ALGORITHMS = ("adam", "lbfgs")


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
    """One 0-d array of the configured backend and precision per entry of ``values``."""
    return [array(float(v)) for v in np.asarray(values, dtype=float).ravel()]


def _floats(arrays):
    return np.array([float(to_numpy(a)) for a in arrays]) if arrays else np.zeros(0)


def value_and_gradient(loss_fn, values):
    """The loss and its exact gradient at ``values``.

    Parameters
    ----------
    loss_fn : callable
        Maps a list of n 0-d arrays to a 0-d loss.
    values : array_like, shape (n,)
        The point.

    Returns
    -------
    loss : float
    gradient : ndarray, shape (n,)
    """
    require_autograd("an autograd gradient")
    loss, grads = configured().value_and_grad(lambda *p: loss_fn(list(p)), _points(values))
    return float(to_numpy(loss)), _floats(grads)


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
    """fn(*arrays) (0-d) and its gradient with respect to each array, as NumPy arrays.

    For checks of derivatives with respect to whole arrays (ray coordinates).
    """
    require_autograd("an autograd gradient")
    value, grads = configured().value_and_grad(fn, list(arrays))
    return float(to_numpy(value)), [np.asarray(to_numpy(g), dtype=float) for g in grads]


def GradientOptimizer(algorithm, values, learning_rate, lower=None, upper=None):  # noqa: N802
    """A gradient algorithm over the variables, one 0-d array each.

    torch runs its own ``torch.optim`` Adam or L-BFGS (strong-Wolfe line
    search); other backends with derivatives run :class:`AdamOptimizer`.

    Parameters
    ----------
    algorithm : {"adam", "lbfgs"}
    values : array_like, shape (n,)
        Starting values of the (already scaled) variables.
    learning_rate : float
        Step size in the units of ``values``.
    lower, upper : array_like, shape (n,), optional
        Bounds enforced by projection after every step (``±inf`` for none).

    Returns
    -------
    object
        With ``step(loss_fn) -> (loss before, gradient there)`` and
        ``values() -> ndarray (n,)``; ``loss_fn`` maps the list of variables
        to a 0-d loss.
    """
    require_autograd(f"the {algorithm!r} driver")
    if algorithm not in GRADIENT_ALGORITHMS:
        raise ConfigurationError(
            f"unknown gradient algorithm {algorithm!r}; choose one of {GRADIENT_ALGORITHMS}"
        )
    impl = configured()
    native = getattr(impl, "gradient_optimizer", None)
    if native is not None:
        dtype = impl.float_dtype(_config.get_precision())
        return native(algorithm, values, learning_rate, lower, upper, dtype, _config.get_device())
    if algorithm != "adam":
        raise ConfigurationError(
            f"the {algorithm!r} driver needs the torch backend; on {impl.name} use adam, or "
            "minimize (SciPy L-BFGS-B with exact gradients)"
        )
    return AdamOptimizer(values, learning_rate, lower, upper)


class AdamOptimizer:
    """Adam (Kingma & Ba 2015, torch.optim's defaults) in NumPy on exact gradients.

    Parameters as in :func:`GradientOptimizer`.  The moments and the update
    are a few NumPy operations on n numbers; the gradient comes from
    :func:`value_and_gradient`.
    """

    def __init__(self, values, learning_rate, lower=None, upper=None, betas=(0.9, 0.999)):
        self._u = np.asarray(values, dtype=float).ravel().copy()
        n = self._u.size
        self._lower = np.full(n, -np.inf) if lower is None else np.asarray(lower, dtype=float)
        self._upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
        self._rate, (self._beta1, self._beta2) = float(learning_rate), betas
        self._m, self._v, self._k = np.zeros(n), np.zeros(n), 0
        self._eps = 1e-8  # torch.optim.Adam's epsilon, in units of the (normalized) gradient
        self._u = np.clip(self._u, self._lower, self._upper)

    def step(self, loss_fn):
        """One Adam update; returns (loss before it, gradient there)."""
        loss, grad = value_and_gradient(loss_fn, self._u)
        self._k += 1
        self._m = self._beta1 * self._m + (1 - self._beta1) * grad
        self._v = self._beta2 * self._v + (1 - self._beta2) * grad * grad
        m_hat = self._m / (1 - self._beta1**self._k)
        v_hat = self._v / (1 - self._beta2**self._k)
        self._u = np.clip(
            self._u - self._rate * m_hat / (np.sqrt(v_hat) + self._eps), self._lower, self._upper
        )
        return loss, grad

    def values(self):
        """Current values, ndarray (n,)."""
        return self._u.copy()
