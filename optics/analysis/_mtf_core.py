"""Modulation transfer function: diffraction (FFT of the PSF) and geometric (ray density).

The diffraction OTF is the autocorrelation of the pupil function, computed as
the Fourier transform of the FFT PSF (see :mod:`optics.analysis._psf`); only its
two axes are needed, so the PSF is summed into line spread functions along y
and x and each gets a 1-D FFT.  Lag k along x is the spatial frequency
k · step_x in cycles/mm on the image surface (sagittal), along y k · step_y
(tangential, the field's y direction); the MTF is |OTF| / OTF(0), read at the
asked frequencies by linear interpolation between lags (an error of order
(step / cutoff)² × MTF″, under 1e-4 at N = 64 for smooth curves).

The diffraction limit of a circular pupil is
(2/π)(arccos ν − ν √(1 − ν²)), ν = f / f_c, with the cutoff f_c = n′|ΔD| / λ
(= 1 / (λ · working F/#) on axis).  The geometric MTF is the modulus of the
Fourier transform of the spot's ray density (quadrature-weighted rays),
for heavily aberrated systems where diffraction does not matter.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import backend as be
from .._notebook import NotebookView
from ..trace.prepared import takes_system
from ._checks import (
    check_field,
    check_frequencies,
    check_sizes,
    wavelength_of,
)
from ._opd import sample_wavefront
from ._wavefront import pupil_samples
from .spot import in_image_frame

__all__ = [
    "MTFResult",
    "mtf_from_psf",
    "diffraction_limit",
    "geometric_mtf",
    "interpolate_lags",
]


@dataclass(frozen=True, repr=False)
class MTFResult(NotebookView):
    """MTF of several fields at given frequencies (cycles/mm).

    Attributes
    ----------
    fields : tuple of (hx, hy)
    frequencies : array, shape (K,)
    tangential, sagittal : arrays, shape (F, K)
    diffraction_limit : array, shape (F, K)
        Of each field's mean tangential/sagittal cutoff.
    cutoff : array, shape (F,)
        Mean of the tangential and sagittal cutoffs n′|ΔD| / λ per field, at
        the reference (primary) wavelength.
    wavelength : float
        The reference (primary) wavelength.
    samples, grid : int
    wavelengths, weights : tuple of float
        The wavelengths (µm) summed and their spectral weights.
    polychromatic : bool
    accuracy : float
        Estimated error of the curves: their largest change from half the
        pupil samples.
    """

    fields: tuple
    frequencies: object
    tangential: object
    sagittal: object
    diffraction_limit: object
    cutoff: object
    wavelength: float
    samples: int
    grid: int
    wavelengths: tuple = ()
    weights: tuple = ()
    polychromatic: bool = False
    accuracy: float = math.nan

    def as_dict(self) -> dict:
        """The CLI's JSON: {"cutoff", "fields": [{field, frequencies, tangential, ...}]}."""

        def floats(a):
            return [float(v) for v in be.to_numpy(a).reshape(-1)]

        frequencies = floats(self.frequencies)
        return {
            "cutoff": float(be.to_numpy(self.cutoff)[0]),
            "wavelength": float(self.wavelength),
            "wavelengths": [float(w) for w in self.wavelengths],
            "weights": [float(w) for w in self.weights],
            "polychromatic": bool(self.polychromatic),
            "samples": int(self.samples),
            "accuracy": {"mtf": float(self.accuracy), "tolerance": 0.01},
            "fields": [
                {
                    "field": [float(v) for v in field],
                    "frequencies": frequencies,
                    "tangential": floats(self.tangential[i]),
                    "sagittal": floats(self.sagittal[i]),
                    "diffraction_limit": floats(self.diffraction_limit[i]),
                }
                for i, field in enumerate(self.fields)
            ],
        }


