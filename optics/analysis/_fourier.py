"""Fourier optics of sampled pupil functions: the PSF at any image points, its true peak, the OTF.

PSF (matrix Fourier transform).  With the pupil function P = A exp(−i2πW) on
the cell centres p of the N × N grid (see :mod:`optics.analysis._pupil_set`),
the amplitude at the image offset (x, y) from a reference point is

    U(x, y) = Σ P(p) exp(+i2π [σ_x p_x (x − s_x) + σ_y p_y (y − s_y)]) / Σ A,

s the offset of that wavelength's chief-ray image point from the reference
point.  The kernel is separable, so U on an X × Y grid of any pixel size and
centre is two matrix products (E_y P E_xᵀ, O(N² X + N X Y)): every
wavelength lands on one image-space grid, and the intensity |U|² is 1 at the
peak of the unaberrated PSF of the same pupil, so its maximum is the Strehl
ratio.  Polychromatic PSFs are the weighted sum of the wavelengths' unit-energy
PSFs, normalized to the unaberrated polychromatic peak: wavelength w counts
with q_w = ω_w Σ A_w |σ_x σ_y|_w (its spectral weight ω_w times its
unaberrated peak per unit energy).

True peak.  :func:`true_peak` starts at the brightest pixel and refines the
maximum on shrinking 5 × 5 stencils with a parabola through the best sample
and its neighbours, so the Strehl ratio is the peak of the continuous PSF, not
of the nearest pixel.

OTF.  The autocorrelation of P by FFT (zero-padded to G >= 2N, so nothing
wraps), reduced to the two axes (line spread functions), gives the complex
OTF at lags k = 0..G-1, lag k being the frequency k · 2|σ|/N.  It is read at
the asked frequencies by linear interpolation (exact for the piecewise-constant
pupil samples), turned to image-space orientation (the sign of σ), shifted by
exp(−i2π f s) for the chief-ray offset s, and the wavelengths are summed with
their spectral weights: the polychromatic OTF of unit-energy PSFs, 1 at zero
frequency; the MTF is its modulus.
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend as be
from ._mtf_core import interpolate_lags

__all__ = [
    "amplitude_at",
    "pupil_field",
    "diffraction_otf",
    "intensity_at",
    "mtf_axes",
    "true_peak",
    "true_peaks",
]

_TWO_PI = 2.0 * math.pi


def pupil_field(pf, aberrated=True):
    """A exp(−i2πW) of ``pf`` (W, F, N, N), complex; the amplitude alone when not aberrated."""
    return _pupil_field(pf, aberrated)


def _pupil_field(pf, aberrated=True):
    if not aberrated:
        return pf.amplitude + 0.0j * pf.amplitude
    return pf.amplitude * be.fft.expi(-_TWO_PI * pf.waves)


def amplitude_at(pf, xs, ys, shift_x, shift_y, field=None):
    """Complex amplitude at image offsets, normalized to the unaberrated peak.

    Parameters
    ----------
    pf : PupilFunctions
    xs, ys : arrays, shape (X,) and (Y,)
        Offsets (mm) from the reference point along x and y.
    shift_x, shift_y : arrays, shape (W, F)
        Offset of each wavelength's chief-ray image point from the reference point.
    field : array, optional
        The pupil function A exp(−i2πW) when the caller has it already.

    Returns
    -------
    array, shape (W, F, Y, X), complex
    """
    axis = pf.axis
    sx, sy = pf.sigma_x[..., None, None], pf.sigma_y[..., None, None]
    ey = be.fft.expi(
        _TWO_PI * sy * (ys[:, None] - shift_y[..., None, None]) * axis[None, :]
    )  # (W, F, Y, N)
    ex = be.fft.expi(
        _TWO_PI * sx * axis[:, None] * (xs[None, :] - shift_x[..., None, None])
    )  # (W, F, N, X)
    field = _pupil_field(pf) if field is None else field
    field = be.matmul(be.matmul(ey, field), ex)
    total = be.maximum(pf.lit, be.machine_eps(pf.waves))
    return field / total[..., None, None]


def psf_weights(pf, weights):
    """q_w of each wavelength and field (W, F): ω_w Σ A |σ_x σ_y| (see the module notes)."""
    omega = be.reshape(be.asarray([float(w) for w in weights]), (-1, 1))
    return omega * pf.lit * be.abs(pf.sigma_x * pf.sigma_y)


def intensity_at(pf, q, xs, ys, shift_x, shift_y, field=None):
    """Polychromatic intensity (F, Y, X), 1 at the unaberrated polychromatic peak."""
    intensity = be.fft.abs2(amplitude_at(pf, xs, ys, shift_x, shift_y, field))
    total = be.sum(q, axis=0)
    none = be.where(total > 0, 0.0, math.nan)
    total = be.maximum(total, be.machine_eps(pf.waves))
    return (
        be.sum(q[..., None, None] * intensity, axis=0) / total[:, None, None] + none[:, None, None]
    )


def _parabola(left, centre, right):
    """Offset (in steps, within ±1) of the vertex of the parabola through three samples."""
    curvature = left - 2.0 * centre + right
    if not curvature < 0:
        return 0.0
    return float(np.clip(0.5 * (left - right) / curvature, -1.0, 1.0))


def true_peak(pf, q, shift_x, shift_y, x0, y0, step, *, rounds=5, field=None):
    """The maximum of one field's intensity near (x0, y0): value and position (mm).

    ``step`` is the starting stencil spacing (about a pixel); each round
    evaluates a 5 × 5 stencil, moves to the best sample plus the parabolic
    correction and shrinks the spacing fourfold (five rounds: 1/256 of a
    pixel, the parabola's error far below that).

    Returns
    -------
    value : 0-d array
        The intensity at the refined peak (differentiable in the pupil).
    x, y : float
    """
    return true_peaks(pf, q, shift_x, shift_y, [(x0, y0)], step, rounds=rounds, field=field)


def true_peaks(pf, q, shift_x, shift_y, starts, step, *, rounds=5, field=None):
    """The highest of the maxima refined from several starts, as :func:`true_peak` refines one.

    Every round evaluates the K starts' 5 × 5 stencils in one matrix transform
    (the 5K × 5K grid of their x and y samples, of which the K diagonal blocks
    are the stencils), so K starts cost about one.

    Returns
    -------
    value : 0-d array
        The intensity at the highest refined maximum (differentiable in the pupil).
    x, y : float
    """
    points = [[float(x), float(y)] for x, y in starts]
    count, h = len(points), float(step)
    field = _pupil_field(pf) if field is None else field
    offsets = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    live = list(range(count))
    for _ in range(rounds):
        xs = np.concatenate([points[k][0] + h * offsets for k in live])
        ys = np.concatenate([points[k][1] + h * offsets for k in live])
        image = intensity_at(pf, q, be.asarray(xs), be.asarray(ys), shift_x, shift_y, field)[0]
        image = be.to_numpy(be.detach(image))
        moving = []
        for b, k in enumerate(live):
            block = image[5 * b : 5 * b + 5, 5 * b : 5 * b + 5]
            if not np.isfinite(block).any():
                continue
            i, j = np.unravel_index(int(np.nanargmax(block)), block.shape)
            dy = _parabola(block[i - 1, j], block[i, j], block[i + 1, j]) if 0 < i < 4 else 0.0
            dx = _parabola(block[i, j - 1], block[i, j], block[i, j + 1]) if 0 < j < 4 else 0.0
            points[k][0] += h * (offsets[j] + dx)
            points[k][1] += h * (offsets[i] + dy)
            moving.append(k)
        live = moving
        if not live:
            break
        h /= 4.0
    xs = be.asarray([p[0] for p in points])
    ys = be.asarray([p[1] for p in points])
    values = intensity_at(pf, q, xs, ys, shift_x, shift_y, field)[0]  # (K, K): diagonal
    host = np.diagonal(np.asarray(be.to_numpy(be.detach(values)), dtype=float))
    finite = np.where(np.isfinite(host), host, -np.inf)
    best = int(np.argmax(finite))
    return values[best, best], points[best][0], points[best][1]


def _otf_parts(pf, grid, aberrated=True):
    """Re and Im of the OTF along x and y, each (W, F, G), image orientation, 1 at lag 0."""
    power = be.fft.abs2(be.fft.fft2(_pupil_field(pf, aberrated), (grid, grid)))
    eps = be.machine_eps(pf.waves)
    parts = []
    for lsf, sigma in ((be.sum(power, axis=-2), pf.sigma_x), (be.sum(power, axis=-1), pf.sigma_y)):
        otf = be.fft.fft(lsf)
        re, im = be.fft.real(otf), be.fft.imag(otf)
        norm = be.maximum(re[..., :1], eps)
        sign = be.where(sigma >= 0, -1.0, 1.0)[..., None]  # FFT index j is at −sign(σ) j dx
        parts.append((re / norm, sign * im / norm))
    return parts


def _combine(pf, parts, weights, frequencies, shifts):
    """|Σ ω_w OTF_w(f) exp(−i2π f s_w)| / Σ ω_w along one axis: (F, K)."""
    (re, im), sigma = parts
    n_wave, n_field = int(re.shape[0]), int(re.shape[1])
    steps = 2.0 * be.abs(sigma) / pf.samples
    eps = be.machine_eps(pf.waves)
    rows = []
    for f in range(n_field):
        acc_re, acc_im, total = 0.0, 0.0, 0.0
        for w in range(n_wave):
            omega = float(weights[w])
            if omega == 0.0:
                continue
            lit = be.where(pf.lit[w, f] > 0, 1.0, 0.0)
            lags = frequencies / be.maximum(steps[w, f], eps)
            r = interpolate_lags(re[w, f], lags)
            i = interpolate_lags(im[w, f], lags)
            if shifts is not None:
                phase = -_TWO_PI * frequencies * shifts[w, f]
                c, s = be.cos(phase), be.sin(phase)
                r, i = r * c - i * s, r * s + i * c
            acc_re = acc_re + omega * lit * r
            acc_im = acc_im + omega * lit * i
            total = total + omega * lit
        modulus = be.sqrt(be.maximum(acc_re * acc_re + acc_im * acc_im, eps * eps))
        rows.append(modulus / be.maximum(total, eps))
    return be.stack(rows)


def mtf_axes(pf, weights, frequencies, grid, shift_x, shift_y):
    """Polychromatic tangential and sagittal MTF (F, K) at ``frequencies`` (K,) cycles/mm."""
    along_x, along_y = _otf_parts(pf, grid)
    sagittal = _combine(pf, (along_x, pf.sigma_x), weights, frequencies, shift_x)
    tangential = _combine(pf, (along_y, pf.sigma_y), weights, frequencies, shift_y)
    return tangential, sagittal


def diffraction_otf(pf, weights, frequencies, grid):
    """MTF of the same pupil unaberrated (obscurations, vignetting kept): (F, K), the mean of
    the tangential and sagittal curves."""
    along_x, along_y = _otf_parts(pf, grid, aberrated=False)
    sagittal = _combine(pf, (along_x, pf.sigma_x), weights, frequencies, None)
    tangential = _combine(pf, (along_y, pf.sigma_y), weights, frequencies, None)
    return 0.5 * (tangential + sagittal)
