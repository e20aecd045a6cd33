"""The dls driver (Levenberg–Marquardt): exact solutions, bounds, constraints, diagnostics."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import singlet

from optics import backend as be
from optics.optimize import (
    Constraint,
    Operand,
    OptimizationWarning,
    Problem,
    Variable,
    optimize,
)
from optics.optimize.diagnostics import diagnose
from optics.optimize.history import History, StepRecord


def _thickness_problem(constraints=()):
    """Residuals linear in the variables: t1 − 3, t2 − 90 and √2 (t1 + t2 − 95)."""
    optic = singlet(thickness=5.0, image_distance=47.0)
    operands = [
        Operand("center_thickness", target=3.0, surface=1),
        Operand("center_thickness", target=90.0, surface=2),
        Operand("total_track", target=95.0, weight=2.0),
    ]
    variables = [Variable("surfaces[1].thickness"), Variable("surfaces[2].thickness")]
    return Problem(optic, variables, operands, constraints)


# The same linear system written as A t = b with the operand weights as row scales.
_A = np.array([[1.0, 0.0], [0.0, 1.0], [2**0.5, 2**0.5]])
_B = np.array([3.0, 90.0, 95.0 * 2**0.5])


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
def test_dls_hits_the_exact_solution_of_a_linear_least_squares_problem(backend_name):
    if backend_name not in be.available_backends():
        pytest.skip(f"{backend_name} is not installed")
    expected = np.linalg.lstsq(_A, _B, rcond=None)[0]
    problem = _thickness_problem()
    with be.using(backend_name):
        result = optimize(problem, "dls", steps=20)
    np.testing.assert_allclose(result.values_after, expected, rtol=0, atol=1e-8)
    residual = _A @ expected - _B
    assert result.merit_after == pytest.approx(residual @ residual, rel=1e-9)
    assert result.steps <= 5  # Gauss–Newton on a linear model: one or two steps


def test_an_inequality_constraint_is_active_at_the_solution():
    # total track <= 90: the equality-constrained least-squares solution (KKT, by hand).
    problem = _thickness_problem([Constraint("total_track", max=90.0)])
    kkt = np.block([[_A.T @ _A, np.ones((2, 1))], [np.ones((1, 2)), np.zeros((1, 1))]])
    expected = np.linalg.solve(kkt, np.concatenate([_A.T @ _B, [90.0]]))[:2]
    for driver in ("dls", "minimize"):  # minimize runs SLSQP when there are constraints
        problem = _thickness_problem([Constraint("total_track", max=90.0)])
        with be.using("numpy"):
            result = optimize(problem, driver, steps=50)
        np.testing.assert_allclose(result.values_after, expected, rtol=0, atol=1e-6)
        assert sum(result.values_after) == pytest.approx(90.0, abs=1e-6)
        (row,) = result.constraints_after
        assert row["satisfied"] and row["value"] == pytest.approx(90.0, abs=1e-6)


def test_a_driver_without_constraint_support_refuses_them():
    from optics.errors import ConfigurationError

    problem = _thickness_problem([Constraint("total_track", max=90.0)])
    with be.using("numpy"), pytest.raises(ConfigurationError, match="does not take constraints"):
        optimize(problem, "least_squares", steps=5)


def _bending_problem(c1_max=None):
    """An f = 100 mm, F/10 singlet (n = 1.5), on axis; bending and focus vary, efl held."""
    optic = singlet(
        radius1=100.0, radius2=-100.0, thickness=2.0, image_distance=99.0, epd=10.0, fields=(0.0,)
    )
    variables = [  # curvatures: the power is linear in them, the bending a straight line
        Variable("surfaces[1].curvature", max=c1_max),
        "surfaces[2].curvature",
        "surfaces[2].thickness",
    ]
    operands = [Operand("rms_spot", rings=6), Operand("efl", target=100.0, weight=1.0)]
    return Problem(optic, variables, operands)


def test_dls_finds_the_thin_lens_bending_of_least_spherical_aberration():
    # Thin lens, object at infinity: the shape factor q = (R2 + R1) / (R2 − R1) of least
    # third-order spherical aberration is 2 (n² − 1) / (n + 2) = 0.714 for n = 1.5
    # (Welford, Aberrations of Optical Systems, §12.3); R1 = 58.3 mm, R2 = −350 mm at f = 100.
    problem = _bending_problem()
    with be.using("numpy"):
        result = optimize(problem, "dls", steps=40)
    c1, c2, _ = result.values_after
    q = (c1 + c2) / (c1 - c2)  # = (R2 + R1) / (R2 - R1)
    assert q == pytest.approx(2 * (1.5**2 - 1) / (1.5 + 2), abs=0.03)
    assert result.merit_after < 0.2 * result.merit_before
    assert result.operands_after[1]["value"] == pytest.approx(100.0, abs=1e-3)


def test_bounds_are_respected_and_active():
    problem = _bending_problem(c1_max=0.015)  # the unconstrained optimum is c1 = 0.0171 / mm
    with be.using("numpy"):
        result = optimize(problem, "dls", steps=40)
    assert all(r.values[0] <= 0.015 for r in result.history.records)
    assert result.values_after[0] == pytest.approx(0.015, abs=1e-12)
    assert result.merit_after < result.merit_before


def _history(merits):
    records = [StepRecord(i, m, 1.0, np.zeros(1), 0.0) for i, m in enumerate(merits)]
    return History(records)


def test_diagnose_names_divergence_and_invalid_steps():
    assert diagnose(_history([1.0, 0.5, 0.4, 0.3])) == []
    (note,) = diagnose(_history([1.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]))
    assert "diverged" in note and "5 consecutive steps" in note and "step 1" in note
    (note,) = diagnose(_history([1.0, 0.01, 0.5, 0.2, 0.6, 0.3, 0.4]))  # ends 40x its best
    assert "diverged" in note
    (note,) = diagnose(_history([1.0, 0.5, math.nan]))
    assert "invalid" in note


def test_a_forced_divergence_warns_and_keeps_the_best_point(torch_backend):
    problem = _bending_problem()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = optimize(problem, "adam", steps=15, learning_rate=300.0)
    notes = [str(w.message) for w in caught if issubclass(w.category, OptimizationWarning)]
    assert notes and notes == result.warnings
    assert any("diverged" in n or "invalid" in n for n in notes)
    assert result.merit_after == pytest.approx(result.history.best().merit)
    assert result.merit_after <= result.merit_before


def test_torch_with_an_exact_gradient_follows_the_numpy_run(torch_backend):
    # A spot operand gives 2·127 rows for 3 variables: on Torch the gradient is exact and
    # the Gauss–Newton matrix comes from differences ("auto"); the path equals NumPy's.
    with be.using("numpy"):
        reference = optimize(_bending_problem(), "dls", steps=4)
    result = optimize(_bending_problem(), "dls", steps=4)
    np.testing.assert_allclose(result.values_after, reference.values_after, rtol=1e-7)
    assert result.merit_after == pytest.approx(reference.merit_after, rel=1e-6)
