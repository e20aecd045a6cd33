"""Sensitivity analysis: the criterion at −tol and +tol of every component, and its derivatives.

For each component k (one per item; two, x and y, for a decenter or tilt):

- ``minus`` / ``plus``: the criterion with that component alone at −t_k / +t_k
  and the compensators re-optimized;
- ``derivative``: ∂criterion/∂δ_k at the nominal design with the compensators
  held, for every k at once: one backward pass when the backend has autograd,
  central finite differences otherwise.  When the compensators minimize the
  criterion itself (the default) and the nominal is compensated, this is
  also the derivative of the compensated criterion (the envelope theorem).

The table is sorted by the worst change, max(minus, plus) − nominal, and the
root-sum-square of the worst increases estimates the criterion of a lens
with every tolerance at its worst: nominal + √Σ max(Δ_k, 0)².
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import backend as be
from .._notebook import NotebookView
from ..optimize import has_autograd, value_and_gradient
from ._model import quiet_aiming

#: Central-difference step: this fraction of each tolerance half-width (error ~ h²).
FD_STEP_FRACTION = 1e-3


@dataclass(repr=False)
class Sensitivity(NotebookView):
    """The result of :func:`sensitivity`.

    Attributes
    ----------
    criterion : str
        The criterion's label.
    nominal : float
        The criterion of the (compensated) nominal design.
    rows : list of dict
        ``item``, ``minus``, ``plus``, ``derivative`` (criterion units per
        item unit) and ``worst`` (max(minus, plus) − nominal), sorted by
        ``worst``, largest first.
    rss : float
        √Σ max(worst, 0)², the root-sum-square increase.
    """

    criterion: str
    nominal: float
    rows: list
    rss: float

    @property
    def estimate(self) -> float:
        """nominal + rss: the criterion expected with every tolerance at its worst, RSS-combined."""
        return self.nominal + self.rss


def sensitivity(model, *, derivative_backend=None) -> Sensitivity:
    """Run the sensitivity analysis of ``model`` on the configured backend.

    Parameters
    ----------
    model : ToleranceModel
    derivative_backend : str, optional
        Backend of the derivatives alone (e.g. ``"torch"`` for one backward
        pass while the ±tol evaluations run on NumPy); default: the
        configured one.

    Returns
    -------
    Sensitivity
    """
    nominal = model.nominal_value()
    with be.using(derivative_backend), quiet_aiming():
        derivatives = derivatives_at_nominal(model)
    rows = []
    for k, (label, width) in enumerate(zip(model.labels, model.half_widths)):
        values = np.zeros(len(model))
        values[k] = -width
        minus = model.evaluate(values)
        values[k] = width
        plus = model.evaluate(values)
        worst = max(minus, plus) - nominal
        rows.append(
            {
                "item": label,
                "minus": minus,
                "plus": plus,
                "derivative": float(derivatives[k]),
                "worst": worst,
            }
        )
    rows.sort(key=lambda row: -row["worst"] if math.isfinite(row["worst"]) else -math.inf)
    increases = [max(row["worst"], 0.0) for row in rows]
    rss = math.sqrt(sum(d * d for d in increases))
    return Sensitivity(model.section.criterion.label, nominal, rows, rss)


def derivatives_at_nominal(model) -> np.ndarray:
    """∂criterion/∂δ_k for every component k at δ = 0, compensators held; ndarray (m,).

    Autograd (one backward pass) on a backend that has it; central finite
    differences with steps ``FD_STEP_FRACTION`` · t_k otherwise.

    Parameters
    ----------
    model : ToleranceModel
        Its m components (``half_widths`` t_k, ``distributions``).

    Returns
    -------
    ndarray, shape (m,)
        The criterion's derivative by each component, in criterion units per unit of the
        component's item (mm, degrees, ...).
    """
    if has_autograd():
        _, gradient = value_and_gradient(
            lambda leaves: model.criterion(model.perturbed(leaves)), np.zeros(len(model))
        )
        return gradient
    return finite_differences(model, FD_STEP_FRACTION * model.half_widths)


def finite_differences(model, steps) -> np.ndarray:
    """Central differences (C(+h_k) − C(−h_k)) / 2h_k, compensators held; ndarray (m,).

    Parameters
    ----------
    model : ToleranceModel
    steps : array_like, shape (m,)
        h_k in the components' units.

    Returns
    -------
    ndarray, shape (m,)
        The criterion's derivative by each component (criterion units per component
        unit), from two evaluations each without compensation.
    """
    steps = np.asarray(steps, dtype=float)
    out = np.empty(len(model))
    for k, h in enumerate(steps):
        values = np.zeros(len(model))
        values[k] = h
        plus = model.evaluate(values, compensate=False)
        values[k] = -h
        minus = model.evaluate(values, compensate=False)
        out[k] = (plus - minus) / (2.0 * h)
    return out
