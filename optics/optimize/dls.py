"""Damped least squares: Levenberg–Marquardt with bounds and inequality constraints.

The driver ``"dls"`` lowers ‖r(u)‖², r the ray-level residual vector of the
problem (:mod:`optics.optimize.operands_rays`: one residual per ray
coordinate for a spot operand, one per operand otherwise), over the scaled
variables u.  Each step solves the damped Gauss–Newton model

    min_δ ‖r + J δ‖² + λ δᵀ D δ     subject to   c + A δ ≥ 0

with J the Jacobian, D Moré's scaling (the running maximum of the
diagonal of JᵀJ, so the damping is invariant to the variables' units),
and λ updated by Nielsen's rule from the gain ratio ρ = actual / predicted
reduction: λ ← λ · max(1/10, 1 − (2ρ − 1)³) after an accepted step
(Nielsen's rule, with 1/10 for his 1/3), λ ← ν λ, ν ← 2ν after a rejected one.

**Derivatives.** On NumPy J comes from two-sided differences (step
eps^(1/3) · max(1, |u|), eps the backend's machine epsilon).  On Torch and
JAX the gradient Jᵀr is always exact (one reverse pass); J itself is the
exact autograd Jacobian when the residuals are few (M ≤ EXACT_ROWS_PER_VARIABLE · n),
else — a spot operand gives one row per ray coordinate, thousands of rows,
and reverse mode pays one pass per row — the Gauss–Newton matrix JᵀJ is
formed from two-sided differences (2n untaped evaluations) while the
gradient stays exact, so the point where the driver stops is a stationary
point of the exact merit.  ``jacobian = "exact"`` forces the autograd
Jacobian, ``"differences"`` differences everywhere.

**Bounds and constraints** are rows of c + A δ ≥ 0: a variable bound
l ≤ u is the row (u − l) + δ ≥ 0, an inequality constraint
(:mod:`optics.optimize.constraints`) its value minus its limit with the
exact gradient as the row.  The step's quadratic program is solved by an
active-set loop (add the most violated linearized row, drop a row whose
multiplier turns negative), so a constraint is met exactly where it binds
and costs nothing where it does not: no penalty weight enters the merit.
The trial point is clipped into the bounds; a step is accepted when it
lowers the merit without raising the constraint violation above the
feasibility tolerance (from an infeasible start, when it lowers the
violation).  A trial point where the merit is not finite (every ray of a
field lost, NaN) is rejected like an uphill step and counted as invalid.
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError
from ._derivatives import has_autograd, value_and_gradient

#: Initial damping λ (relative to Moré's scaling D, so dimensionless).
INITIAL_DAMPING = 1e-3
#: Smallest factor of λ after a good step (Nielsen uses 1/3; 1/10 crosses the decades
#: that separate a stiff operand (efl) from a soft one (the spot along a bending valley)
#: three times faster, and a rejected step costs only one more trial).
DECREASE = 0.1
#: Gain ratio a step needs to be accepted.
ACCEPT_RATIO = 1e-4
#: A step this many round-offs of the variables' size ends the run (4500 eps: 1e-12 in float64).
STEP_ROUNDOFFS = 4500.0
#: Trial steps (each with more damping) before a step gives up.
MAX_TRIALS = 30
#: Up to this many residuals per variable the autograd Jacobian is formed row by row.
EXACT_ROWS_PER_VARIABLE = 4
#: Choices of the ``jacobian`` option.
JACOBIANS = ("auto", "exact", "differences")
#: Feasibility tolerance of a constraint, in its units per unit of max(1, |limit|).
FEASIBILITY_TOL = 1e-7


def run_dls(problem, recorder, jacobian="auto"):
    """Drive ``problem`` with Levenberg–Marquardt until ``recorder`` says stop.

    Parameters
    ----------
    problem : Problem
        Its ray-level residuals and Jacobian (``problem.ray_jacobian``) and
        its constraints (``problem.constraints``) are used.
    recorder : Recorder
        Receives each accepted iterate (merit, gradient 2 Jᵀr, feasibility).
    jacobian : {"auto", "exact", "differences"}
        How J is formed (see the module notes).

    Returns
    -------
    ndarray, shape (n,)
        The last accepted scaled point.
    """
    if jacobian not in JACOBIANS:
        raise ConfigurationError(f"dls jacobian must be one of {JACOBIANS}, not {jacobian!r}")
    lower, upper = problem.variables.scaled_bounds()
    u = np.clip(problem.start(), lower, upper)
    linearize = _linearization(problem, u, jacobian)
    r, jac, gradient = linearize(u)
    c, a = _all_constraints(problem, u, lower, upper)
    tol = _feasibility_tol(problem, lower, upper)
    violation = _violation(c, tol)
    merit = float(r @ r)
    if recorder.record(0, merit, u, 2.0 * gradient, feasible=violation <= 0):
        return u
    scaling = np.diag(jac.T @ jac).copy()
    damping = INITIAL_DAMPING  # dimensionless: it multiplies D, which carries the units
    growth = 2.0
    for step in range(1, recorder.stop.steps + 1):
        hessian = jac.T @ jac
        scaling = np.maximum(scaling, np.diag(hessian))
        eps = be.machine_eps(be.asarray(1.0))
        floor = max(scaling.max(), float(be.finfo(1.0).tiny)) * eps**0.5
        d = np.maximum(scaling, float(floor))
        for _ in range(MAX_TRIALS):
            delta = constrained_step(hessian + damping * np.diag(d), gradient, a, c, tol)
            trial = np.clip(u + delta, lower, upper)
            delta = trial - u
            r_trial = problem.ray_residuals_numpy(trial)
            merit_trial = float(r_trial @ r_trial)
            if not math.isfinite(merit_trial):
                recorder.invalid_steps = getattr(recorder, "invalid_steps", 0) + 1
                damping, growth = damping * growth, growth * 2.0
                continue
            c_trial, _ = _all_constraints(problem, trial, lower, upper, values_only=True)
            violation_trial = _violation(c_trial, tol)
            step_jac = jac @ delta
            predicted = -2.0 * float(gradient @ delta) - float(step_jac @ step_jac)
            actual = merit - merit_trial
            ratio = actual / predicted if predicted > 0 else -1.0
            if violation > 0:  # infeasible: restore feasibility first
                accepted = violation_trial < violation or (
                    violation_trial <= 0 and ratio > ACCEPT_RATIO
                )
            else:
                accepted = ratio > ACCEPT_RATIO and violation_trial <= 0
            if accepted:
                damping *= max(DECREASE, 1.0 - (2.0 * min(ratio, 1.0) - 1.0) ** 3)
                growth = 2.0
                break
            damping, growth = damping * growth, growth * 2.0
        else:
            recorder.message = recorder.message or (
                f"no damped step lowers the merit (λ = {damping:.3g}): a local minimum"
            )
            return u
        # A step of a few thousand round-offs of the variables (about 1e-12 in float64).
        smallest = STEP_ROUNDOFFS * be.machine_eps(be.asarray(1.0))
        tiny = np.linalg.norm(delta) <= smallest * (np.linalg.norm(u) + smallest)
        u = trial
        r, jac, gradient = linearize(u)
        c, a = _all_constraints(problem, u, lower, upper)
        merit, violation = float(r @ r), _violation(c, tol)
        if recorder.record(step, merit, u, 2.0 * gradient, feasible=violation <= 0):
            return u
        if tiny:
            recorder.message = recorder.message or f"step below {smallest:.1g} of the variables"
            return u
    return u


def _linearization(problem, u, jacobian):
    """A function u -> (r (M,), J (M, n), Jᵀr (n,)) following the ``jacobian`` choice."""
    autograd = has_autograd()
    if jacobian == "auto":
        rows = len(problem.ray_residuals_numpy(u))
        jacobian = "exact" if rows <= EXACT_ROWS_PER_VARIABLE * problem.size else "mixed"
    if not autograd or jacobian == "differences":
        jacobian = "differences"

    def linearize(u):
        r, jac = problem.ray_jacobian(u, exact=jacobian == "exact")
        if jacobian == "mixed":  # exact gradient of the merit, J by differences
            _, merit_gradient = value_and_gradient(problem.merit_value, u)
            return r, jac, 0.5 * merit_gradient
        return r, jac, jac.T @ r

    return linearize


def constrained_step(hessian, gradient, a, c, tol):
    """The step δ of min ½ δᵀHδ + gᵀδ subject to c + A δ ≥ 0 (active-set loop).

    Parameters
    ----------
    hessian : ndarray, shape (n, n)
        Positive definite (damped).
    gradient : ndarray, shape (n,)
    a : ndarray, shape (k, n)
    c : ndarray, shape (k,)
    tol : ndarray, shape (k,)
        Slack allowed on each linearized row.

    Returns
    -------
    ndarray, shape (n,)
    """
    active: list[int] = []
    delta = _kkt(hessian, gradient, a, c, active)[0]
    for _ in range(2 * len(c) + 4):
        linear = c + a @ delta
        outside = [j for j in range(len(c)) if j not in active and linear[j] < -tol[j]]
        if outside:
            active.append(min(outside, key=lambda j: linear[j] / max(tol[j], 1e-300)))
        else:
            _, multipliers = _kkt(hessian, gradient, a, c, active)
            if not active or multipliers.min() >= 0:
                return delta
            active.pop(int(np.argmin(multipliers)))
        delta = _kkt(hessian, gradient, a, c, active)[0]
    return delta


def _kkt(hessian, gradient, a, c, active):
    """δ and the multipliers μ of the equality-constrained step on rows ``active``."""
    n = len(gradient)
    if not active:
        return np.linalg.solve(hessian, -gradient), np.zeros(0)
    rows = a[active]
    k = len(active)
    system = np.zeros((n + k, n + k))
    system[:n, :n] = hessian
    system[:n, n:] = -rows.T
    system[n:, :n] = rows
    rhs = np.concatenate([-gradient, -c[active]])
    solution = np.linalg.lstsq(system, rhs, rcond=None)[0]
    return solution[:n], solution[n:]


def _all_constraints(problem, u, lower, upper, values_only=False):
    """Constraint rows c (k,) and A (k, n): the problem's constraints, then the bounds."""
    values, rows = [], []
    if problem.constraints:
        if values_only:
            cv = problem.constraint_values_numpy(u)
            cj = np.zeros((len(cv), problem.size))
        else:
            cv, cj = problem.constraint_jacobian(u)
        values.append(cv)
        rows.append(cj)
    eye = np.eye(problem.size)
    for i in range(problem.size):
        if math.isfinite(lower[i]):
            values.append(np.array([u[i] - lower[i]]))
            rows.append(eye[i : i + 1])
        if math.isfinite(upper[i]):
            values.append(np.array([upper[i] - u[i]]))
            rows.append(-eye[i : i + 1])
    if not values:
        return np.zeros(0), np.zeros((0, problem.size))
    return np.concatenate(values), np.concatenate(rows, axis=0)


def _feasibility_tol(problem, lower, upper):
    """Per-row slack: FEASIBILITY_TOL · max(1, |limit|) for constraints, tiny for bounds."""
    tol = [FEASIBILITY_TOL * max(1.0, abs(limit)) for limit in problem.constraints.limits()]
    bound_rows = sum(math.isfinite(v) for v in (*lower, *upper))
    return np.array(tol + [1e-12] * bound_rows, dtype=float)


def _violation(c, tol) -> float:
    """How far the worst row is outside its tolerance (0 when all are met)."""
    if len(c) == 0:
        return 0.0
    excess = -c - tol
    worst = float(np.max(excess))
    return max(worst, 0.0) if math.isfinite(worst) else math.inf
