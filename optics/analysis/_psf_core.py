"""Point spread function by FFT of the pupil function, and the Strehl ratio.

The pupil function A exp(−i2πW) is sampled on an N × N grid of cell centres
over the normalized pupil (A = 1 on valid rays inside the unit circle, 0
elsewhere), zero-padded to G × G and Fourier transformed.  The intensity is
divided by (sum A)², the peak of the unaberrated PSF of the same pupil, so the
Strehl ratio is the peak of the normalized PSF.

Image-plane units come from the rays: a pupil lag of one sample changes the
image-space direction cosines by ΔD/N, ΔD the difference of the two marginal
rays' directions (projected on the image plane) along that axis, which is a
spatial frequency step n′|ΔD| / (N λ); the PSF pixel is 1 / (G × that step).

Sampling is automatic: N from the steepest slope of a Zernike fit of the
wavefront so that adjacent samples differ by under a quarter wave (N ≥ 32),
G = 2N or more when a finer image sampling is asked for.  After the fact the
phase step between adjacent valid samples is measured; above half a wave the
FFT aliases (the geometric spot reaches the edge of the computed field) and a
:class:`SamplingWarning` is issued rather than a silently wrong Strehl.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

from .. import backend as be
from .._notebook import NotebookView
from ..polynomials.zernike import zernike_sum
from ..sampling import square_grid
from ..trace.prepared import optic_of
from ._opd import image_index_of_refraction, sample_wavefront
from ._wavefront import pupil_samples
from ._zernike_fit import zernike_fit

__all__ = [
    "PSFResult",
    "SamplingWarning",
    "psf_from_opd",
    "choose_samples",
    "fast_size",
    "pupil_grid",
]

MIN_SAMPLES = 32
MAX_SAMPLES = 1024
ALIASING_STEP_WAVES = 0.5
_EDGE = ((0.0, 1.0), (0.0, -1.0), (1.0, 0.0), (-1.0, 0.0))
_MM_PER_UM = 1e-3


class SamplingWarning(UserWarning):
    """An FFT PSF/MTF is under-sampled: the pupil phase aliases and the result is unreliable."""


@dataclass(frozen=True)
class PupilGrid:
    """A field's pupil function samples and the image-space frequency step of one lag.

    waves : (F, N, N) OPD in waves (0 outside); amplitude : (F, N, N) 0/1;
    step_x, step_y : (F,) cycles/mm per pupil lag along x (sagittal) and y (tangential).
    """

    waves: object
    amplitude: object
    step_x: object
    step_y: object
    max_step_waves: float


@dataclass(frozen=True, repr=False)
class PSFResult(NotebookView):
    """The normalized PSF of one field (one wavelength or several).

    Attributes
    ----------
    image : array, shape (M, M)
        Intensity normalized to the unaberrated (polychromatic) peak (axis 0:
        y, axis 1: x, both increasing with the index); the reference
        (primary) chief-ray image point C is at index (M // 2, M // 2).
    dx, dy : float or 0-d array
        Pixel size in mm along x and y.
    strehl : 0-d array
        The true peak of the PSF (refined between pixels), the Strehl ratio.
    samples, grid : int
        N (pupil samples across the diameter) and M (image pixels across).
    field : tuple
    wavelength : float
        The reference (primary) wavelength.
    max_step_waves : float
        Largest OPD step between adjacent valid pupil samples (aliasing check).
    wavelengths, weights : tuple of float
        The wavelengths (µm) summed and their spectral weights.
    polychromatic : bool
    accuracy : float
        Estimated error of ``strehl``: its change from half the pupil samples.
    peak : (x, y)
        Position of the true peak (mm) relative to the reference chief ray.
    """

    image: object
    dx: object
    dy: object
    strehl: object
    samples: int
    grid: int
    field: tuple
    wavelength: float
    max_step_waves: float
    wavelengths: tuple = ()
    weights: tuple = ()
    polychromatic: bool = False
    accuracy: float = math.nan
    peak: tuple = (0.0, 0.0)


def fast_size(n: int) -> int:
    """The smallest 2^a 3^b 5^c >= n (sizes the FFT libraries transform fastest)."""
    best = 1
    while best < n:
        best *= 2
    for three in (1, 3, 9, 27):
        for five in (1, 5, 25):
            base = three * five
            size = base
            while size < n:
                size *= 2
            best = min(best, size)
    return best


def pupil_grid(n: int):
    """Cell centres of the N × N pupil grid: px, py (N²,) and the inside-circle mask."""
    return square_grid(n)


def choose_samples(optic, field, wavelength, minimum=MIN_SAMPLES, *, warn=True):
    """N so that adjacent pupil samples differ by < 0.25 waves (from a Zernike fit's slope).

    ``warn``: a SamplingWarning when that N is beyond :data:`MAX_SAMPLES` (the
    PSF's concern; the MTF passes False, see :data:`MTF_START_SAMPLES`).
    """
    px, py, weights = pupil_samples(8)
    waves, valid, _, _ = sample_wavefront(optic, [field], wavelength, px, py)
    fit = zernike_fit(px, py, waves[0], be.where(valid[0], weights, 0.0))
    _, slope_x, slope_y = zernike_sum(fit.coefficients, px, py, ordering="fringe")
    slope = float(be.item(be.max(be.sqrt(slope_x * slope_x + slope_y * slope_y))))
    n = max(minimum, 16 * math.ceil(8.0 * slope / 16.0))  # 2/N * slope < 0.25
    if n > MAX_SAMPLES and warn:
        warnings.warn(
            f"field {tuple(field)}: the wavefront slope ({slope:.0f} waves per pupil radius) "
            f"needs {n} pupil samples; using {MAX_SAMPLES}, the FFT PSF will alias",
            SamplingWarning,
            stacklevel=3,
        )
        n = MAX_SAMPLES
    return min(n, MAX_SAMPLES)


MTF_START_SAMPLES = 128
"""Largest first N of the MTF's convergence test.

The slope rule of :func:`choose_samples` keeps the sampled PSF free of
aliasing; the MTF does not need that.  It is the autocorrelation of the
sampled pupil, exact by FFT with the grid padded to 2N whatever the PSF's
aliasing, and its only error is the midpoint rule over the product
P(p) P*(p + s), whose phase W(p) − W(p + s) changes far more slowly than W
at the shears of the MTF's useful frequencies.  The convergence test (N
against N/2) is the accuracy statement: on the double Gauss sample's outer
fields, where the slope rule asks for N = 800-1024, N = 256 is within
0.0016 of N = 1024 (the N/2 test reports 0.0057).  The slope rule's N stays
the largest N the test may reach (at least 512), as before.
"""


def mtf_start(slope_samples):
    """(first N, largest N) of the MTF's convergence test from the slope rule's N."""
    slope_samples = int(slope_samples)
    return min(slope_samples, MTF_START_SAMPLES), min(max(512, slope_samples), MAX_SAMPLES)


def sample_pupil(system, fields, wavelength, samples, *, method=None):
    """The pupil function samples of each field on the N × N grid (one bundle trace).

    ``method``: how the rays are traced (see :func:`~optics.analysis.sample_wavefront`).
    """
    px, py, inside = pupil_grid(samples)
    ex = be.asarray([p[0] for p in _EDGE])
    ey = be.asarray([p[1] for p in _EDGE])
    waves, valid, rays, _ = sample_wavefront(
        system,
        fields,
        wavelength,
        be.concatenate([px, ex]),
        be.concatenate([py, ey]),
        method=method,
    )
    count = samples * samples
    keep = be.logical_and(valid[:, :count], inside[None, :])
    amplitude = be.astype(keep, waves.dtype)
    grid_shape = (len(fields), samples, samples)
    waves = be.reshape(be.where(keep, waves[:, :count], 0.0), grid_shape)
    amplitude = be.reshape(amplitude, grid_shape)
    n_image = image_index_of_refraction(optic_of(system), wavelength)
    scale = n_image / (samples * wavelength * _MM_PER_UM)
    step_y = scale * _transverse(rays, count, count + 1)
    step_x = scale * _transverse(rays, count + 2, count + 3)
    return PupilGrid(waves, amplitude, step_x, step_y, _max_step(waves, amplitude))


def _transverse(rays, i, j):
    """|ΔD| across the image plane (normal +z) between edge rays i and j, per field."""
    dl = rays.L[:, i] - rays.L[:, j]
    dm = rays.M[:, i] - rays.M[:, j]
    return be.sqrt(dl * dl + dm * dm)


def _max_step(waves, amplitude):
    """Largest |ΔW| between valid neighbours along either grid axis (a Python float)."""
    w, a = be.to_numpy(waves), be.to_numpy(amplitude) > 0
    steps = [0.0]
    for axis in (-1, -2):
        n = w.shape[axis]
        first = [slice(None)] * w.ndim
        second = [slice(None)] * w.ndim
        first[axis], second[axis] = slice(0, n - 1), slice(1, n)
        pair = a[tuple(first)] & a[tuple(second)]
        diff = abs(w[tuple(second)] - w[tuple(first)])
        if pair.any():
            steps.append(float(diff[pair].max()))
    return max(steps)


def psf_from_opd(waves, amplitude, grid):
    """Normalized PSF of pupil samples: |FFT(A exp(−i2πW))|² / (sum A)², centred.

    Parameters
    ----------
    waves, amplitude : arrays, shape (..., N, N)
        OPD in waves and the pupil amplitude (0 outside the pupil).
    grid : int
        FFT size G >= N.

    Returns
    -------
    array, shape (..., G, G)
        Zero frequency (the reference point) at index (G // 2, G // 2); NaN
        when no sample is valid.
    """
    field = amplitude * be.fft.expi(-2.0 * math.pi * waves)
    intensity = be.fft.abs2(be.fft.fft2(field, (grid, grid)))
    total = be.sum(amplitude, axis=(-2, -1))
    peak = be.maximum(total * total, be.machine_eps(waves))
    none = be.where(total > 0, 0.0, float("nan"))  # no valid sample: no PSF, not a dark one
    return be.fft.fftshift(intensity / peak[..., None, None] + none[..., None, None])


def check_sampling(max_step_waves, field, samples):
    """Warn (SamplingWarning) when adjacent pupil samples differ by more than half a wave."""
    if max_step_waves > ALIASING_STEP_WAVES:
        warnings.warn(
            f"field {tuple(field)}: adjacent pupil samples differ by {max_step_waves:.2f} waves "
            f"(> {ALIASING_STEP_WAVES}) with {samples} samples: the FFT PSF aliases and its "
            "Strehl ratio is unreliable; raise the pupil samples",
            SamplingWarning,
            stacklevel=3,
        )
