"""optics.optimize.Adam and LBFGS: backend-neutral steps on exact gradients (torch and jax)."""

from __future__ import annotations

import numpy as np
import pytest

from optics import backend as be
from optics.errors import ConfigurationError
from optics.optimize import LBFGS, Adam
from optics.optimize.gradient_steps import gradient_steps

#: A rotated, badly scaled quadratic: minimum at CENTRE, condition number 1e3.
CENTRE = np.array([1.5, -2.0, 0.25])
_Q = np.linalg.qr(np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]]))[0]
HESSIAN = _Q @ np.diag([1.0, 30.0, 1000.0]) @ _Q.T


def _quadratic(values):
    d = [v - c for v, c in zip(values, CENTRE)]
    return 0.5 * sum(HESSIAN[i, j] * d[i] * d[j] for i in range(3) for j in range(3))


def _rosenbrock(values):
    x, y = values
    return (1.0 - x) ** 2 + 100.0 * (y - x * x) ** 2


def test_lbfgs_solves_a_quadratic_in_a_few_steps(autodiff_backend):
    steps = LBFGS([0.0, 0.0, 0.0], learning_rate=1.0)
    for _ in range(12):
        steps.step(_quadratic)
    # Quasi-Newton on a 3-variable quadratic: exact (to round-off) within a few iterations.
    np.testing.assert_allclose(steps.values(), CENTRE, atol=1e-7)


def test_lbfgs_returns_the_loss_and_gradient_before_the_step(autodiff_backend):
    steps = LBFGS([0.0, 0.0, 0.0], learning_rate=1.0)
    loss, grad = steps.step(_quadratic)
    assert loss == pytest.approx(0.5 * CENTRE @ HESSIAN @ CENTRE, rel=1e-12)
    np.testing.assert_allclose(grad, -HESSIAN @ CENTRE, rtol=1e-12)
    assert _quadratic(list(steps.values())) < loss  # the line search went downhill


def test_lbfgs_reaches_the_rosenbrock_minimum(autodiff_backend):
    steps = LBFGS([-1.2, 1.0], learning_rate=1.0)
    for _ in range(80):
        steps.step(_rosenbrock)
    np.testing.assert_allclose(steps.values(), [1.0, 1.0], atol=1e-6)


def test_bounds_hold_after_every_step(autodiff_backend):
    for algorithm in ("adam", "lbfgs"):
        steps = gradient_steps(algorithm, [0.0, 0.0, 0.0], 0.5, lower=[-1, -1, -1], upper=[1, 1, 1])
        for _ in range(20):
            steps.step(_quadratic)
            assert np.all(np.abs(steps.values()) <= 1.0)
        assert steps.values()[1] == pytest.approx(-1.0)  # CENTRE[1] = -2 is outside: on the bound


def test_adam_first_step_is_the_learning_rate_against_the_gradient(autodiff_backend):
    steps = Adam([0.0, 0.0, 0.0], learning_rate=0.01)
    _, grad = steps.step(_quadratic)
    # Bias-corrected first Adam step: -rate * sign(g) (|g| >> epsilon).
    np.testing.assert_allclose(steps.values(), -0.01 * np.sign(grad), rtol=1e-6)


def test_gradient_steps_refuse_numpy_and_unknown_algorithms():
    with be.using("numpy"), pytest.raises(ConfigurationError, match="torch or jax"):
        gradient_steps("lbfgs", [0.0], 1.0)
    pytest.importorskip("torch")
    with be.using("torch"), pytest.raises(ConfigurationError, match="unknown gradient algorithm"):
        gradient_steps("sgd", [0.0], 1.0)


def test_lbfgs_that_finds_only_invalid_points_stops_and_counts_them(autodiff_backend):
    start = np.array([0.5, 0.5])

    def cliff(values):  # finite only at the start point: every move loses the lens
        moved = sum((v - s) ** 2 for v, s in zip(values, start))
        return _rosenbrock(values) + be.where(moved > 0, float("nan"), 0.0)

    steps = LBFGS(start, learning_rate=1.0)
    loss, _ = steps.step(cliff)
    assert np.isfinite(loss) and np.array_equal(steps.values(), start)  # it did not move
    assert "no step along the steepest descent" in steps.stalled
    assert steps.take_invalid_trials() >= 25 and steps.take_invalid_trials() == 0
