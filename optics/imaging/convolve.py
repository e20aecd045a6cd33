"""Spatially varying convolution: bilinear PSF interpolation by patch-wise FFT overlap-add.

The PSF of a source pixel p is the bilinear interpolation of the four grid
PSFs around it, K(p) = Σ_g w_g(p) K_g, with w_g the tent (hat) weights of
grid point g (Σ_g w_g = 1).  Because the blurred image is linear in the
kernels,

    out = Σ_p I(p) K(p)(· − p) = Σ_g K_g ∗ (w_g · I),

each term is an ordinary convolution of the patch where w_g is nonzero (two
grid cells each way) and is done by FFT; the patches' results are added where
they overlap (overlap-add; Nagy & O'Leary 1998).  This *is* per-pixel PSF
interpolation (source side), computed with about four image-sized FFTs
instead of one k × k kernel per pixel; every source pixel's light is
conserved exactly (its kernel sums to 1), which an output-side interpolation
would not do.  tests/test_imaging_convolve.py checks it against the direct
per-pixel sum.

The pieces are assembled without in-place writes (all backends, autograd
included): the output is cut at every piece's edge, so each cell of that cut
lies wholly inside or outside every piece; cells are sums of piece slices,
joined with ``be.concatenate``.
"""

from __future__ import annotations

import numpy as np

from .. import backend as be
from ..analysis._psf import fast_size
from ._arrays import real

__all__ = ["tent_weights", "convolve_varying"]


def tent_weights(grid, positions):
    """Tent weights (len(grid), len(positions)) of grid points at pixel positions (NumPy)."""
    grid = np.asarray(grid, dtype=float)
    positions = np.asarray(positions, dtype=float)
    if len(grid) == 1:
        return np.ones((1, len(positions)))
    spacing = grid[1] - grid[0]
    weights = np.clip(1.0 - np.abs(positions[None, :] - grid[:, None]) / spacing, 0.0, None)
    # beyond the end points the end weights stay 1 (sources outside the grid span)
    weights[0, positions <= grid[0]] = 1.0
    weights[-1, positions >= grid[-1]] = 1.0
    return weights


def _support(weights):
    """[start, stop) of the nonzero entries of each row, or None when empty."""
    out = []
    for row in weights:
        nz = np.nonzero(row > 0)[0]
        out.append(None if len(nz) == 0 else (int(nz[0]), int(nz[-1]) + 1))
    return out


def _padded_fft2(x, size):
    """2-D DFT of (…, h, w) zero-padded to ``size``, rows first (padding rows cost nothing)."""
    return be.fft.fft(be.fft.fft(x, axis=-1, n=size[1]), axis=-2, n=size[0])


def _patch(stack, kernel, weight, shape):
    """Full linear convolution of a weighted patch (S, h, w) with kernels (S, k, k)."""
    patch = stack * weight
    size = (fast_size(shape[0]), fast_size(shape[1]))
    spectrum = _padded_fft2(patch, size) * _padded_fft2(kernel, size)
    return _real_inverse(spectrum)[:, : shape[0], : shape[1]]


def _real_inverse(spectrum):
    """Real inverse DFTs of (S, …) spectra of real signals, two per complex transform.

    The results are real, so ifft(X + iY) = x + iy gives both of a pair at once.
    """
    count = int(spectrum.shape[0])
    if count < 2:
        return be.fft.real(be.fft.ifft2(spectrum))
    first, second = spectrum[0::2], spectrum[1::2]
    if count % 2:
        second = be.concatenate([second, be.zeros_like(be.fft.real(first[:1])) * 0.0j], axis=0)
    both = be.fft.ifft2(first + 1j * second)
    pairs = be.stack([be.fft.real(both), be.fft.imag(both)], axis=1)  # (P, 2, …)
    return be.reshape(pairs, (-1, *tuple(spectrum.shape)[1:]))[:count]


def convolve_varying(stack, kernels, rows, cols, origin=(0, 0), recompute=True):
    """Blur ``stack`` with PSFs interpolated bilinearly between grid points.

    Parameters
    ----------
    stack : array, shape (S, H, W)
        Irradiance per wavelength sample of a region of the sensor.
    kernels : array, shape (S, Ny, Nx, k, k)
        Odd-sized kernels of the grid points (centre pixel = the source pixel).
    rows, cols : sequence of float
        Grid point positions in global sensor pixel coordinates.
    origin : (int, int)
        Global (row, column) of ``stack[:, 0, 0]``.
    recompute : bool
        On torch with gradients: recompute each patch's FFTs in the backward
        pass instead of keeping them (memory ∝ the image, not 4 × its spectra).

    Returns
    -------
    array, shape (S, H, W)
        The blurred region: light from sources inside it only (a source
        outside the region contributes nothing; tiles add a margin).
    """
    samples, height, width = tuple(stack.shape)
    size = int(kernels.shape[-1])
    radius = size // 2
    wy = tent_weights(rows, origin[0] + np.arange(height))
    wx = tent_weights(cols, origin[1] + np.arange(width))
    pieces = []  # (y0, y1, x0, x1, array) in region coordinates
    for i, ys in enumerate(_support(wy)):
        if ys is None:
            continue
        for j, xs in enumerate(_support(wx)):
            if xs is None:
                continue
            weight = real(np.outer(wy[i, ys[0] : ys[1]], wx[j, xs[0] : xs[1]]))
            region = stack[:, ys[0] : ys[1], xs[0] : xs[1]]
            full = (ys[1] - ys[0] + size - 1, xs[1] - xs[0] + size - 1)
            kernel = kernels[:, i, j]
            if recompute:
                result = be.recompute(
                    lambda r, k, w, full=full: _patch(r, k, w, full), region, kernel, weight
                )
            else:
                result = _patch(region, kernel, weight, full)
            y0, x0 = ys[0] - radius, xs[0] - radius
            top, left = max(y0, 0), max(x0, 0)
            bottom, right = min(y0 + full[0], height), min(x0 + full[1], width)
            cut = result[:, top - y0 : bottom - y0, left - x0 : right - x0]
            pieces.append((top, bottom, left, right, cut))
    return _assemble(pieces, samples, height, width, stack)


def _assemble(pieces, samples, height, width, like):
    """The sum of pieces placed in an (S, H, W) canvas, built by slicing and concatenation."""
    ys = sorted({0, height, *(p[0] for p in pieces), *(p[1] for p in pieces)})
    xs = sorted({0, width, *(p[2] for p in pieces), *(p[3] for p in pieces)})
    bands = []
    for y0, y1 in zip(ys[:-1], ys[1:]):
        cells = []
        for x0, x1 in zip(xs[:-1], xs[1:]):
            cell = None
            for top, bottom, left, right, array in pieces:
                if top <= y0 and y1 <= bottom and left <= x0 and x1 <= right:
                    part = array[:, y0 - top : y1 - top, x0 - left : x1 - left]
                    cell = part if cell is None else cell + part
            if cell is None:
                cell = be.zeros((samples, y1 - y0, x1 - x0))
            cells.append(cell)
        bands.append(be.concatenate(cells, axis=2))
    return be.concatenate(bands, axis=1)
