"""2x2 field-solve numerics: scale-invariant singularity test, normalized solve, damped Newton."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from optics import backend as be
from optics.errors import SolveError
from optics.solvers import (
    condition_ratio,
    implicit_correction_2x2,
    is_singular,
    newton_2x2,
    normalized_solve,
    normalized_solve_masked,
    singular_threshold,
)


def matrices(values):
    """Configured-precision array from nested Python/NumPy values."""
    return be.asarray(np.asarray(values, dtype=float).tolist())


def reference_ratio(J):
    """rho_F = s1 s2 / (s1**2 + s2**2) from NumPy's singular values, in float64."""
    s = np.linalg.svd(np.asarray(J, dtype=np.float64), compute_uv=False)
    return 0.0 if s[0] == 0 else s[0] * s[1] / (s[0] ** 2 + s[1] ** 2)


# --- scale-invariant singularity test ------------------------------------------------------


@pytest.mark.parametrize("scale", [1e-3, 1e6])
def test_scaled_identity_is_accepted(precision, scale):
    J = matrices(scale * np.eye(2))
    assert be.item(condition_ratio(J)) == 0.5
    assert not be.item(is_singular(J))


# Entries are 0 or sign * m * 10**e with m in [1, 10): normal floats whose 1e+-6 rescalings stay
# normal in the dtype under test.
MAX_EXPONENT = {"float64": 100, "float32": 15}


def entry(max_exponent):
    magnitude = st.builds(
        lambda m, e: m * 10.0**e, st.floats(1.0, 9.99), st.integers(-max_exponent, max_exponent)
    )
    return st.one_of(st.just(0.0), magnitude, magnitude.map(lambda x: -x))


def rotated(alpha, sigma, beta, exponent):
    """R(alpha) diag(1, sigma) R(beta) * 10**exponent: a matrix of chosen conditioning."""

    def rot(a):
        return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    return rot(alpha) @ np.diag([1.0, sigma]) @ rot(beta) * 10.0**exponent


def assert_rescaling_keeps_classification(J):
    rho = reference_ratio(be.to_numpy(J))
    threshold = singular_threshold(J)
    # fl(1e6 * J) is a different matrix whose rho_F moves by a few eps: only a matrix within
    # round-off of the threshold itself may legitimately change class.
    assume(not threshold / 4 <= rho <= 4 * threshold)
    expected = be.item(is_singular(J))
    for factor in (1e6, 1e-6):
        assert be.item(is_singular(J * factor)) == expected


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_rescaling_never_flips_the_classification(precision, data):
    values = data.draw(st.lists(entry(MAX_EXPONENT[precision]), min_size=4, max_size=4))
    assert_rescaling_keeps_classification(matrices(np.reshape(values, (2, 2))))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_rescaling_never_flips_the_classification_near_singular(precision, data):
    alpha, beta = data.draw(st.floats(0, 6.3)), data.draw(st.floats(0, 6.3))
    sigma = data.draw(st.sampled_from([-1.0, 1.0])) * 10.0 ** data.draw(st.floats(-20.0, 0.0))
    exponent = data.draw(st.integers(-MAX_EXPONENT[precision] + 2, MAX_EXPONENT[precision] - 2))
    assert_rescaling_keeps_classification(matrices(rotated(alpha, sigma, beta, exponent)))


def test_rank_one_and_near_singular_matrices_are_flagged(precision):
    eps = be.machine_eps(be.zeros(1))
    threshold = singular_threshold(be.zeros(1))
    rng = np.random.default_rng(1)
    flagged = [
        [[3.0, -1.0], [6.0, -2.0]],  # exactly rank 1
        np.outer(rng.normal(size=2), rng.normal(size=2)),  # rank 1 up to round-off
        1e150 * np.outer([1.0, 2.0], [3.0, -1.0])
        if eps < 1e-10
        else 1e15 * np.outer([1, 2], [3, -1]),
        [[1.0, 1.0], [1.0, 1.0 + 10 * eps]],
        np.diag([1.0, 0.1 * threshold]),
        np.zeros((2, 2)),
        [[1.0, np.nan], [0.0, 1.0]],
        [[np.inf, 0.0], [0.0, 1.0]],
    ]
    assert be.to_numpy(
        is_singular(matrices(np.stack([np.asarray(m, float) for m in flagged])))
    ).all()
    assert not be.item(is_singular(matrices(np.diag([1.0, 10 * threshold]))))


