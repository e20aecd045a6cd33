"""PSFs on an N × N grid over the sensor, per wavelength sample, as sensor-pixel kernels.

Grid point (i, j) sits at sensor pixel coordinates (row_i, col_j), the N
points of each axis equally spaced from the first pixel centre to the last
(one point at the centre when N = 1).  Its field is the one whose real chief
ray lands there (the inverse of the distortion map, primary wavelength); its
PSF at every wavelength sample is optics' FFT PSF (:mod:`optics.analysis.psf`:
one bundle trace of all grid fields per wavelength, then |FFT|² of the pupil
function), whose pixel size comes from the rays and so depends on the lens.

Resampling onto sensor pixels integrates the PSF over each pixel: a PSF pixel
of size dx × dy contributes to a sensor pixel the fraction of its area inside
it, K = A_y · PSF · A_xᵀ with A the 1-D overlap fractions; the kernel's centre
pixel is centred on the chief ray.  Each kernel is normalized to sum 1 (the
light of the PSF outside the k × k window is put back in proportion), so the
convolution conserves energy and relative illumination is applied separately.
Kernel rows run downwards (−y), as the sensor's.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..analysis._psf import (
    ALIASING_STEP_WAVES,
    SamplingWarning,
    fast_size,
    psf_from_opd,
    sample_pupil,
)
from ..errors import ConfigurationError
from ..trace.prepared import takes_system
from ._arrays import real

__all__ = ["PSFGrid", "grid_axis", "grid_fields", "psf_grid", "pixel_kernels"]


@dataclass(frozen=True)
class PSFGrid:
    """Sensor-pixel PSF kernels on the field grid.

    Attributes
    ----------
    kernels : array, shape (S, Ny, Nx, k, k)
        Per wavelength sample and grid point, summing to 1.
    rows, cols : tuple of float
        Grid point positions in sensor pixel coordinates (global).
    fields : list of (hx, hy)
        Normalized fields of the grid points, row-major (Ny · Nx).
    wavelengths : tuple of float
        µm, length S.
    samples, fft_size : int
        Pupil samples N and FFT size G of the PSFs.
    psf_pixel : tuple of float
        Largest PSF pixel (mm) per wavelength.
    max_step_waves : float
        Largest OPD step between adjacent pupil samples (aliasing above 0.5).
    """

    kernels: object
    rows: tuple
    cols: tuple
    fields: list
    wavelengths: tuple
    samples: int
    fft_size: int
    psf_pixel: tuple
    max_step_waves: float

    @property
    def kernel_size(self) -> int:
        return int(self.kernels.shape[-1])


def grid_axis(count, length):
    """``count`` grid positions over pixel indices 0 … length − 1 (centre when count = 1)."""
    if count == 1:
        return ((length - 1) / 2.0,)
    return tuple(float(v) for v in np.linspace(0.0, length - 1.0, count))


def grid_fields(rows, cols, shape, pitch, radial):
    """Normalized fields (hx, hy) whose chief rays land at the grid points.

    ``shape`` (H, W) of the sensor, ``pitch`` in mm, ``radial`` the
    :class:`~optics.imaging.warp.RadialMap` of the primary wavelength.
    """
    height, width = shape
    x = (np.asarray(cols)[None, :] - (width - 1) / 2.0) * pitch
    y = ((height - 1) / 2.0 - np.asarray(rows)[:, None]) * pitch
    x, y = np.broadcast_arrays(x, y)
    rho = np.hypot(x, y).ravel()
    h = be.to_numpy(radial.field_at(real(rho)))
    safe = np.where(rho > 0, rho, 1.0)
    hx = np.where(rho > 0, h * x.ravel() / safe, 0.0)
    hy = np.where(rho > 0, h * y.ravel() / safe, 0.0)
    return [(float(a), float(b)) for a, b in zip(hx, hy)]


def _overlap(centres, half, edges_lo, edges_hi):
    """Fraction of PSF pixels [c − half, c + half] inside sensor pixels [lo, hi].

    centres (F, 1, G), half (F, 1, 1), edges (1, k, 1) → (F, k, G).
    """
    top = be.minimum(centres + half, edges_hi)
    bottom = be.maximum(centres - half, edges_lo)
    return be.clip(top - bottom, 0.0, None) / (2.0 * half)


def pixel_kernels(image, dx, dy, pitch, size):
    """PSF images (F, G, G) with pixels dx, dy (F,) mm → sensor kernels (F, size, size).

    PSF axis 0 is +y, axis 1 +x, the chief ray at (G // 2, G // 2); the
    kernel's centre pixel (size // 2) is centred on the chief ray, its rows
    running towards −y.  Each kernel sums to 1.
    """
    grid = int(image.shape[-1])
    offsets = real(np.arange(grid, dtype=float) - grid // 2)
    radius = size // 2
    pixel = np.arange(size, dtype=float) - radius
    lo = real(((pixel - 0.5) * pitch)[None, :, None])
    hi = real(((pixel + 0.5) * pitch)[None, :, None])
    dx = be.reshape(dx, (-1, 1, 1))
    dy = be.reshape(dy, (-1, 1, 1))
    across = _overlap(offsets[None, None, :] * dx, 0.5 * dx, lo, hi)  # (F, k, G): columns
    # kernel row i is at y = −(i − radius) · pitch: flip the PSF's y.
    down = _overlap(-offsets[None, None, :] * dy, 0.5 * dy, lo, hi)  # (F, k, G): rows
    kernel = be.matmul(be.matmul(down, image), _swap(across))
    total = be.sum(kernel, axis=(-2, -1), keepdims=True)
    return kernel / be.maximum(total, be.machine_eps(total))


def _swap(x):
    """(F, k, G) → (F, G, k) (``be`` has no transpose: the k columns stacked last)."""
    return be.stack([x[:, i, :] for i in range(int(x.shape[1]))], axis=-1)


def default_kernel_size(fft_size, psf_pixel, pitch, maximum=129):
    """Odd size covering the PSF's field (G · pixel) in sensor pixels, at most ``maximum``."""
    radius = math.ceil(0.5 * fft_size * psf_pixel / pitch)
    return int(min(2 * max(radius, 1) + 1, maximum))


@takes_system
def psf_grid(
    optic, fields, wavelengths, pitch, *, rows, cols, samples=32, fft_size=None, kernel_size=None
):
    """The :class:`PSFGrid` of ``optic`` at grid ``fields`` and ``wavelengths``.

    Parameters
    ----------
    optic : Optic
        The imaging copy (see :func:`optics.imaging.scene.place_scene`).
    fields : list of (hx, hy), length Ny · Nx
        Row-major over (rows, cols).
    wavelengths : sequence of float
        µm.
    pitch : float
        Sensor pixel pitch in mm.
    rows, cols : tuple of float
        Grid positions (sensor pixels).
    samples : int
        Pupil samples N across the diameter.
    fft_size : int, optional
        G; 2N rounded to a fast FFT size by default.
    kernel_size : int, optional
        Odd kernel size in sensor pixels; by default the PSF's field.

    Returns
    -------
    PSFGrid
    """
    samples = int(samples)
    grid = fast_size(2 * samples) if fft_size is None else int(fft_size)
    if samples < 8 or grid < samples:
        raise ConfigurationError(
            f"imaging: pupil samples must be >= 8 and the FFT size >= them ({samples}, {grid})"
        )
    pupils, largest, worst = [], [], 0.0
    for wavelength in wavelengths:
        pupil = sample_pupil(optic, fields, float(wavelength), samples)
        pupils.append(pupil)
        worst = max(worst, pupil.max_step_waves)
        step = min(
            float(np.min(be.to_numpy(pupil.step_x))), float(np.min(be.to_numpy(pupil.step_y)))
        )
        largest.append(1.0 / (grid * step))
    if worst > ALIASING_STEP_WAVES:
        warnings.warn(
            f"imaging: adjacent pupil samples differ by {worst:.2f} waves "
            f"(> {ALIASING_STEP_WAVES}) with {samples} samples: "
            "the PSFs alias; raise the pupil samples",
            SamplingWarning,
            stacklevel=3,
        )
    if kernel_size is None:
        kernel_size = default_kernel_size(grid, max(largest), pitch)
    if kernel_size < 1 or kernel_size % 2 == 0:
        raise ConfigurationError(f"imaging: kernel size must be odd and >= 1, not {kernel_size}")
    per_wavelength = []
    for pupil in pupils:
        image = psf_from_opd(pupil.waves, pupil.amplitude, grid)
        dx = 1.0 / (grid * pupil.step_x)
        dy = 1.0 / (grid * pupil.step_y)
        per_wavelength.append(pixel_kernels(image, dx, dy, pitch, kernel_size))
    kernels = be.stack(per_wavelength)  # (S, F, k, k)
    shape = (len(wavelengths), len(rows), len(cols), kernel_size, kernel_size)
    return PSFGrid(
        kernels=be.reshape(kernels, shape),
        rows=tuple(rows),
        cols=tuple(cols),
        fields=list(fields),
        wavelengths=tuple(float(w) for w in wavelengths),
        samples=samples,
        fft_size=grid,
        psf_pixel=tuple(largest),
        max_step_waves=worst,
    )
