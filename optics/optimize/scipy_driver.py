"""SciPy drivers: damped least squares (least_squares) and bounded L-BFGS-B (minimize).

Both see the scaled variables u, and the merit in units of its start
value, so that SciPy's partly absolute tolerances act relative to it.
Derivatives come from the problem: the exact autograd Jacobian (gradient) on
Torch, passed to SciPy as ``jac``; central finite differences on NumPy.  Each
Jacobian evaluation happens at an accepted iterate, so that is where a step
is recorded and where the stop criteria and the callback can end the run.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigurationError
from .history import StopRun

LEAST_SQUARES_METHODS = ("trf", "lm")


def run_least_squares(problem, recorder, method="trf"):
    """``scipy.optimize.least_squares``: trust-region reflective or Levenberg–Marquardt.

    Parameters
    ----------
    problem : Problem
    recorder : Recorder
    method : {"trf", "lm"}
        ``"lm"`` (MINPACK) takes no bounds and needs at least as many
        operands as variables.

    Returns
    -------
    ndarray, shape (n,)
        The last scaled point.
    """
    from scipy.optimize import least_squares

    if method not in LEAST_SQUARES_METHODS:
        raise ConfigurationError(
            f"least_squares method must be one of {LEAST_SQUARES_METHODS}, not {method!r}"
        )
    lower, upper = problem.variables.scaled_bounds()
    bounded = bool(np.isfinite(lower).any() or np.isfinite(upper).any())
    m, n = len(problem.merit.operands), problem.size
    if method == "lm" and bounded:
        raise ConfigurationError("least_squares method 'lm' takes no bounds: use method 'trf'")
    if method == "lm" and m < n:
        raise ConfigurationError(
            f"least_squares method 'lm' needs at least as many operands ({m}) as variables ({n}): "
            "use method 'trf'"
        )

    u = problem.start()
    unit = _merit_unit(problem.merit_float(u)) ** 0.5

    def residuals(u):
        return problem.residuals_numpy(u) / unit

    def jacobian(u):
        r, jac = problem.jacobian(u)
        if recorder.record(recorder.step + 1, r @ r, u, 2.0 * jac.T @ r):
            raise StopRun
        return jac / unit

    stop = recorder.stop
    options = {"ftol": stop.merit_tol or None, "gtol": stop.grad_tol or None, "xtol": 1e-12}
    if method == "lm":  # MINPACK wants every tolerance above machine epsilon
        floor = 10 * np.finfo(float).eps
        options = {k: max(v or 0.0, floor) for k, v in options.items()}
    try:
        result = least_squares(
            residuals,
            u,
            jac=jacobian,
            bounds=(lower, upper),
            method=method,
            max_nfev=10 * (stop.steps + 1),
            **options,
        )
        u = result.x
    except StopRun:
        return recorder.last_point
    if not np.array_equal(u, recorder.last_point):
        r, jac = problem.jacobian(u)
        recorder.record(recorder.step + 1, r @ r, u, 2.0 * jac.T @ r)
    recorder.message = recorder.message or result.message
    return u


def run_minimize(problem, recorder):
    """``scipy.optimize.minimize`` with L-BFGS-B (bounds respected at every iterate).

    Returns
    -------
    ndarray, shape (n,)
        The last scaled point.
    """
    from scipy.optimize import minimize

    lower, upper = problem.variables.scaled_bounds()
    last = {}

    def merit_and_gradient(u):
        value, gradient = problem.value_and_gradient(u)
        last.update(u=np.array(u), value=value, gradient=gradient)
        return value, gradient

    def objective(u):
        value, gradient = merit_and_gradient(u)
        return value / unit, gradient / unit

    def callback(intermediate_result):
        u = intermediate_result.x
        if not np.array_equal(u, last.get("u")):
            merit_and_gradient(u)
        if recorder.record(recorder.step + 1, last["value"], u, last["gradient"]):
            raise StopIteration

    u = problem.start()
    value, gradient = merit_and_gradient(u)
    if recorder.record(0, value, u, gradient):
        return u
    unit = _merit_unit(value)
    stop = recorder.stop
    result = minimize(
        objective,
        u,
        jac=True,
        method="L-BFGS-B",
        bounds=list(zip(lower, upper)),
        callback=callback,
        options={"maxiter": stop.steps, "ftol": stop.merit_tol, "gtol": stop.grad_tol},
    )
    if not np.array_equal(result.x, recorder.last_point):
        value, gradient = problem.value_and_gradient(result.x)
        recorder.record(recorder.step + 1, value, result.x, gradient)
    recorder.message = recorder.message or str(result.message)
    return result.x


def _merit_unit(merit_at_start):
    """The start merit (1 when it is 0): SciPy sees the merit in this unit.

    SciPy's tolerances are partly absolute (L-BFGS-B compares changes with
    max(|f|, 1)); a merit of 1e-5 mm² would look converged from the start.
    """
    return merit_at_start if merit_at_start > 0 else 1.0
