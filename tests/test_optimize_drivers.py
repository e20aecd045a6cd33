"""Every driver lowers the merit on problems with a known answer, within bounds, and stops."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import reference_cooke, singlet

from optics import backend as be
from optics import paraxial
from optics.errors import ConfigurationError
from optics.optimize import Operand, Problem, Variable, optimize

CASES = [
    ("numpy", "least_squares"),
    ("numpy", "minimize"),
    ("torch", "least_squares"),
    ("torch", "minimize"),
    ("torch", "adam"),
    ("torch", "lbfgs"),
]
CASE_IDS = [f"{b}-{d}" for b, d in CASES]


def _skip_without(backend):
    if backend not in be.available_backends():
        pytest.skip(f"{backend} is not installed")


def _focus_problem(offset=2.0, **bounds):
    """A thin-aperture singlet (f/250) whose image distance starts ``offset`` mm past the BFL."""
    optic = singlet(epd=0.2, fields=(0.0,))
    bfl = float(paraxial(optic).bfl)
    optic.surfaces[2].thickness = bfl + offset
    problem = Problem(optic, [Variable("surfaces[2].thickness", **bounds)], [Operand("rms_spot")])
    return problem, bfl


@pytest.mark.parametrize(("backend", "driver"), CASES, ids=CASE_IDS)
def test_driver_focuses_a_singlet_at_its_paraxial_back_focal_length(backend, driver):
    _skip_without(backend)
    problem, bfl = _focus_problem()
    with be.using(backend):
        result = optimize(problem, driver, steps=300)
    # At f/250 spherical aberration moves the best focus by ~0.2 µm from the paraxial one.
    assert abs(problem.optic.surfaces[2].thickness - bfl) < 1e-3
    assert result.merit_after < 1e-6 * result.merit_before
    assert result.values_after[0] == problem.optic.surfaces[2].thickness


@pytest.mark.parametrize(("backend", "driver"), CASES, ids=CASE_IDS)
def test_driver_respects_bounds(backend, driver):
    _skip_without(backend)
    _, bfl = _focus_problem()
    problem, _ = _focus_problem(min=bfl + 1.0, max=bfl + 5.0)  # the optimum lies below min
    with be.using(backend):
        result = optimize(problem, driver, steps=60)
    visited = np.array([r.values[0] for r in result.history.records])
    assert np.all(visited >= bfl + 1.0 - 1e-12)
    assert problem.optic.surfaces[2].thickness == pytest.approx(bfl + 1.0, abs=1e-6)
    assert result.merit_after < result.merit_before


@pytest.mark.parametrize(("backend", "driver"), CASES, ids=CASE_IDS)
def test_driver_lowers_the_merit_of_a_perturbed_cooke_triplet(backend, driver):
    _skip_without(backend)
    problem = _cooke_problem()
    with be.using(backend):
        result = optimize(problem, driver, steps=100)
    assert result.merit_after < 0.2 * result.merit_before
    assert result.history.merits[0] == pytest.approx(result.merit_before)


def test_levenberg_marquardt_solves_an_efl_target_exactly():
    optic = singlet()
    problem = Problem(optic, ["surfaces[1].radius"], [Operand("efl", target=60.0)])
    with be.using("numpy"):
        result = optimize(problem, "least_squares", method="lm", steps=50)
    assert float(paraxial(optic).efl) == pytest.approx(60.0, rel=1e-10)
    assert result.merit_after < 1e-16


def test_levenberg_marquardt_refuses_bounds():
    problem, _ = _focus_problem(min=0.0)
    with pytest.raises(ConfigurationError, match="'lm' takes no bounds"):
        optimize(problem, "least_squares", method="lm")


def test_gradient_drivers_refuse_the_numpy_backend():
    problem, _ = _focus_problem()
    with be.using("numpy"), pytest.raises(ConfigurationError, match="torch or jax backend"):
        optimize(problem, "adam")


def test_unknown_driver_and_option_are_named():
    problem, _ = _focus_problem()
    with pytest.raises(ConfigurationError, match="unknown driver 'sgd'"):
        optimize(problem, "sgd")
    with pytest.raises(ConfigurationError, match="no option momentum"):
        optimize(problem, "least_squares", momentum=0.9)


def _cooke_problem():
    optic = reference_cooke()
    for i, change in zip(range(1, 7), (0.02, -0.02, 0.01, -0.01, 0.02, -0.02)):
        optic.surfaces[i].geometry.radius *= 1.0 + change
    return Problem(
        optic,
        [f"surfaces[{i}].radius" for i in range(1, 7)],
        [Operand("rms_spot", weight=3.0), Operand("efl", target=50.0)],
    )


def test_callback_sees_every_step_and_can_stop_the_run():
    seen = []

    def callback(record):
        seen.append(record.step)
        return record.step == 3

    with be.using("numpy"):
        result = optimize(_cooke_problem(), "minimize", steps=100, callback=callback)
    assert seen == [0, 1, 2, 3]
    assert result.message == "stopped by the callback"
    assert result.steps == 3


@pytest.mark.parametrize("driver", ["adam", "least_squares"])
def test_step_limit_counts_optimizer_steps(driver):
    pytest.importorskip("torch")
    problem, _ = _focus_problem()
    with be.using("torch"):
        result = optimize(problem, driver, steps=4, merit_tol=0.0, grad_tol=0.0)
    assert result.steps == 4
    assert list(result.history.steps) == [0, 1, 2, 3, 4]
    assert result.message == "reached 4 steps"


def test_gradient_tolerance_stops_at_the_optimum():
    problem, _ = _focus_problem()
    with be.using("numpy"):
        result = optimize(problem, "minimize", steps=100, grad_tol=1e-3)
    last = result.history.records[-1]
    assert last.gradient_norm <= 1e-3 * result.merit_before
    assert "grad_tol" in result.message
    assert result.steps < 100


def test_merit_tolerance_stops_when_progress_stalls():
    pytest.importorskip("torch")
    problem, _ = _focus_problem()
    with be.using("torch"):
        result = optimize(problem, "adam", steps=500, merit_tol=0.5, grad_tol=0.0)
    merits = result.history.merits
    assert abs(merits[-2] - merits[-1]) <= 0.5 * merits[-2]
    assert result.message == "merit change below merit_tol"
    assert result.steps < 500


def test_zero_steps_only_evaluates_the_start():
    problem, bfl = _focus_problem()
    with be.using("numpy"):
        result = optimize(problem, "least_squares", steps=0)
    assert result.steps == 0
    assert result.merit_after == result.merit_before
    assert problem.optic.surfaces[2].thickness == pytest.approx(bfl + 2.0)


def test_non_finite_start_is_refused_naming_the_operand():
    optic = singlet(epd=0.2, fields=(0.0, 5.0))
    optic.surfaces[2].semi_diameter = 1e-3  # every off-axis ray is vignetted
    operand = Operand("rms_spot", fields=[1])
    problem = Problem(optic, [Variable("surfaces[2].thickness", scale=1.0)], [operand])
    with pytest.raises(ConfigurationError, match=r"not finite at the start \(operands: rms_spot"):
        optimize(problem, "least_squares")