def test_condition_ratio_is_about_the_inverse_condition_number(precision):
    J = matrices(rotated(0.3, 1e-3, 1.1, 2))
    np.testing.assert_allclose(be.to_numpy(condition_ratio(J)), 1e-3 / (1 + 1e-6), rtol=1e-3)


# --- normalized solve ---------------------------------------------------------------------


@pytest.mark.parametrize("exponent", [150, -150, 200, -200, 300, -300])
def test_normalized_solve_is_finite_and_accurate_at_extreme_scales(backend, exponent):
    scale = 10.0**exponent
    J = be.asarray(np.array([[2.0, 1.0], [-1.0, 3.0]]) * scale)
    x = np.array([0.3, -0.7])
    R = be.asarray(np.array([2 * 0.3 - 0.7, -0.3 - 2.1]) * scale)  # J @ x, formed without overflow
    delta = be.to_numpy(normalized_solve(J, R))
    np.testing.assert_allclose(delta, x, rtol=1e-14)
    if abs(exponent) >= 200:  # here a raw determinant (7 * scale**2) overflows or underflows
        with np.errstate(over="ignore", under="ignore"):
            assert not 0 < abs(np.linalg.det(be.to_numpy(J))) < np.inf


@pytest.mark.parametrize("exponent", [15, -15, 25, -25])
def test_normalized_solve_float32_extreme_scales(backend, exponent):
    with be.using(backend, precision="float32"):
        J = matrices(np.array([[2.0, 1.0], [-1.0, 3.0]]) * 10.0**exponent)
        R = matrices(np.array([-0.1, -2.4]) * 10.0**exponent)
        delta = be.to_numpy(normalized_solve(J, R))
    assert delta.dtype == np.float32
    np.testing.assert_allclose(delta, [0.3, -0.7], rtol=1e-5)


def test_normalized_solve_raises_on_a_singular_matrix(backend):
    J = matrices([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])
    with pytest.raises(SolveError, match="1 of 2 Jacobians are singular"):
        normalized_solve(J, matrices([[1.0, 1.0], [1.0, 1.0]]), name="field solve")


def test_masked_solve_gives_a_zero_step_for_singular_matrices(backend):
    J = matrices([[[2.0, 0.0], [0.0, 4.0]], [[1.0, 2.0], [2.0, 4.0]]])
    delta, singular = normalized_solve_masked(J, matrices([[1.0, 1.0], [1.0, 1.0]]))
    assert be.to_numpy(singular).tolist() == [False, True]
    np.testing.assert_array_equal(be.to_numpy(delta), [[0.5, 0.25], [0.0, 0.0]])


def test_normalized_solve_gradient_matches_a_dense_solve(torch_backend):
    import torch

    J = torch.tensor([[1.5, -0.4], [0.7, 2.0]], dtype=torch.float64, requires_grad=True)
    R = torch.tensor([0.3, -1.1], dtype=torch.float64, requires_grad=True)
    ours = torch.autograd.grad(normalized_solve(J, R).sum(), (J, R))
    dense = torch.autograd.grad(torch.linalg.solve(J, R).sum(), (J, R))
    for a, b in zip(ours, dense):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-13)


# --- damped Newton on a coupled, axis-reversing map ---------------------------------------

# h(q) = M g(q), g(q) = (1 + k |q|^2) q: a radial cubic "distortion" g followed by a coupled
# linear map M with det M < 0 (one axis reversed, like an inverting lens).  Invertible
# everywhere; the field solve finds q with h(q) = target.
M = [[-1.2, 0.3], [0.2, 0.9]]  # Python floats: they take the dtype of the arrays they meet
TARGETS = np.array([[0.5, 0.2], [-2.0, 1.5], [3.0, -3.0], [0.0, 0.0], [-0.01, 4.0]])


def image(q, k):
    radial = 1 + k * (q[..., 0] ** 2 + q[..., 1] ** 2)
    g0, g1 = radial * q[..., 0], radial * q[..., 1]
    return be.stack([M[0][0] * g0 + M[0][1] * g1, M[1][0] * g0 + M[1][1] * g1], axis=-1)


