"""Optimizer glue: trainable leaves, torch.optim steps and autograd derivatives.

The optimization package (optics/optimize/) is written against these
backend-neutral functions and never sees torch: it asks whether the
configured backend differentiates (:func:`has_autograd`), then either hands
its loss to a :class:`GradientOptimizer` (torch.optim underneath) or asks for
a gradient or a Jacobian at a point.  On NumPy these raise
:class:`~optics.errors.ConfigurationError` with the fix in the message.

Every function makes its own leaves: the variables of one optimization are
the only tensors in the graph that require grad.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigurationError
from . import _config, _registry

#: The torch.optim algorithms :class:`GradientOptimizer` offers, by driver name.
GRADIENT_ALGORITHMS = ("adam", "lbfgs")


def has_autograd() -> bool:
    """True when the configured backend computes exact gradients (torch, jax)."""
    return _registry.info(_config.get_backend()).autodiff is not None


def require_autograd(what: str) -> None:
    """Raise ConfigurationError unless the configured backend has autograd."""
    if not has_autograd():
        raise ConfigurationError(
            f"{what} needs automatic differentiation: use the torch backend "
            "(--backend torch, OPTICS_BACKEND=torch or be.using('torch'))"
        )


def _torch():
    return _registry.load("torch").torch


def _leaves(values):
    """One fresh 0-d float leaf requiring grad per entry of ``values``."""
    from ._creation import float_dtype

    torch = _torch()
    device = _config.get_device()
    return [
        torch.tensor(float(v), dtype=float_dtype(), device=device, requires_grad=True)
        for v in np.asarray(values, dtype=float).ravel()
    ]


def _as_numpy(tensors):
    return np.array([float(t.detach()) for t in tensors]) if tensors else np.zeros(0)


def _grads(outputs, leaves, retain_graph=False):
    """d outputs / d leaves as an ndarray; zeros where no leaf reaches ``outputs``."""
    if not outputs.requires_grad:
        return np.zeros(len(leaves))
    torch = _torch()
    grads = torch.autograd.grad(outputs, leaves, retain_graph=retain_graph, allow_unused=True)
    return np.array([0.0 if g is None else float(g) for g in grads])


def value_and_gradient(loss_fn, values):
    """The loss and its exact gradient at ``values``.

    Parameters
    ----------
    loss_fn : callable
        Maps a list of n 0-d leaves to a 0-d loss.
    values : array_like, shape (n,)
        The point.

    Returns
    -------
    loss : float
    gradient : ndarray, shape (n,)
    """
    require_autograd("an autograd gradient")
    leaves = _leaves(values)
    with _torch().enable_grad():
        loss = loss_fn(leaves)
        return float(loss.detach()), _grads(loss, leaves)


def residuals_and_jacobian(residual_fn, values):
    """Residuals and their exact Jacobian at ``values`` (one backward pass per residual).

    Parameters
    ----------
    residual_fn : callable
        Maps a list of n 0-d leaves to a 1-D residual array of length m.
    values : array_like, shape (n,)

    Returns
    -------
    residuals : ndarray, shape (m,)
    jacobian : ndarray, shape (m, n)
    """
    require_autograd("an autograd Jacobian")
    leaves = _leaves(values)
    with _torch().enable_grad():
        residuals = residual_fn(leaves)
        m = residuals.shape[0]
        rows = [_grads(residuals[i], leaves, retain_graph=i < m - 1) for i in range(m)]
    jacobian = np.stack(rows) if rows else np.zeros((0, len(leaves)))
    return residuals.detach().cpu().numpy().astype(float), jacobian


class GradientOptimizer:
    """A torch.optim algorithm over fresh 0-d leaves, one per variable.

    Parameters
    ----------
    algorithm : {"adam", "lbfgs"}
    values : array_like, shape (n,)
        Starting values of the (already scaled) variables.
    learning_rate : float
        Step size in the units of ``values``.
    lower, upper : array_like, shape (n,), optional
        Bounds enforced by projection after every step (``±inf`` for none).
    """

    def __init__(self, algorithm, values, learning_rate, lower=None, upper=None):
        require_autograd(f"the {algorithm!r} driver")
        torch = _torch()
        self.leaves = _leaves(values)
        self._algorithm = algorithm
        n = len(self.leaves)
        self._lower = np.full(n, -np.inf) if lower is None else np.asarray(lower, dtype=float)
        self._upper = np.full(n, np.inf) if upper is None else np.asarray(upper, dtype=float)
        if algorithm == "adam":
            self._optimizer = torch.optim.Adam(self.leaves, lr=learning_rate)
        elif algorithm == "lbfgs":
            # One iteration per step; max_eval is the line search's budget (its
            # default, 1.25 max_iter, would leave it a single evaluation).  The
            # caller owns the stop criteria: torch's absolute tolerances (1e-7
            # on the gradient, 1e-9 on changes) would freeze small merits.
            self._optimizer = torch.optim.LBFGS(
                self.leaves,
                lr=learning_rate,
                max_iter=1,
                max_eval=25,
                history_size=20,
                tolerance_grad=0.0,
                tolerance_change=0.0,
                line_search_fn="strong_wolfe",
            )
        else:
            raise ConfigurationError(
                f"unknown gradient algorithm {algorithm!r}; choose one of {GRADIENT_ALGORITHMS}"
            )
        self._project()

    def step(self, loss_fn):
        """One update; returns (loss before it, gradient there) as (float, ndarray (n,)).

        ``loss_fn`` maps the list of leaves to a 0-d loss; L-BFGS may call it
        several times (line search).
        """
        torch = _torch()
        optimizer = self._optimizer
        first = {}

        def closure():
            optimizer.zero_grad(set_to_none=False)
            loss = loss_fn(self.leaves)
            if loss.requires_grad:  # else no variable reaches the loss: zero gradient
                loss.backward()
            if not first:
                first["loss"] = float(loss.detach())
                first["grad"] = _as_numpy([leaf.grad for leaf in self.leaves])
            return loss

        with torch.enable_grad():
            optimizer.step(closure)
        if self._algorithm == "lbfgs" and not optimizer.state[self.leaves[0]].get("t"):
            # A failed line search (t = 0) would repeat forever from the same
            # memory: restart from steepest descent, as L-BFGS codes do.
            optimizer.state.clear()
        self._project()
        return first["loss"], first["grad"]

    def values(self):
        """Current values, ndarray (n,)."""
        return _as_numpy(self.leaves)

    def _project(self):
        torch = _torch()
        with torch.no_grad():
            for leaf, lo, hi in zip(self.leaves, self._lower, self._upper):
                leaf.clamp_(float(lo), float(hi))
