"""Reconstruction for end-to-end design: Wiener deconvolution and PSNR, in ``be``.

The Wiener filter with the on-axis kernel K of each channel,

    X̂ = conj(K̂) · Ŷ / (|K̂|² + λ),

is the least-squares inverse for white signal and noise spectra with
noise-to-signal ratio λ; λ = exp(log_lambda) is a learnable parameter next to
the lens's, so optimizing a lens together with its reconstruction is one
gradient loop (docs/imaging.md).  The transform is circular: the image's
borders wrap, so PSNR is measured inside a margin.
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend as be
from ._arrays import real

__all__ = ["channel_kernels", "wiener_deconvolve", "psnr"]


def channel_kernels(result, row=None, col=None):
    """Per output channel, the response-weighted kernel of one grid point (C, k, k).

    ``result`` is a :class:`~optics.imaging.simulate.SimulationResult`; the
    grid point is the central one by default.
    """
    kernels = result.psfs.kernels  # (S, Ny, Nx, k, k)
    ny, nx = int(kernels.shape[1]), int(kernels.shape[2])
    row = ny // 2 if row is None else row
    col = nx // 2 if col is None else col
    weights = real(result.info["wavelengths"]["weights"])  # (S, C)
    chosen = kernels[:, row, col]  # (S, k, k)
    return be.sum(chosen[:, None] * weights[:, :, None, None], axis=0)


def wiener_deconvolve(image, kernels, log_lambda):
    """Wiener deconvolution of an (H, W, C) image with per-channel kernels (C, k, k).

    Parameters
    ----------
    image : array, shape (H, W, C)
    kernels : array, shape (C, k, k)
        Odd kernels, centre pixel = the source pixel (as the simulator's).
    log_lambda : float or 0-d array
        Natural log of the regularization λ (differentiable).

    Returns
    -------
    array, shape (H, W, C)
    """
    height, width, channels = tuple(image.shape)
    radius = int(kernels.shape[-1]) // 2
    fy = np.arange(height)[:, None] / height
    fx = np.arange(width)[None, :] / width
    shift = be.fft.expi(real(2.0 * math.pi * radius * (fy + fx)))
    regularization = be.exp(be.asarray(log_lambda))
    out = []
    for c in range(channels):
        spectrum = be.fft.fft2(kernels[c], (height, width)) * shift
        conjugate = be.fft.real(spectrum) - 1j * be.fft.imag(spectrum)
        data = be.fft.fft2(image[:, :, c])
        estimate = conjugate * data / (be.fft.abs2(spectrum) + regularization)
        out.append(be.fft.real(be.fft.ifft2(estimate)))
    return be.stack(out, axis=-1)


def psnr(estimate, reference, margin=0, peak=1.0):
    """Peak signal-to-noise ratio in dB, 10 log10(peak² / MSE), inside ``margin`` pixels."""
    if margin:
        estimate = estimate[margin:-margin, margin:-margin]
        reference = reference[margin:-margin, margin:-margin]
    error = be.mean((estimate - reference) ** 2)
    return 10.0 * be.log(peak * peak / error) / math.log(10.0)