def jacobian(q, k):
    x, y = q[..., 0], q[..., 1]
    radial = 1 + k * (x * x + y * y)
    g = [[radial + 2 * k * x * x, 2 * k * x * y], [2 * k * x * y, radial + 2 * k * y * y]]
    rows = [
        be.stack([M[i][0] * g[0][j] + M[i][1] * g[1][j] for j in range(2)], axis=-1)
        for i in range(2)
    ]
    return be.stack(rows, axis=-2)


def solve_field(targets, k, q0, **kwargs):
    return newton_2x2(lambda q: image(q, k) - targets, lambda q: jacobian(q, k), q0, **kwargs)


@pytest.mark.parametrize("start", [0.0, 10.0])
def test_newton_2x2_solves_a_coupled_axis_reversing_map(precision, start):
    targets = matrices(TARGETS)
    result = solve_field(targets, 0.1, matrices(np.full_like(TARGETS, start)))
    assert be.to_numpy(result.converged).all()
    assert not be.to_numpy(result.singular | result.stalled).any()
    eps = be.machine_eps(result.q)
    np.testing.assert_allclose(be.to_numpy(image(result.q, 0.1)), TARGETS, atol=64 * eps * 10)
    assert result.n_iter <= 30
    assert result.q.dtype == targets.dtype


def test_newton_2x2_stops_on_a_singular_jacobian(backend):
    result = newton_2x2(
        lambda q: be.stack([q[..., 0] ** 2 - 1, q[..., 1]], axis=-1),
        lambda q: be.stack(
            [
                be.stack([2 * q[..., 0], 0 * q[..., 0]], -1),
                be.stack([0 * q[..., 0], 1 + 0 * q[..., 0]], -1),
            ],
            -2,
        ),
        matrices([[0.0, 0.5], [2.0, 0.5]]),
    )
    assert be.to_numpy(result.singular).tolist() == [True, False]
    assert be.to_numpy(result.converged).tolist() == [False, True]
    np.testing.assert_array_equal(be.to_numpy(result.q)[0], [0.0, 0.5])


def test_implicit_correction_is_a_no_op_without_grad(backend):
    q_bar = matrices([[0.1, 0.2]])
    with be.no_grad():
        assert (
            implicit_correction_2x2(lambda q: q, q_bar, matrices([[[1.0, 0.0], [0.0, 1.0]]]))
            is q_bar
        )


def test_implicit_correction_raises_on_a_singular_jacobian(torch_backend):
    with pytest.raises(SolveError):
        implicit_correction_2x2(
            lambda q: q, matrices([[0.1, 0.2]]), matrices([[[1.0, 1.0], [1.0, 1.0]]])
        )


def corrected_field(targets, k):
    targets_bar = be.detach(targets)
    q_bar = solve_field(targets_bar, be.detach(k), be.zeros_like(targets_bar), tol=1e-13).q
    return implicit_correction_2x2(
        lambda q: image(q, k) - targets, q_bar, jacobian(q_bar, be.detach(k))
    )


def test_implicit_correction_derivative_is_the_inverse_jacobian(torch_backend):
    import torch

    targets = be.parameter(TARGETS)
    q = corrected_field(targets, 0.1)
    q_bar = be.to_numpy(q)
    J = be.to_numpy(jacobian(be.asarray(q_bar), 0.1))
    (dq0_dtarget,) = torch.autograd.grad(q[..., 0].sum(), targets)
    np.testing.assert_allclose(dq0_dtarget.numpy(), np.linalg.inv(J)[:, 0, :], rtol=1e-10)


@pytest.mark.parametrize("step", [1e-4, 1e-6])
def test_implicit_correction_derivative_matches_central_differences(torch_backend, step):
    import torch

    k = be.parameter(0.1)
    q = corrected_field(be.asarray(TARGETS), k)
    (dq_dk,) = torch.autograd.grad((q * be.asarray([1.0, 2.0])).sum(), k)
    with be.using("numpy"):
        plus, minus = (
            solve_field(TARGETS, 0.1 + s, np.zeros_like(TARGETS), tol=1e-13).q
            for s in (step, -step)
        )
    finite_difference = ((plus - minus) / (2 * step)) @ np.array([1.0, 2.0])
    np.testing.assert_allclose(dq_dk.item(), finite_difference.sum(), rtol=1e-6)
