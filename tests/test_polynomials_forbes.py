"""Forbes Q polynomials: published forms, orthonormality with the papers' weights, gradients."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _polynomial_checks import (
    assert_derivative_matches,
    assert_on_backend_of,
    assert_smooth_at_origin,
    gauss_chebyshev_nodes,
    numpy_and_torch,
    to_backend,
)
from conftest import assert_close

from optics import backend as be
from optics.polynomials import (
    Q2DPrepared,
    prepare_q2d,
    prepare_qbfs,
    q2d_polynomials,
    q2d_sum,
    qbfs_polynomials,
    qbfs_sum,
)

X = np.linspace(0.0, 1.0, 21)


def test_qbfs_low_orders_match_forbes_2007(backend):
    values, _ = qbfs_polynomials(to_backend(X), 3)
    assert tuple(values.shape) == (4, X.size)
    published = [
        np.ones_like(X),
        (13 - 16 * X) / math.sqrt(19),
        math.sqrt(2 / 95) * (29 - 4 * X * (25 - 19 * X)),
        math.sqrt(2 / 2545) * (207 - 4 * X * (315 - X * (577 - 320 * X))),
    ]
    assert_close(values, np.stack(published), rtol=0, atol=1e-13)


def test_qbfs_slopes_are_orthonormal_with_the_2007_weight():
    # (2/pi) int_0^1 f_m'(u) f_k'(u) (1 - u^2)^(-1/2) du = delta_mk, f_m = u^2 (1 - u^2) Q_m(u^2);
    # the integrand is even in u, so Gauss-Chebyshev on [-1, 1] is exact and halves to [0, 1].
    m_max = 30
    u, weight = gauss_chebyshev_nodes(200)
    x = u * u
    q, dq = qbfs_polynomials(x, m_max)
    slope = 2 * u * ((1 - 2 * x) * q + x * (1 - x) * dq)  # d/du [x (1 - x) Q(x)]
    gram = (2 / np.pi) * 0.5 * weight * (slope @ slope.T)
    np.testing.assert_allclose(gram, np.eye(m_max + 1), atol=1e-13)


def test_qbfs_derivatives_match_central_differences(backend):
    x = np.linspace(0.02, 0.98, 17)
    _, slopes = qbfs_polynomials(to_backend(x), 8)
    for m in range(9):
        assert_derivative_matches(
            lambda p, m=m: be.to_numpy(qbfs_polynomials(to_backend(p), 8)[0][m]), x, slopes[m]
        )


def test_qbfs_sum_equals_the_basis_expansion(backend):
    a = np.random.default_rng(20).normal(size=9)
    values, slopes = qbfs_polynomials(to_backend(X), 8)
    s, ds = qbfs_sum(a.tolist(), to_backend(X))
    assert_on_backend_of(values, s, ds)
    assert_close(s, be.to_numpy(values).T @ a, rtol=0, atol=1e-12)
    assert_close(ds, be.to_numpy(slopes).T @ a, rtol=0, atol=1e-11)
    prepared = prepare_qbfs(a)
    for got, want in zip(qbfs_sum(prepared, to_backend(X)), (s, ds)):
        assert_close(got, want, rtol=0, atol=0)


def test_q2d_low_orders_match_the_explicit_forms(backend):
    # Gram-Schmidt on the [2012] gradient inner product, sign fixed by Q(0) > 0.
    expected = {
        (1, 0): np.ones_like(X),
        (1, 1): math.sqrt(8 / 7) * (1 - X),
        (1, 2): math.sqrt(1610) / 805 * (56 * X**2 - 88 * X + 25),
        (2, 0): np.full_like(X, 1 / math.sqrt(2)),
        (2, 1): (9 - 8 * X) / math.sqrt(38),
        (3, 0): np.full_like(X, 2 * math.sqrt(6) / 9),
        (3, 1): 8 * math.sqrt(1110) / 1665 * (10 - 9 * X),
    }
    for (m, n), form in expected.items():
        values, _ = q2d_polynomials(to_backend(X), m, 3)
        assert_close(values[n], form, rtol=0, atol=1e-13)


def _radial_gram(m, n_max, count=200):
    """(1/pi) int_0^1 [S_u S'_u + m^2 S S' / u^2] (1 - u^2)^(-1/2) du for S = u^m Q^m_n(u^2)."""
    u, weight = gauss_chebyshev_nodes(count)
    q, dq = q2d_polynomials(u * u, m, n_max)
    s_over_u = u ** (m - 1) * q
    s_u = m * u ** (m - 1) * q + 2 * u ** (m + 1) * dq
    return 0.5 * weight / np.pi * (s_u @ s_u.T + m * m * (s_over_u @ s_over_u.T))


@pytest.mark.parametrize("m", [1, 2, 3, 4, 7])
def test_q2d_radial_polynomials_are_orthonormal_with_the_2012_weight(m):
    n_max = 25  # m = 1 uses its explicit P_0..P_3 and the recurrence beyond
    np.testing.assert_allclose(_radial_gram(m, n_max), np.eye(n_max + 1), atol=1e-13)


def test_q2d_zero_order_family_is_qbfs(backend):
    for a, b in zip(q2d_polynomials(to_backend(X), 0, 6), qbfs_polynomials(to_backend(X), 6)):
        assert_close(a, b, rtol=0, atol=0)


def test_q2d_derivatives_match_central_differences(backend):
    x = np.linspace(0.02, 0.98, 15)
    for m in (1, 2, 5):
        _, slopes = q2d_polynomials(to_backend(x), m, 7)
        for n in range(8):

            def q_n(p, m=m, n=n):
                return be.to_numpy(q2d_polynomials(to_backend(p), m, 7)[0][n])

            assert_derivative_matches(q_n, x, slopes[n])


def _random_q2d(seed, m_max=4, n_max=5):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m_max + 1, n_max + 1)), rng.normal(size=(m_max + 1, n_max + 1))


def _reference_departure(a, b, x, y):
    """The [2012] departure assembled in polar form from the basis (NumPy only)."""
    u2, theta = x * x + y * y, np.arctan2(y, x)
    u = np.sqrt(u2)
    total = u2 * (1 - u2) * (a[0] @ qbfs_polynomials(u2, a.shape[1] - 1)[0])
    for m in range(1, a.shape[0]):
        radial = q2d_polynomials(u2, m, a.shape[1] - 1)[0]
        total = total + u**m * (
            np.cos(m * theta) * (a[m] @ radial) + np.sin(m * theta) * (b[m] @ radial)
        )
    return total


def test_q2d_sum_equals_the_polar_basis_expansion(backend):
    a, b = _random_q2d(21)
    rng = np.random.default_rng(22)
    x, y = rng.uniform(-0.7, 0.7, 40), rng.uniform(-0.7, 0.7, 40)
    with be.using("numpy"):
        expected = _reference_departure(a, b, x, y)
    z, dz_dx, dz_dy = q2d_sum(a.tolist(), *to_backend(x, y), sin_coefficients=b.tolist())
    assert_on_backend_of(to_backend(x), z, dz_dx, dz_dy)
    assert_close(z, expected, rtol=0, atol=1e-12)


def test_q2d_sum_gradient_matches_central_differences(backend):
    a, b = _random_q2d(23)
    prepared = prepare_q2d(to_backend(a), to_backend(b))
    rng = np.random.default_rng(24)
    x, y = rng.uniform(-0.7, 0.7, 30), rng.uniform(-0.7, 0.7, 30)
    _, dz_dx, dz_dy = q2d_sum(prepared, *to_backend(x, y))
    assert_derivative_matches(
        lambda p: be.to_numpy(q2d_sum(prepared, *to_backend(p, y))[0]), x, dz_dx
    )
    assert_derivative_matches(
        lambda p: be.to_numpy(q2d_sum(prepared, *to_backend(x, p))[0]), y, dz_dy
    )


def test_q2d_terms_are_gradient_orthonormal_on_the_disk(backend):
    # <grad T . grad T'> = (1/pi^2) int_0^2pi int_0^1 grad T . grad T' (1 - u^2)^(-1/2) du dtheta;
    # Gauss-Chebyshev in u (nodes of both signs) and the uniform rule in theta are exact here.
    m_max, n_max = 3, 4
    u, _ = gauss_chebyshev_nodes(40)
    theta = 2 * np.pi * np.arange(16) / 16
    x, y = to_backend((u[:, None] * np.cos(theta)).ravel(), (u[:, None] * np.sin(theta)).ravel())
    gradients = []
    for m in range(m_max + 1):
        for kind in ("cos", "sin") if m else ("cos",):
            for n in range(n_max + 1):
                unit = np.zeros((m_max + 1, n_max + 1))
                unit[m, n] = 1.0
                rows = (unit, None) if kind == "cos" else (np.zeros_like(unit), unit)
                _, gx, gy = q2d_sum(rows[0], x, y, sin_coefficients=rows[1])
                gradients.append(np.concatenate([be.to_numpy(gx), be.to_numpy(gy)]))
    g = np.stack(gradients)
    gram = (g @ g.T) / (u.size * theta.size)
    np.testing.assert_allclose(gram, np.eye(len(gradients)), atol=1e-12)


def test_q2d_sum_accepts_ragged_rows_like_padded_arrays(backend):
    ragged_cos = [[0.1, -0.2, 0.3], [], [0.5], [0.0, 0.2, 0.0, -0.1]]
    ragged_sin = [[9.9], [0.4, 0.1], [], [0.3]]  # row 0 is ignored: there is no b^0_n
    padded_cos, padded_sin = np.zeros((4, 4)), np.zeros((4, 4))
    for rows, padded in ((ragged_cos, padded_cos), (ragged_sin[1:], padded_sin[1:])):
        for m, row in enumerate(rows):
            padded[m, : len(row)] = row
    x, y = to_backend(np.linspace(-0.6, 0.6, 9), np.linspace(0.5, -0.4, 9))
    for got, want in zip(
        q2d_sum(ragged_cos, x, y, ragged_sin),
        q2d_sum(to_backend(padded_cos), x, y, to_backend(padded_sin)),
    ):
        assert_close(got, want, rtol=0, atol=1e-14)


def test_q2d_sum_is_smooth_at_the_vertex(torch_backend):
    a, b = _random_q2d(25)
    assert_smooth_at_origin(lambda x, y: q2d_sum(a.tolist(), x, y, sin_coefficients=b.tolist()))


def test_coefficient_gradients_match_finite_differences(torch_backend):
    import torch

    a, b = _random_q2d(26, m_max=2, n_max=3)
    leaves = [[torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in row] for row in a]
    rng = np.random.default_rng(27)
    x, y, weights = to_backend(
        rng.uniform(-0.7, 0.7, 20), rng.uniform(-0.7, 0.7, 20), rng.normal(size=20)
    )

    def loss(cos_rows):
        z, dz_dx, dz_dy = q2d_sum(cos_rows, x, y, sin_coefficients=to_backend(b))
        s, ds = qbfs_sum(cos_rows[0], x * x)
        return be.sum(weights * (z + 0.3 * dz_dx - 0.2 * dz_dy + s - 0.1 * ds))

    loss(leaves).backward()
    h = 1e-6
    for m in range(a.shape[0]):
        for n in range(a.shape[1]):
            plus, minus = a.copy(), a.copy()
            plus[m, n] += h
            minus[m, n] -= h
            fd = (be.item(loss(to_backend(plus))) - be.item(loss(to_backend(minus)))) / (2 * h)
            assert abs(leaves[m][n].grad.item() - fd) <= 1e-7 * max(1.0, abs(fd))


def test_prepared_data_built_under_enable_grad_keeps_the_gradient(torch_backend):
    a = be.parameter([[0.2, -0.1], [0.3, 0.05]])
    x, y = to_backend(np.array([0.3, -0.2]), np.array([0.1, 0.4]))
    with be.no_grad():  # e.g. a graph-free Newton solve that first fills a surface's cache
        with be.enable_grad():
            prepared = prepare_q2d(a)
        detached = prepare_q2d(a)
    assert isinstance(prepared, Q2DPrepared)
    z, _, _ = q2d_sum(prepared, x, y)
    assert be.requires_grad(z)
    assert not be.requires_grad(q2d_sum(detached, x, y)[0])
    be.sum(z).backward()
    assert a.grad is not None and bool(be.all(be.isfinite(a.grad)))


def test_prepared_coefficients_cannot_take_extra_sin_coefficients(backend):
    prepared = prepare_q2d([[1.0]])
    with pytest.raises(ValueError, match="prepared"):
        q2d_sum(prepared, *to_backend(np.zeros(2), np.zeros(2)), sin_coefficients=[[0.0], [1.0]])


def test_numpy_and_torch_agree():
    pytest.importorskip("torch")
    a, b = _random_q2d(28)
    rng = np.random.default_rng(29)
    x, y = rng.uniform(-0.7, 0.7, 25), rng.uniform(-0.7, 0.7, 25)

    def run():
        xb, yb = to_backend(x, y)
        return (
            *q2d_sum(to_backend(a), xb, yb, sin_coefficients=to_backend(b)),
            *qbfs_sum(a[0].tolist(), xb * xb),
            *qbfs_polynomials(xb * xb, 10),
            *q2d_polynomials(xb * xb, 1, 10),
        )

    on_numpy, on_torch = numpy_and_torch(run)
    for left, right in zip(on_numpy, on_torch):
        np.testing.assert_allclose(right, left, rtol=1e-12, atol=1e-12)
