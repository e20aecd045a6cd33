"""Zernike polynomials: index maps, closed forms, orthonormality, gradients, the centre."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _polynomial_checks import (
    assert_derivative_matches,
    assert_on_backend_of,
    assert_smooth_at_origin,
    disk_grid_legendre,
    numpy_and_torch,
    to_backend,
)
from conftest import assert_close

from optics import backend as be
from optics.polynomials import FRINGE_MAX_INDEX, fringe_to_nm, noll_to_nm, zernike_nm, zernike_sum

NOLL_TABLE = [  # Noll (1976), Table 1: j -> (n, m), m < 0 for the sin terms
    (0, 0),
    (1, 1),
    (1, -1),
    (2, 0),
    (2, -2),
    (2, 2),
    (3, -1),
    (3, 1),
    (3, -3),
    (3, 3),
    (4, 0),
    (4, 2),
    (4, -2),
    (4, 4),
    (4, -4),
    (5, 1),
    (5, -1),
    (5, 3),
    (5, -3),
    (5, 5),
    (5, -5),
    (6, 0),
]
FRINGE_TABLE = [  # the standard 37-term Fringe (University of Arizona) set
    (0, 0),
    (1, 1),
    (1, -1),
    (2, 0),
    (2, 2),
    (2, -2),
    (3, 1),
    (3, -1),
    (4, 0),
    (3, 3),
    (3, -3),
    (4, 2),
    (4, -2),
    (5, 1),
    (5, -1),
    (6, 0),
    (4, 4),
    (4, -4),
    (5, 3),
    (5, -3),
    (6, 2),
    (6, -2),
    (7, 1),
    (7, -1),
    (8, 0),
    (5, 5),
    (5, -5),
    (6, 4),
    (6, -4),
    (7, 3),
    (7, -3),
    (8, 2),
    (8, -2),
    (9, 1),
    (9, -1),
    (10, 0),
    (12, 0),
]


def _radial_factorial_form(n, m, rho):
    """R_n^m(rho) by the explicit factorial sum (reference only: unstable for large n)."""
    m = abs(m)
    total = np.zeros_like(rho)
    for ell in range((n - m) // 2 + 1):
        coefficient = (-1) ** ell * math.factorial(n - ell)
        coefficient /= (
            math.factorial(ell)
            * math.factorial((n + m) // 2 - ell)
            * math.factorial((n - m) // 2 - ell)
        )
        total += coefficient * rho ** (n - 2 * ell)
    return total


def _reference_term(n, m, rho, theta, normalize):
    angular = np.cos(m * theta) if m >= 0 else np.sin(-m * theta)
    norm = math.sqrt((n + 1) * (1 if m == 0 else 2)) if normalize else 1.0
    return norm * _radial_factorial_form(n, m, rho) * angular


def _unit(j, size=None):
    c = [0.0] * (size or j)
    c[j - 1] = 1.0
    return c


@pytest.fixture
def polar_points():
    rng = np.random.default_rng(10)
    rho = np.sqrt(rng.uniform(0, 1, 60))
    theta = rng.uniform(0, 2 * np.pi, 60)
    return rho, theta, rho * np.cos(theta), rho * np.sin(theta)


def test_noll_indices_follow_noll_1976():
    assert [noll_to_nm(j) for j in range(1, len(NOLL_TABLE) + 1)] == NOLL_TABLE


def test_noll_even_index_is_cos_and_odd_index_is_sin():
    for j in range(2, 200):
        n, m = noll_to_nm(j)
        if m != 0:
            assert (m > 0) == (j % 2 == 0)


def test_fringe_indices_follow_the_standard_37_term_set():
    assert [fringe_to_nm(j) for j in range(1, FRINGE_MAX_INDEX + 1)] == FRINGE_TABLE


@pytest.mark.parametrize("bad", [0, -3, 2.0, True])
def test_indices_must_be_positive_integers(bad):
    with pytest.raises(ValueError, match="index"):
        noll_to_nm(bad)
    with pytest.raises(ValueError, match="index"):
        fringe_to_nm(bad)


def test_fringe_indices_beyond_37_are_rejected():
    with pytest.raises(ValueError, match="37"):
        fringe_to_nm(38)


def test_noll_terms_match_closed_forms(backend, polar_points):
    rho, theta, x, y = polar_points
    explicit = {  # Noll (1976) Table 1 in polar form
        4: math.sqrt(3) * (2 * rho**2 - 1),
        6: math.sqrt(6) * rho**2 * np.cos(2 * theta),
        7: math.sqrt(8) * (3 * rho**3 - 2 * rho) * np.sin(theta),
        11: math.sqrt(5) * (6 * rho**4 - 6 * rho**2 + 1),
        22: math.sqrt(7) * (20 * rho**6 - 30 * rho**4 + 12 * rho**2 - 1),
    }
    for j in range(1, 67):
        z, dz_dx, dz_dy = zernike_sum(_unit(j), *to_backend(x, y))
        assert_on_backend_of(to_backend(x), z, dz_dx, dz_dy)
        n, m = noll_to_nm(j)
        assert_close(z, _reference_term(n, m, rho, theta, True), rtol=0, atol=1e-11)
        if j in explicit:
            assert_close(z, explicit[j], rtol=0, atol=1e-12)


def test_fringe_terms_match_closed_forms(backend, polar_points):
    rho, theta, x, y = polar_points
    explicit = {
        4: 2 * rho**2 - 1,
        5: rho**2 * np.cos(2 * theta),
        9: 6 * rho**4 - 6 * rho**2 + 1,
        11: rho**3 * np.sin(3 * theta),
        37: 924 * rho**12
        - 2772 * rho**10
        + 3150 * rho**8
        - 1680 * rho**6
        + 420 * rho**4
        - 42 * rho**2
        + 1,
    }
    for j in range(1, FRINGE_MAX_INDEX + 1):
        z, _, _ = zernike_sum(_unit(j), *to_backend(x, y), ordering="fringe")
        n, m = fringe_to_nm(j)
        assert_close(z, _reference_term(n, m, rho, theta, False), rtol=0, atol=1e-11)
        if j in explicit:
            assert_close(z, explicit[j], rtol=0, atol=1e-11)


def test_noll_terms_are_orthonormal_on_the_unit_disk(backend):
    count = 45  # through n = 8
    x, y, weight = disk_grid_legendre(radial_count=12, angular_count=24)
    xb, yb = to_backend(x, y)
    basis = np.stack(
        [be.to_numpy(zernike_sum(_unit(j), xb, yb)[0]).ravel() for j in range(1, count + 1)]
    )
    gram = (basis * weight.ravel()) @ basis.T
    np.testing.assert_allclose(gram, np.eye(count), atol=1e-12)


def test_gradient_matches_central_differences(backend, polar_points):
    _, _, x, y = polar_points
    rng = np.random.default_rng(11)
    c = to_backend(rng.normal(size=36))
    for ordering in ("noll", "fringe"):
        _, dz_dx, dz_dy = zernike_sum(c, *to_backend(x, y), ordering=ordering)

        def along_x(p, ordering=ordering):
            return be.to_numpy(zernike_sum(c, *to_backend(p, y), ordering=ordering)[0])

        def along_y(p, ordering=ordering):
            return be.to_numpy(zernike_sum(c, *to_backend(x, p), ordering=ordering)[0])

        assert_derivative_matches(along_x, x, dz_dx)
        assert_derivative_matches(along_y, y, dz_dy)


def test_noll_and_fringe_series_describe_the_same_surface(backend, polar_points):
    _, _, x, y = polar_points
    fringe = np.random.default_rng(12).normal(size=FRINGE_MAX_INDEX)
    noll_index = {noll_to_nm(j): j for j in range(1, 92)}
    noll = np.zeros(91)
    for j, value in enumerate(fringe, start=1):
        n, m = fringe_to_nm(j)
        noll[noll_index[(n, m)] - 1] = value / math.sqrt((n + 1) * (1 if m == 0 else 2))
    for a, b in zip(
        zernike_sum(fringe.tolist(), *to_backend(x, y), ordering="fringe"),
        zernike_sum(noll.tolist(), *to_backend(x, y)),
    ):
        assert_close(a, b, rtol=0, atol=1e-10)


def test_value_gradient_and_second_derivatives_are_finite_at_the_centre(torch_backend):
    c = np.random.default_rng(13).normal(size=28).tolist()
    assert_smooth_at_origin(lambda x, y: zernike_sum(c, x, y))


def test_coefficient_gradient_matches_finite_differences(torch_backend):
    import torch

    rng = np.random.default_rng(14)
    values = rng.normal(size=15)
    leaves = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    x, y, weights = to_backend(
        rng.uniform(-0.7, 0.7, 30), rng.uniform(-0.7, 0.7, 30), rng.normal(size=30)
    )

    def loss(c):
        z, dz_dx, dz_dy = zernike_sum(c, x, y)
        return be.sum(weights * (z + 0.3 * dz_dx - 0.2 * dz_dy))

    loss(leaves).backward()
    h = 1e-6
    for k in range(values.size):
        plus, minus = values.copy(), values.copy()
        plus[k] += h
        minus[k] -= h
        fd = (be.item(loss(to_backend(plus))) - be.item(loss(to_backend(minus)))) / (2 * h)
        assert abs(leaves[k].grad.item() - fd) <= 1e-7 * max(1.0, abs(fd))


def test_single_term_matches_series_and_validates_nm(backend, polar_points):
    _, _, x, y = polar_points
    for a, b in zip(
        zernike_nm(4, -2, *to_backend(x, y)), zernike_sum(_unit(13), *to_backend(x, y))
    ):
        assert_close(a, b, rtol=0, atol=1e-13)
    with pytest.raises(ValueError, match="invalid"):
        zernike_nm(3, 2, *to_backend(x, y))


def test_unknown_ordering_is_rejected(backend):
    with pytest.raises(ValueError, match="ordering"):
        zernike_sum([1.0], *to_backend(np.zeros(2), np.zeros(2)), ordering="ansi")


def test_numpy_and_torch_agree():
    pytest.importorskip("torch")
    rng = np.random.default_rng(15)
    c, x, y = rng.normal(size=37).tolist(), rng.uniform(-0.7, 0.7, 25), rng.uniform(-0.7, 0.7, 25)

    def run():
        return (
            *zernike_sum(c, *to_backend(x, y)),
            *zernike_sum(c, *to_backend(x, y), ordering="fringe"),
        )

    on_numpy, on_torch = numpy_and_torch(run)
    for a, b in zip(on_numpy, on_torch):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
