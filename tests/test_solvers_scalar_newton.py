"""The batched scalar Newton solve: convergence, thresholds, classification, implicit gradient."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import autograd_graph_size

from optics import backend as be
from optics.solvers import (
    IterationPolicy,
    ScalarRootProblem,
    floor_slope,
    forced_iterations,
    slope_floor,
    solve_scalar_root,
    solver_settings,
)


class BatchProblem:
    """n independent equations F(t; params) = 0 from a formula over per-problem parameters."""

    def __init__(self, formula, reject=None, **params):
        self.formula, self.params, self._reject = formula, params, reject
        self.subsets = []

    def evaluate(self, t, subset=None):
        self.subsets.append(subset)
        params = {k: (v if subset is None else v[subset]) for k, v in self.params.items()}
        return self.formula(t, **params)

    def reject(self, t):
        return {} if self._reject is None else self._reject(t, **self.params)


def cubic(t, a, b):
    """F = t**3 + a t - b: one real root for a > 0, F_t = 3 t**2 + a."""
    return t**3 + a * t - b, 3 * t**2 + a, 3 * t**2 + be.abs(a)


def cubic_root(a, b):
    """float64 reference root of t**3 + a t - b (a > 0), by NumPy."""
    return np.array(
        [
            np.real(r[np.argmin(abs(np.imag(r)))])
            for r in (np.roots([1.0, 0.0, ai, -bi]) for ai, bi in zip(a, b))
        ]
    )


def _settings(kwargs):
    """Split solver-settings overrides (force_iterations, compact) off solve keywords."""
    changes = {}
    if "force_iterations" in kwargs:
        changes["forced_iterations"] = kwargs.pop("force_iterations")
    if "compact" in kwargs:
        changes["compact"] = kwargs.pop("compact")
    return solver_settings(**changes)


def quiet_solve(problem, t0, **kwargs):
    """solve_scalar_root with every warning turned into an error."""
    with warnings.catch_warnings(), _settings(kwargs):
        warnings.simplefilter("error")
        return solve_scalar_root(problem, t0, **kwargs)


A_VALUES = np.array([0.5, 1.0, 2.0, 0.7, 3.0])
B_VALUES = np.array([-3.0, 0.1, 2.5, 10.0, -40.0])


def test_converges_on_cubics_in_both_precisions(precision):
    problem = BatchProblem(cubic, a=be.asarray(A_VALUES.tolist()), b=be.asarray(B_VALUES.tolist()))
    result = quiet_solve(problem, be.zeros(5))
    assert be.to_numpy(result.valid).all()
    assert be.to_numpy(result.regular).all()
    atol = 1e-9 if precision == "float64" else 1e-5
    np.testing.assert_allclose(
        be.to_numpy(result.t), cubic_root(A_VALUES, B_VALUES), rtol=0, atol=atol
    )
    assert str(result.t.dtype).endswith(precision)


def test_problem_object_satisfies_the_protocol():
    assert isinstance(BatchProblem(cubic, a=np.ones(1), b=np.ones(1)), ScalarRootProblem)


@pytest.mark.filterwarnings(
    "ignore:scalar Newton solve:RuntimeWarning"
)  # early stops are non-converged
def test_newton_converges_quadratically(backend):
    problem = BatchProblem(lambda t, c: (t * t - c, 2 * t, 2 * be.abs(t)), c=be.asarray([2.0]))
    errors = []
    for k in range(1, 5):
        with forced_iterations(k):
            errors.append(abs(be.item(solve_scalar_root(problem, be.asarray([1.0])).t[0]) - 2**0.5))
    for before, after in zip(errors, errors[1:]):
        assert after <= before**2  # |e_k+1| ~ e_k**2 / (2 sqrt 2)
    assert quiet_solve(problem, be.asarray([1.0])).n_iter <= 6


def test_converged_start_takes_no_step(backend):
    problem = BatchProblem(cubic, a=be.asarray([1.0]), b=be.asarray([2.0]))
    result = quiet_solve(problem, be.asarray([1.0]))
    assert result.n_iter == 0
    assert be.item(result.t[0]) == 1.0


def test_slope_floor_never_flips_the_sign(precision):
    slope = be.asarray([-1e-30, -0.0, 0.0, 1e-30, -2.0, 3.0, float("nan")])
    tau = slope_floor(be.ones_like(slope))
    floored = be.to_numpy(floor_slope(slope, tau))
    eps_tau = be.to_numpy(tau)[0]
    np.testing.assert_array_equal(floored[:6], [-eps_tau, eps_tau, eps_tau, eps_tau, -2.0, 3.0])
    assert np.isnan(floored[6])
    assert eps_tau == 16 * be.machine_eps(slope)


def test_tiny_negative_slope_steps_toward_the_root(backend):
    # F = 1 - 1e-30 t has its root at t = 1e30 > 0: the floored step must still go right.
    problem = BatchProblem(lambda t, k: (1 - k * t, -k + 0 * t, k + 0 * t), k=be.asarray([1e-30]))
    with pytest.warns(RuntimeWarning, match="tangent=1"), forced_iterations(1):
        result = solve_scalar_root(problem, be.asarray([0.0]))
    assert be.item(result.t[0]) > 0


def surface_like(t, b):
    """F = t + 0.5 sin t - b: lengths of size |t|, slope of order one (like a surface sag)."""
    return t + 0.5 * be.sin(t) - b, 1 + 0.5 * be.cos(t), 1 + 0.5 * be.abs(be.cos(t))


def test_round_off_tolerance_lets_float32_converge(backend):
    with be.using(backend, precision="float32"):
        b = be.asarray(np.linspace(100.0, 1000.0, 101).tolist())
        result = quiet_solve(BatchProblem(surface_like, b=b), b, tol=1e-10)
        assert be.to_numpy(result.valid).all()
        with pytest.warns(RuntimeWarning, match="non_converged"):
            strict = solve_scalar_root(
                BatchProblem(surface_like, b=b), b, tol=1e-10, round_off_constant=0.0
            )
        assert strict.counts["non_converged"] >= 10  # without the floor many rays are flagged


def test_compacted_and_masked_iterations_agree_exactly(backend):
    b = be.asarray(np.linspace(-20.0, 20.0, 41))
    a = be.asarray(np.linspace(0.5, 5.0, 41))
    compact = BatchProblem(cubic, a=a, b=b)
    compact_result = quiet_solve(compact, be.zeros(41))
    masked_result = quiet_solve(BatchProblem(cubic, a=a, b=b), be.zeros(41), compact=False)
    np.testing.assert_array_equal(be.to_numpy(compact_result.t), be.to_numpy(masked_result.t))
    assert compact_result.n_iter == masked_result.n_iter
    assert any(s is not None for s in compact.subsets)  # the subset path was exercised


def test_force_iterations_runs_exactly_that_many_steps(backend):
    problem = BatchProblem(cubic, a=be.asarray(A_VALUES), b=be.asarray(B_VALUES))
    early = quiet_solve(problem, be.zeros(5))
    forced = quiet_solve(problem, be.zeros(5), force_iterations=early.n_iter + 20)
    assert forced.n_iter == early.n_iter + 20
    np.testing.assert_array_equal(be.to_numpy(forced.t), be.to_numpy(early.t))


def test_explicit_policy_replaces_the_settings_block(backend):
    a, b = be.asarray(A_VALUES), be.asarray(B_VALUES)
    early = quiet_solve(BatchProblem(cubic, a=a, b=b), be.zeros(5))
    forced = IterationPolicy(
        tolerance=1e-10,
        max_iterations=100,
        forced_iterations=early.n_iter + 7,
        compact=True,
        static=False,
    )
    # The enclosing block asks for 1 step; the explicit policy wins.
    with warnings.catch_warnings(), forced_iterations(1):
        warnings.simplefilter("error")
        result = solve_scalar_root(BatchProblem(cubic, a=a, b=b), be.zeros(5), policy=forced)
    assert result.n_iter == early.n_iter + 7
    np.testing.assert_array_equal(be.to_numpy(result.t), be.to_numpy(early.t))
    np.testing.assert_allclose(be.to_numpy(result.t), cubic_root(A_VALUES, B_VALUES), rtol=1e-9)


# --- classification -----------------------------------------------------------------------


def mixed(t, kind, a, b):
    """Per-row formulas: 0 cubic (regular), 1 (t-1)**2 (tangent at its root), 2 exp(t) (no root)."""
    F = be.where(kind == 1, (t - 1) ** 2, be.where(kind == 2, be.exp(t), t**3 + a * t - b))
    F_t = be.where(kind == 1, 2 * (t - 1), be.where(kind == 2, be.exp(t), 3 * t**2 + a))
    return F, F_t, be.abs(F_t) + be.abs(a)


def near_vertical(t, kind, a, b):
    return {"near_vertical": kind == 3}


# rows: regular, tangent, non_converged, non_finite (b is NaN), near_vertical, regular
KIND = [0, 1, 2, 0, 3, 0]
T0 = [0.0, 1.0, 0.0, 0.0, 0.0, 0.5]


def mixed_problem(parameter=be.asarray):
    return BatchProblem(
        mixed,
        reject=near_vertical,
        kind=be.asarray(np.array(KIND)),
        a=parameter([1.0, 1.0, 1.0, 1.0, 1.0, 2.0]),
        b=parameter([2.0, 0.0, 0.0, float("nan"), 2.0, -1.0]),
    )


def solve_mixed(problem, **kwargs):
    with warnings.catch_warnings(record=True) as caught, _settings(kwargs):
        warnings.simplefilter("always")
        result = solve_scalar_root(
            problem, be.asarray(T0), max_iter=10, name="mixed test", **kwargs
        )
    return result, caught


def test_each_rejection_category_is_classified(backend):
    result, _ = solve_mixed(mixed_problem())
    masks = {k: be.to_numpy(v).tolist() for k, v in result.rejected.items()}
    assert masks == {
        "non_finite": [False, False, False, True, False, False],
        "non_converged": [False, False, True, False, False, False],
        "tangent": [False, True, False, False, False, False],
        "near_vertical": [False, False, False, False, True, False],
    }
    assert be.to_numpy(result.regular).tolist() == [True, False, False, False, False, True]
    assert result.counts == {"non_finite": 1, "non_converged": 1, "tangent": 1, "near_vertical": 1}


def test_without_grad_tangent_and_problem_categories_stay_valid(backend):
    with be.no_grad():
        result, _ = solve_mixed(mixed_problem())
    assert be.to_numpy(result.valid).tolist() == [True, True, False, False, True, True]


def test_problem_reject_can_report_non_finite(backend):
    problem = BatchProblem(
        cubic,
        reject=lambda t, a, b: {"non_finite": b > 1},
        a=be.asarray([1.0, 1.0]),
        b=be.asarray([0.5, 2.0]),
    )
    with pytest.warns(RuntimeWarning):
        result = solve_scalar_root(problem, be.zeros(2))
    assert be.to_numpy(result.rejected["non_finite"]).tolist() == [False, True]
    assert be.to_numpy(result.valid).tolist() == [True, False]


def test_one_grouped_warning_with_counts_at_the_caller(backend):
    result, caught = solve_mixed(mixed_problem())
    assert len(caught) == 1
    message = str(caught[0].message)
    assert caught[0].category is RuntimeWarning
    assert caught[0].filename == __file__
    assert "mixed test: 4 of 6 problems rejected" in message
    for part in ("non_finite=1", "non_converged=1", "tangent=1", "near_vertical=1"):
        assert part in message
    assert f"after {result.n_iter} iterations" in message
    assert "worst residual" in message


def test_no_warning_when_nothing_is_rejected(backend):
    quiet_solve(BatchProblem(cubic, a=be.asarray(A_VALUES), b=be.asarray(B_VALUES)), be.zeros(5))


def test_worst_residual_ignores_non_finite_rows(backend):
    result, _ = solve_mixed(mixed_problem())
    assert result.worst_residual == pytest.approx(np.exp(-10.0))  # the exp(t) row after 10 steps


# --- implicit differentiation (torch) -----------------------------------------------------


def grads(output, *inputs):
    import torch

    return [g.detach().numpy() for g in torch.autograd.grad(output, inputs)]


def test_gradient_equals_the_implicit_derivative(torch_backend):
    a, b = be.parameter(A_VALUES), be.parameter(B_VALUES)
    result = quiet_solve(BatchProblem(cubic, a=a, b=b), be.zeros(5))
    da, db = grads(be.sum(result.t), a, b)
    with be.no_grad():  # the graph-free root t̄ at which the correction is evaluated
        t = be.to_numpy(quiet_solve(BatchProblem(cubic, a=a, b=b), be.zeros(5)).t)
    F_t = 3 * t**2 + A_VALUES
    np.testing.assert_allclose(da, -t / F_t, rtol=1e-14)  # -F_a / F_t with F_a = t
    np.testing.assert_allclose(db, 1 / F_t, rtol=1e-14)  # -F_b / F_t with F_b = -1


@pytest.mark.parametrize("step", [1e-4, 1e-6])
def test_gradient_matches_central_differences(torch_backend, step):
    a = be.parameter(A_VALUES)
    result = quiet_solve(BatchProblem(cubic, a=a, b=be.asarray(B_VALUES)), be.zeros(5))
    (da,) = grads(be.sum(result.t), a)
    with be.using("numpy"):
        plus, minus = (
            quiet_solve(BatchProblem(cubic, a=A_VALUES + s, b=B_VALUES), np.zeros(5)).t
            for s in (step, -step)
        )
    np.testing.assert_allclose(da, (plus - minus) / (2 * step), rtol=1e-6)


def test_rejected_rows_get_exactly_zero_gradient(torch_backend):
    problem = mixed_problem(parameter=be.parameter)
    result, _ = solve_mixed(problem)
    a, b = problem.params["a"], problem.params["b"]
    da, db = grads(be.sum(be.where(result.valid, result.t, 0.0)), a, b)
    rejected = ~be.to_numpy(result.regular)
    assert np.isfinite(da).all() and np.isfinite(db).all()
    assert (da[rejected] == 0).all() and (db[rejected] == 0).all()
    with be.no_grad():
        t = be.to_numpy(solve_mixed(problem)[0].t)[[0, 5]]
    F_t = 3 * t**2 + np.array([1.0, 2.0])
    np.testing.assert_allclose(da[[0, 5]], -t / F_t, rtol=1e-14)
    np.testing.assert_allclose(db[[0, 5]], 1 / F_t, rtol=1e-14)


def test_with_grad_every_rejected_category_is_invalid(torch_backend):
    result, _ = solve_mixed(mixed_problem(parameter=be.parameter))
    assert be.to_numpy(result.valid).tolist() == be.to_numpy(result.regular).tolist()
    assert be.requires_grad(result.t)


def test_correction_evaluates_only_the_regular_subset(torch_backend):
    problem = mixed_problem(parameter=be.parameter)
    result, _ = solve_mixed(problem, compact=False)
    assert be.to_numpy(problem.subsets[-1]).tolist() == be.to_numpy(result.regular).tolist()


def test_without_grad_torch_returns_a_detached_root(torch_backend):
    a = be.parameter(A_VALUES)
    with be.no_grad():
        result = quiet_solve(BatchProblem(cubic, a=a, b=be.asarray(B_VALUES)), be.zeros(5))
    assert not be.requires_grad(result.t)


@pytest.mark.parametrize("first, second", [(5, 50), (5, 500), (5, None)])
def test_graph_does_not_depend_on_iteration_count(torch_backend, first, second):
    import torch

    def measure(n_steps):
        saved = []

        def pack(x):
            saved.append(x.numel() * x.element_size())
            return x

        a, b = be.parameter(A_VALUES), be.parameter(B_VALUES)
        root = be.asarray(cubic_root(A_VALUES, B_VALUES))
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
            result = quiet_solve(
                BatchProblem(cubic, a=a, b=b), root + 0.1, force_iterations=n_steps
            )
        return autograd_graph_size(result.t), sum(saved), len(saved)

    assert measure(first) == measure(second)


def test_no_hard_coded_tiny_thresholds():
    source = "\n".join(
        p.read_text() for p in (Path(__file__).parents[1] / "optics" / "solvers").glob("*.py")
    )
    assert not re.findall(r"1e-1[1-9]|1e-[2-9]\d", source)
