"""Inequality constraints: operand values held between limits by the driver, not by penalties.

A :class:`Constraint` is any operand (``center_thickness``, ``edge_thickness``,
``total_track``, ``clear_aperture``, ``fno`` ...) with a ``min`` and/or a
``max``; it adds nothing to the merit.  The drivers that take constraints
handle them as constraints:

- ``dls`` linearizes them in each damped step and solves the step's
  quadratic program with an active set (:mod:`optics.optimize.dls`);
- ``minimize`` switches from L-BFGS-B to SciPy's SLSQP, which takes the
  bounds and the inequalities with their exact Jacobian
  (:func:`run_slsqp`).

Air gaps are ``center_thickness`` constraints on the surface before the gap,
glass bounds are ``min``/``max`` on a ``material.index`` variable, and a
clear aperture is ``clear_aperture`` with a ``max`` (the semi-diameter the
mount allows).  In the ``[optimize]`` section they are written as::

    constraints = [
        { type = "center_thickness", surface = 1, min = 2.0 },
        { type = "edge_thickness", surface = 1, min = 1.0 },
        { type = "center_thickness", surface = 2, min = 0.5 },     # an air gap
        { type = "total_track", max = 60.0 },
        { type = "clear_aperture", surface = 3, max = 9.0 },
    ]
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError
from .history import StopRun
from .merit import Operand
from .operands import MeritContext


class Constraint:
    """An operand held at least at ``min`` and/or at most at ``max``.

    Parameters
    ----------
    type : str
        An operand type (see :data:`optics.optimize.operands.OPERANDS`).
    min, max : float, optional
        Limits in the operand's units; at least one.
    **args
        The operand's arguments (``surface``, ``height``, ``hy`` ...).

    Examples
    --------
    >>> Constraint("center_thickness", min=2.0, surface=1).label
    'center_thickness(surface=1) >= 2'
    """

    def __init__(self, type, min=None, max=None, **args):
        if min is None and max is None:
            raise ConfigurationError(f"constraint {type}: give 'min', 'max' or both")
        for name, limit in (("min", min), ("max", max)):
            if limit is not None and not (isinstance(limit, (int, float)) and math.isfinite(limit)):
                raise ConfigurationError(f"constraint {type}: {name} must be a finite number")
        if min is not None and max is not None and not min < max:
            raise ConfigurationError(f"constraint {type}: min {min} must be below max {max}")
        self.operand = Operand(type, **args)
        self.type, self.min, self.max, self.args = type, min, max, args

    @property
    def label(self) -> str:
        """``center_thickness(surface=1) >= 2`` and the like."""
        parts = []
        if self.min is not None:
            parts.append(f">= {self.min:g}")
        if self.max is not None:
            parts.append(f"<= {self.max:g}")
        return f"{self.operand.label} {' and '.join(parts)}"

    def rows(self, value) -> list:
        """The constraint's rows g ≥ 0 for an operand ``value`` (0-d): value − min, max − value."""
        rows = []
        if self.min is not None:
            rows.append(value - self.min)
        if self.max is not None:
            rows.append(self.max - value)
        return rows

    def limits(self) -> list[float]:
        """The limits of :meth:`rows`, in order."""
        return [v for v in (self.min, self.max) if v is not None]


class ConstraintSet:
    """The constraints of one problem, evaluated together on one merit context."""

    def __init__(self, constraints=()):
        self.constraints = list(constraints)
        _check_compatible(self.constraints)

    def __bool__(self):
        return bool(self.constraints)

    def __len__(self):
        return sum(len(c.limits()) for c in self.constraints)

    def limits(self) -> list[float]:
        """Every row's limit, in row order."""
        return [limit for c in self.constraints for limit in c.limits()]

    def values(self, optic):
        """Rows g (backend array, shape (k,)); all ≥ 0 when the optic is feasible."""
        ctx = MeritContext(optic)
        rows = []
        for constraint in self.constraints:
            value = be.reshape(constraint.operand.value(ctx), ())
            rows.extend(constraint.rows(value))
        return be.stack(rows)

    def report(self, optic) -> list[dict]:
        """One dict per constraint: label, value, min, max, satisfied (plain values)."""
        ctx = MeritContext(optic)
        out = []
        with be.no_grad():
            for constraint in self.constraints:
                value = float(be.item(constraint.operand.value(ctx)))
                tol = 1e-6 * max([1.0, *map(abs, constraint.limits())])
                ok = (constraint.min is None or value >= constraint.min - tol) and (
                    constraint.max is None or value <= constraint.max + tol
                )
                out.append(
                    {
                        "label": constraint.label,
                        "value": value,
                        "min": constraint.min,
                        "max": constraint.max,
                        "satisfied": bool(ok),
                    }
                )
        return out


def _check_compatible(constraints):
    """ConfigurationError when constraints on one operand leave no value (a min above a max)."""
    lowest, highest = {}, {}
    for constraint in constraints:
        key = constraint.operand.label
        if constraint.min is not None and constraint.min > lowest.get(key, (-math.inf,))[0]:
            lowest[key] = (constraint.min, constraint.label)
        if constraint.max is not None and constraint.max < highest.get(key, (math.inf,))[0]:
            highest[key] = (constraint.max, constraint.label)
    for key, (low, low_label) in lowest.items():
        high, high_label = highest.get(key, (math.inf, None))
        if low > high:
            raise ConfigurationError(
                f"constraints {low_label!r} and {high_label!r} cannot both be met: "
                f"no value of {key} is >= {low:g} and <= {high:g}"
            )


def run_slsqp(problem, recorder):
    """SciPy SLSQP on the merit with the bounds and inequality constraints (exact Jacobians).

    Used by the ``minimize`` driver when the problem has constraints.

    Returns
    -------
    ndarray, shape (n,)
        The last scaled point.
    """
    from scipy.optimize import minimize

    lower, upper = problem.variables.scaled_bounds()
    u = problem.start()
    value, gradient = problem.value_and_gradient(u)
    feasible = bool(np.all(problem.constraint_values_numpy(u) >= -1e-9))
    if recorder.record(0, value, u, gradient, feasible=feasible):
        return u
    unit = value if value > 0 else 1.0
    cache = {}

    def merit(u):
        key = tuple(u)
        if key not in cache:
            cache.clear()
            cache[key] = problem.value_and_gradient(u)
        return cache[key]

    def callback(u):
        value, gradient = merit(u)
        feasible = bool(np.all(problem.constraint_values_numpy(u) >= -1e-9))
        if recorder.record(recorder.step + 1, value, u, gradient, feasible=feasible):
            raise StopRun

    constraint = {
        "type": "ineq",
        "fun": lambda u: problem.constraint_values_numpy(u),
        "jac": lambda u: problem.constraint_jacobian(u)[1],
    }
    stop = recorder.stop
    try:
        result = minimize(
            lambda u: merit(u)[0] / unit,
            u,
            jac=lambda u: merit(u)[1] / unit,
            method="SLSQP",
            bounds=list(zip(lower, upper)),
            constraints=[constraint],
            callback=callback,
            options={"maxiter": max(stop.steps, 1), "ftol": max(stop.merit_tol, 1e-15)},
        )
    except StopRun:
        return recorder.last_point
    recorder.message = recorder.message or str(result.message)
    return result.x
