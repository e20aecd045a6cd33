"""The overlap-add convolution equals per-pixel bilinear PSF interpolation, and conserves light."""

from __future__ import annotations

import numpy as np

from optics import backend as be
from optics.imaging.convolve import convolve_varying, tent_weights
from optics.imaging.psf_grid import grid_axis


def _case(seed=0, shape=(23, 29), grid=(3, 4), size=5):
    rng = np.random.default_rng(seed)
    stack = rng.random((2, *shape))
    kernels = rng.random((2, *grid, size, size))
    kernels /= kernels.sum(axis=(-2, -1), keepdims=True)
    rows, cols = grid_axis(grid[0], shape[0]), grid_axis(grid[1], shape[1])
    return stack, kernels, rows, cols


def _per_pixel(stack, kernels, rows, cols):
    """The direct sum: every source pixel spreads its own interpolated kernel."""
    samples, height, width = stack.shape
    size = kernels.shape[-1]
    r = size // 2
    wy = tent_weights(rows, np.arange(height))
    wx = tent_weights(cols, np.arange(width))
    out = np.zeros((samples, height + 2 * r, width + 2 * r))
    for i in range(height):
        for j in range(width):
            kernel = np.einsum("a,b,sabkl->skl", wy[:, i], wx[:, j], kernels)
            out[:, i : i + size, j : j + size] += stack[:, i, j, None, None] * kernel
    return out[:, r : r + height, r : r + width]


def test_overlap_add_equals_the_per_pixel_interpolated_psf_sum(backend):
    stack, kernels, rows, cols = _case(shape=(17, 19), grid=(2, 3))  # few shapes: JAX compiles each
    got = convolve_varying(be.asarray(stack), be.asarray(kernels), rows, cols)
    np.testing.assert_allclose(be.to_numpy(got), _per_pixel(stack, kernels, rows, cols), atol=1e-12)


def test_overlap_add_equals_the_per_pixel_sum_on_a_finer_grid():
    stack, kernels, rows, cols = _case(grid=(3, 4), size=7)
    got = convolve_varying(stack, kernels, rows, cols)
    np.testing.assert_allclose(be.to_numpy(got), _per_pixel(stack, kernels, rows, cols), atol=1e-12)


def test_a_region_with_its_origin_is_the_crop_of_the_whole():
    stack, kernels, rows, cols = _case(seed=1)
    whole = be.to_numpy(convolve_varying(stack, kernels, rows, cols))
    r = kernels.shape[-1] // 2
    a0, a1, b0, b1 = 4, 19, 7, 25  # a region and its inner part, r pixels in
    part = convolve_varying(stack[:, a0:a1, b0:b1], kernels, rows, cols, origin=(a0, b0))
    np.testing.assert_allclose(
        be.to_numpy(part)[:, r:-r, r:-r], whole[:, a0 + r : a1 - r, b0 + r : b1 - r], atol=1e-12
    )


def test_light_of_sources_away_from_the_border_is_conserved():
    stack, kernels, rows, cols = _case(seed=2, size=7)
    stack[:, :3], stack[:, -3:], stack[:, :, :3], stack[:, :, -3:] = 0.0, 0.0, 0.0, 0.0
    out = be.to_numpy(convolve_varying(stack, kernels, rows, cols))
    np.testing.assert_allclose(out.sum(axis=(1, 2)), stack.sum(axis=(1, 2)), rtol=1e-12)


def test_one_grid_point_is_a_plain_convolution():
    stack, kernels, rows, cols = _case(seed=3, grid=(1, 1))
    got = be.to_numpy(convolve_varying(stack, kernels, rows, cols))
    want = _per_pixel(stack, kernels, rows, cols)
    np.testing.assert_allclose(got, want, atol=1e-12)
