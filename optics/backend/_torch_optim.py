"""torch.optim behind :class:`optics.backend.optim.GradientOptimizer` (the torch backend's).

Imported by the torch implementation only.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.utils.checkpoint import checkpoint

from ..errors import ConfigurationError


def _leaves(values, dtype, device):
    """One fresh 0-d float leaf requiring grad per entry of ``values``."""
    return [
        torch.tensor(float(v), dtype=dtype, device=device, requires_grad=True)
        for v in np.asarray(values, dtype=float).ravel()
    ]


def _as_numpy(tensors):
    return np.array([float(t.detach()) for t in tensors]) if tensors else np.zeros(0)


def value_and_grad(fn, arrays):
    """fn(*arrays) (a 0-d tensor) and its gradient with respect to each array."""
    leaves = [a.detach().clone().requires_grad_(True) for a in arrays]
    with torch.enable_grad():
        out = fn(*leaves)
        if not out.requires_grad:  # no array reaches the output: zero gradient
            return out.detach(), [torch.zeros_like(a) for a in leaves]
        grads = torch.autograd.grad(out, leaves, allow_unused=True)
    return out.detach(), [torch.zeros_like(a) if g is None else g for a, g in zip(leaves, grads)]


def jacobian(fn, arrays):
    """fn(*arrays) (1-D, length m) and d out_i / d array_j as a list over j of (m, *shape_j)."""
    leaves = [a.detach().clone().requires_grad_(True) for a in arrays]
    with torch.enable_grad():
        out = fn(*leaves)
        m = out.shape[0]
        rows = []
        for i in range(m):
            if out.requires_grad:
                grads = torch.autograd.grad(
                    out[i], leaves, retain_graph=i < m - 1, allow_unused=True
                )
            else:
                grads = [None] * len(leaves)
            rows.append([torch.zeros_like(a) if g is None else g for a, g in zip(leaves, grads)])
    columns = [
        torch.stack([row[j] for row in rows]) if rows else torch.zeros((0, *a.shape), dtype=a.dtype)
        for j, a in enumerate(leaves)
    ]
    return out.detach(), columns


class TorchGradientOptimizer:
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

    def __init__(self, algorithm, values, learning_rate, lower, upper, dtype, device="cpu"):
        self.leaves = _leaves(values, dtype, device)
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
                f"unknown gradient algorithm {algorithm!r}; choose one of ('adam', 'lbfgs')"
            )
        self._project()

    def step(self, loss_fn):
        """One update; returns (loss before it, gradient there) as (float, ndarray (n,)).

        ``loss_fn`` maps the list of leaves to a 0-d loss; L-BFGS may call it
        several times (line search).
        """
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
        with torch.no_grad():
            for leaf, lo, hi in zip(self.leaves, self._lower, self._upper):
                leaf.clamp_(float(lo), float(hi))


def as_parameter(x):
    return x.detach().requires_grad_(True)


def graph_free_loop(body, state, steps, active=None):
    """``steps`` applications of ``body`` (a Python loop; the caller is under no_grad)."""
    for _ in range(steps):
        state = body(state)
    return state


def detach_all(obj):
    return obj  # no_grad() already stops recording for everything computed inside it


def recompute(fn, *arrays):
    """``fn(*arrays)``, keeping only ``arrays`` for the backward pass, which runs ``fn`` again.

    torch's non-reentrant checkpoint: gradients reach every tensor ``fn``
    uses, the arguments and those it closes over (lens parameters) alike;
    ``torch.autograd.grad`` works through it.  Without recording, or inside a
    compiled graph (which chooses what to keep itself), a plain call.
    """
    if not torch.is_grad_enabled() or torch.compiler.is_compiling():
        return fn(*arrays)
    return checkpoint(fn, *arrays, use_reentrant=False, preserve_rng_state=False)
