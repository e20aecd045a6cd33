"""An optimization problem: an optic, its variables and a merit, evaluated at scaled variables.

Drivers work on the scaled variables u (see :mod:`optics.optimize.variables`)
and ask the problem for residuals, the merit, its gradient and the residual
Jacobian.  Derivatives are exact (autograd) when the configured backend has
automatic differentiation, and central finite differences otherwise.
"""

from __future__ import annotations

import numpy as np

from .. import backend as be
from ._derivatives import has_autograd, residuals_and_jacobian, value_and_gradient
from .merit import Merit
from .variables import Variable, VariableSet

#: Scale of a variable without a natural size: this fraction of the residual-zeroing step.
SENSITIVITY_FRACTION = 0.1


class Problem:
    """Variables, merit and optic, evaluated at scaled variables u.

    Parameters
    ----------
    optic : Optic
        Modified in place: evaluations set the variables on it.
    variables : list of Variable or str
        Strings are paths without bounds.
    merit : Merit or list of Operand
    constraints : list of Constraint, optional
        Inequalities the ``dls`` and ``minimize`` drivers hold as constraints
        (:mod:`optics.optimize.constraints`); they add nothing to the merit.

    Notes
    -----
    Variables without an explicit or size-based scale get
    s = 0.1 ‖r‖ / ‖∂r/∂x‖ at the start: the change that, alone and to first
    order, would change the residual vector by 10% of its length (a 1%
    change of a radius typically moves the residuals by more than that),
    held for a curvature to the step that moves its sag at the rim by half a
    per cent of the rim height (``VariableSet.largest_scales``: where the merit
    hardly depends on it, as a stop's curvature in air, the sensitivity step
    would turn the plane into a sphere smaller than the beam).
    """

    def __init__(self, optic, variables, merit, constraints=()):
        from .constraints import ConstraintSet

        self.optic = optic
        self.constraints = ConstraintSet(constraints)
        variables = [Variable(v) if isinstance(v, str) else v for v in variables]
        self.variables = VariableSet(optic, variables)
        self.merit = merit if isinstance(merit, Merit) else Merit(list(merit))
        self.variables.detach_other_parameters()
        if np.isnan(self.variables.scales).any():
            self._choose_scales()

    @property
    def size(self) -> int:
        """Number of variables n."""
        return len(self.variables)

    def start(self) -> np.ndarray:
        """The scaled start, u = 0, shape (n,)."""
        return np.zeros(self.size)

    # --- evaluations ------------------------------------------------------------------

    def residuals(self, u):
        """Residual vector (backend array, shape (m,)) at u (ndarray (n,) or n 0-d leaves)."""
        self.variables.apply(u)
        return self.merit.residuals(self.optic)

    def merit_value(self, u):
        """The merit Σ r² (0-d backend array) at u."""
        r = self.residuals(u)
        return be.sum(r * r)

    def residuals_numpy(self, u) -> np.ndarray:
        """Residuals at u as an ndarray (m,), computed without a graph."""
        with be.no_grad():
            return np.asarray(be.to_numpy(self.residuals(np.asarray(u, dtype=float))), dtype=float)

    def merit_float(self, u) -> float:
        """The merit at u as a float."""
        r = self.residuals_numpy(u)
        return float(r @ r)

    def jacobian(self, u):
        """Residuals (m,) and their Jacobian with respect to u (m, n), as ndarrays."""
        if has_autograd():
            return residuals_and_jacobian(self.residuals, u)
        return self.residuals_numpy(u), self._finite_difference_jacobian(u)

    def value_and_gradient(self, u):
        """The merit (float) and its gradient with respect to u (ndarray (n,))."""
        if has_autograd():
            return value_and_gradient(self.merit_value, u)
        r, jacobian = self.jacobian(u)
        return float(r @ r), 2.0 * jacobian.T @ r

    def _finite_difference_jacobian(self, u) -> np.ndarray:
        """Central differences, step eps^(1/3)·max(1, |u_i|) (error ~ eps^(2/3))."""
        u = np.asarray(u, dtype=float)
        columns = []
        for i in range(self.size):
            h = np.finfo(float).eps ** (1 / 3) * max(1.0, abs(u[i]))
            plus, minus = u.copy(), u.copy()
            plus[i] += h
            minus[i] -= h
            columns.append((self.residuals_numpy(plus) - self.residuals_numpy(minus)) / (2 * h))
        return np.stack(columns, axis=1)

    # --- ray-level residuals and constraints (dls, slsqp) ------------------------------

    def ray_residuals(self, u):
        """Ray-level residual vector (backend array, shape (M,)) at u; see Merit.ray_residuals."""
        self.variables.apply(u)
        return self.merit.ray_residuals(self.optic)

    def ray_residuals_numpy(self, u) -> np.ndarray:
        """Ray-level residuals at u as an ndarray (M,), computed without a graph."""
        return self._numpy(self.ray_residuals, u)

    def ray_jacobian(self, u, exact=True):
        """Ray-level residuals (M,) and their Jacobian (M, n).

        ``exact``: autograd where the backend has it (else two-sided
        differences); False: two-sided differences on every backend.
        """
        return self._vector_and_jacobian(self.ray_residuals, u, exact)

    def constraint_values(self, u):
        """Constraint rows g (backend array, shape (k,)) at u; feasible where all g ≥ 0."""
        self.variables.apply(u)
        return self.constraints.values(self.optic)

    def constraint_values_numpy(self, u) -> np.ndarray:
        """Constraint rows at u as an ndarray (k,)."""
        return self._numpy(self.constraint_values, u)

    def constraint_jacobian(self, u):
        """Constraint rows (k,) and their Jacobian with respect to u (k, n)."""
        return self._vector_and_jacobian(self.constraint_values, u)

    def _numpy(self, fn, u) -> np.ndarray:
        with be.no_grad():
            return np.asarray(be.to_numpy(fn(np.asarray(u, dtype=float))), dtype=float)

    def _vector_and_jacobian(self, fn, u, exact=True):
        """fn(u) (m,) and dfn/du (m, n): autograd, else two-sided differences.

        The difference step is eps^(1/3) · max(1, |u_i|), eps the backend's
        machine epsilon (truncation and round-off error both ~ eps^(2/3)).
        """
        if exact and has_autograd():
            return residuals_and_jacobian(fn, u)
        u = np.asarray(u, dtype=float)
        eps = float(be.machine_eps(be.asarray(1.0)))
        columns = []
        for i in range(self.size):
            h = eps ** (1 / 3) * max(1.0, abs(u[i]))
            plus, minus = u.copy(), u.copy()
            plus[i] += h
            minus[i] -= h
            columns.append((self._numpy(fn, plus) - self._numpy(fn, minus)) / (2 * h))
        value = self._numpy(fn, u)
        return value, np.stack(columns, axis=1).reshape(value.shape[0], self.size)

    # --- results ----------------------------------------------------------------------

    def physical(self, u) -> np.ndarray:
        """Variable values in their own units at u, ndarray (n,)."""
        return self.variables.physical(u)

    def report(self, u) -> list[dict]:
        """Per-operand rows (see :meth:`Merit.report`) at u, leaving the optic at u."""
        self.variables.apply(np.asarray(u, dtype=float))
        return self.merit.report(self.optic)

    def finish(self, u):
        """Leave the optic at u with every variable a plain Python float."""
        self.variables.apply(np.asarray(u, dtype=float))

    def _choose_scales(self):
        """Sensitivity-based scales for variables that have none (see the class notes)."""
        pending = np.isnan(self.variables.scales)
        largest = self.variables.largest_scales()  # of the start lens, before any trace
        self.variables.set_scales(np.ones(self.size))  # measure at unit scale first
        r, jacobian = self.jacobian(self.start())
        column = np.linalg.norm(jacobian, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            sensitivity = SENSITIVITY_FRACTION * np.linalg.norm(r) / column
        chosen = np.where(np.isfinite(sensitivity) & (sensitivity > 0), sensitivity, 1.0)
        chosen = np.minimum(chosen, largest)
        self.variables.scales = np.where(pending, chosen, self.variables.scales)
        self.finish(self.start())