def diffraction_limit(frequencies, cutoff):
    """MTF of an unaberrated circular pupil at frequencies / cutoff (0 beyond the cutoff).

    Parameters
    ----------
    frequencies : array, any shape
        Spatial frequencies in 1/mm.
    cutoff : float or array broadcastable to the shape of ``frequencies``
        Incoherent cutoff frequency 1 / (λ F/#) in 1/mm.

    Returns
    -------
    array, the broadcast shape of the inputs
        (2/π) (arccos ν − ν √(1 − ν²)) with ν = frequencies / cutoff clipped to
        [0, 1]: 1 at zero frequency, 0 at and beyond the cutoff.
    """
    nu = be.clip(frequencies / cutoff, 0.0, 1.0)
    return (2.0 / math.pi) * (be.arccos(nu) - nu * be.sqrt(1.0 - nu * nu))


def mtf_from_psf(image):
    """|OTF| / OTF(0) along the x and y axes of centred PSFs.

    Parameters
    ----------
    image : array, shape (..., G, G)
        PSF (axis -2: y, axis -1: x).

    Returns
    -------
    along_x, along_y : arrays, shape (..., G)
        MTF at lags 0..G-1 (lags above G/2 are the negative frequencies).
    """
    lsf_x = be.sum(image, axis=-2)  # line spread along x
    lsf_y = be.sum(image, axis=-1)
    out = []
    for lsf in (lsf_x, lsf_y):
        power = be.fft.abs2(be.fft.fft(lsf))
        eps = be.machine_eps(lsf)
        ratio = power / be.maximum(power[..., :1], eps)
        # sqrt's slope is infinite at 0 (past the cutoff): floor the ratio at eps².
        out.append(be.sqrt(be.maximum(ratio, eps * eps)))
    return out[0], out[1]


def interpolate_lags(curve, lags):
    """curve (..., G) read at fractional lags (K,) by linear interpolation; 0 past lag G/2."""
    size = int(curve.shape[-1])
    limit = size // 2
    lags = be.clip(lags, 0.0, float(limit))
    low = be.to_numpy(be.floor(lags)).astype(int)  # sample indices: no gradient to carry
    frac = lags - be.floor(lags)
    values = []
    for k in range(int(lags.shape[-1])):
        i = int(low[k])
        j = min(i + 1, limit)
        values.append(curve[..., i] * (1.0 - frac[k]) + curve[..., j] * frac[k])
    return be.stack(values, axis=-1)


@takes_system
def geometric_mtf(optic, field, frequencies, wavelength=None, *, rings=16):
    """Geometric MTF from the ray density of the spot (no diffraction).

    MTF_y(f) = |sum_k w_k exp(−i2π f (y_k − ȳ))| / sum_k w_k over the valid
    rays of the Gauss–Legendre pupil rule, likewise along x.

    Parameters
    ----------
    optic : Optic or PreparedSystem
    field : (hx, hy)
        One normalized field point.
    frequencies : sequence of K floats
        Spatial frequencies in 1/mm, non-negative.
    wavelength : float, optional
        µm; the primary wavelength by default.
    rings : int
        Gauss–Legendre rings of the pupil rule.

    Returns
    -------
    tangential, sagittal : arrays, shape (K,)
        MTF along y (tangential) and x (sagittal), 0 to 1; NaN when every ray
        is vignetted.
    """
    field = check_field(field)
    wavelength = wavelength_of(optic, wavelength)
    check_sizes(rings=rings)
    frequencies = check_frequencies(frequencies)
    px, py, weights = pupil_samples(rings)
    _, valid, rays, _ = sample_wavefront(optic, [field], wavelength, px, py)
    rays = in_image_frame(optic, rays)
    w = be.where(valid[0], weights, 0.0)
    total = be.maximum(be.sum(w), be.machine_eps(w))
    dark = be.where(be.sum(w) > 0, 0.0, math.nan)  # fully vignetted: NaN, not 0
    frequencies = be.asarray([float(f) for f in frequencies])
    out = []
    for coordinate in (rays.y[0], rays.x[0]):
        centre = be.sum(w * be.where(valid[0], coordinate, 0.0)) / total
        offset = be.where(valid[0], coordinate - centre, 0.0)
        phase = -2.0 * math.pi * frequencies[:, None] * offset[None, :]
        re = be.sum(w * be.cos(phase), axis=-1)
        im = be.sum(w * be.sin(phase), axis=-1)
        out.append(be.sqrt(re * re + im * im) / total + dark)
    return out[0], out[1]
