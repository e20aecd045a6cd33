"""The Chebyshev freeform: slopes with the 1/norm factor, endpoint values, implicit derivatives."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _newton_cases import as_backend, checked_fd, fd_noise, ray_batch, singlet_with

from optics import backend as be
from optics.geometry.newton_types import Chebyshev
from optics.sampling import hexapolar
from optics.trace import trace_rays


def _single_term(i, j, value=1.0, norm_x=7.0, norm_y=13.0, radius=math.inf):
    coefficients = [[0.0] * (j + 1) for _ in range(i + 1)]
    coefficients[i][j] = value
    return Chebyshev(radius, 0.0, coefficients, norm_x=norm_x, norm_y=norm_y)


def test_slopes_carry_the_one_over_norm_chain_factor(backend):
    x = be.asarray([-3.0, 0.0, 2.5])
    y = be.asarray([1.0, -4.0, 6.0])
    _, sx, _ = _single_term(1, 0, 0.02).sag_and_gradient(x, y)  # s = 0.02 x / 7
    _, _, sy = _single_term(0, 1, 0.02).sag_and_gradient(x, y)  # s = 0.02 y / 13
    assert np.allclose(be.to_numpy(sx), 0.02 / 7.0, rtol=1e-15, atol=0)
    assert np.allclose(be.to_numpy(sy), 0.02 / 13.0, rtol=1e-15, atol=0)


def test_normal_agrees_with_finite_differences_of_the_sag(backend):
    geometry = Chebyshev(
        -20.0,
        -0.3,
        [[0.01, 0.002, 0.003], [0.001, -0.002, 0.0005], [0.004, 0.0, 0.001]],
        norm_x=7.0,
        norm_y=13.0,
    )
    x = be.asarray(np.linspace(-6.5, 6.5, 9))
    y = be.asarray(np.linspace(5.0, -6.0, 9))
    nx, ny, nz = geometry.normal(x, y, geometry.sag(x, y))
    h = 1e-5
    sx = (geometry.sag(x + h, y) - geometry.sag(x - h, y)) / (2 * h)
    sy = (geometry.sag(x, y + h) - geometry.sag(x, y - h)) / (2 * h)
    # n = (s_x, s_y, -1) / sqrt(1 + s_x^2 + s_y^2)
    assert np.allclose(be.to_numpy(nx / -nz), be.to_numpy(sx), rtol=0, atol=1e-9)
    assert np.allclose(be.to_numpy(ny / -nz), be.to_numpy(sy), rtol=0, atol=1e-9)
    assert np.allclose(be.to_numpy(nx * nx + ny * ny + nz * nz), 1.0, rtol=0, atol=4e-16)


@pytest.mark.parametrize("n", range(0, 9))
def test_endpoint_values_and_slopes_are_exact(n, backend):
    norm = 4.0
    geometry = _single_term(n, 0, norm_x=norm)
    x = be.asarray([-norm, norm])
    s, sx, _ = geometry.sag_and_gradient(x, be.zeros_like(x))
    assert be.to_numpy(s).tolist() == [(-1.0) ** n, 1.0]
    # T_n'(±1) = (±1)^(n-1) n², times the 1/norm chain factor
    expected = [(-1.0) ** (n - 1) * n * n / norm, n * n / norm]
    assert be.to_numpy(sx).tolist() == expected


def test_slopes_have_finite_autograd_at_the_edges_of_the_square(torch_backend):
    import torch

    geometry = _single_term(5, 4, norm_x=4.0, norm_y=3.0)
    x = torch.tensor([-4.0, 4.0, 4.0], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([3.0, -3.0, 0.0], dtype=torch.float64, requires_grad=True)
    s, sx, sy = geometry.sag_and_gradient(x, y)
    (s + sx + sy).sum().backward()
    assert torch.isfinite(x.grad).all() and torch.isfinite(y.grad).all()


def test_the_sum_is_taken_literally_at_the_vertex(backend):
    zero = be.zeros(1)
    # T_2(0) = -1: a lone T_2(x) term lowers the vertex; T_2(x) T_2(y) raises it.
    assert float(be.to_numpy(_single_term(2, 0, 0.01).sag(zero, zero))[0]) == -0.01
    assert float(be.to_numpy(_single_term(2, 2, 0.01).sag(zero, zero))[0]) == 0.01
    assert float(be.to_numpy(_single_term(1, 1, 0.01).sag(zero, zero))[0]) == 0.0


def _image_heights(coefficient, tol=0.0):
    """Image-plane y of a few rays through a singlet whose front surface is Chebyshev."""
    geometry = Chebyshev(
        30.0,
        0.0,
        [[0.0, 0.0, 0.002], [0.0, 0.001, 0.0], [0.003, 0.0, 0.0]],
        norm_x=8.0,
        norm_y=8.0,
        tol=tol,
    )
    geometry.coefficients[1][1] = coefficient
    px, py = hexapolar(2)
    rays = trace_rays(singlet_with(geometry), (0.3, 1.0), (px, py))
    return rays.y


def test_image_heights_differentiate_through_the_solve_like_finite_differences(torch_backend):
    import torch

    value = 0.001
    leaf = be.parameter(value)
    heights = _image_heights(leaf)
    autograd = np.array(
        [float(torch.autograd.grad(h, leaf, retain_graph=True)[0]) for h in heights]
    )

    def numpy_heights(v):
        with be.using("numpy"):
            return be.to_numpy(_image_heights(v))

    fd = checked_fd(numpy_heights, value)
    error = np.max(np.abs(autograd - fd))
    assert error <= 1e-7 * np.max(np.abs(fd)) + fd_noise(numpy_heights(value), value)
    assert np.max(np.abs(fd)) > 1.0  # the coefficient matters


def test_norm_is_differentiable_through_the_intersection(torch_backend):
    import torch

    rays = as_backend(ray_batch())
    norm = be.parameter(12.0)
    geometry = Chebyshev(-20.0, 0.0, [[0.01, 0.002], [0.003, 0.004]], norm_x=norm, norm_y=10.0)
    t, hit = geometry.intersect(*rays)
    assert bool(be.all(hit))
    (autograd,) = torch.autograd.grad(t.sum(), norm)

    def numpy_total(v):
        with be.using("numpy"):
            chebyshev = Chebyshev(
                -20.0, 0.0, [[0.01, 0.002], [0.003, 0.004]], norm_x=v, norm_y=10.0, tol=0.0
            )
            return np.sum(be.to_numpy(chebyshev.intersect(*as_backend(ray_batch()))[0]))

    fd = checked_fd(numpy_total, 12.0)
    assert abs(float(autograd) - float(fd)) <= 1e-7 * abs(float(fd)) + fd_noise(
        numpy_total(12.0), 12.0
    )


def test_rays_beyond_the_square_are_counted_as_invalid_in_a_trace(backend):
    geometry = Chebyshev(30.0, 0.0, [[0.0, 0.001], [0.001, 0.0]], norm_x=3.0, norm_y=3.0)
    px, py = hexapolar(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rays = trace_rays(singlet_with(geometry), (0.0, 0.0), (px, py))
    outside = np.abs(be.to_numpy(px) * 5.0) > 3.0
    outside |= np.abs(be.to_numpy(py) * 5.0) > 3.0
    assert rays.n_invalid == int(outside.sum())
    assert sum("outside_domain" in str(w.message) for w in caught) == 1
