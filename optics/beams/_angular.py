"""Angular-spectrum propagation of a sampled scalar field between parallel planes (be.fft).

U(x, y, z) = F⁻¹{ F{U(x, y, 0)} · H(fx, fy) }, with
H = exp(−i 2π z √((n/λ)² − fx² − fy²)) for propagating waves and
H = exp(−2π |z| √(fx² + fy² − (n/λ)²)) for evanescent ones (Goodman, *Introduction to
Fourier Optics*, §3.10, in the engineers' sign).  The time dependence is
exp(+iωt), Siegman's (*Lasers*, ch. 16-17): a plane wave travelling toward +z is
exp(−ikz) and a Gaussian beam exp(−ik r² / (2q)), the convention of the beam parameter in
:mod:`optics.beams._gaussian`.  The transform is exact for the sampled field; the
grid must hold the field at both planes (no padding is added: the DFT is periodic).
"""

from __future__ import annotations

import math

from .. import backend as be
from ..errors import ConfigurationError


def frequencies(count: int, pitch):
    """DFT-ordered spatial frequencies (1/mm) of ``count`` samples ``pitch`` mm apart.

    Parameters
    ----------
    count : int
        Number of samples N.
    pitch : float
        Sample spacing in mm.

    Returns
    -------
    array, shape (N,)
        k / (N · pitch) for k = 0 .. (N + 1) // 2 − 1, then the negative frequencies
        (k − N) / (N · pitch), in 1/mm (the order of ``fft``).
    """
    k = be.arange(count, dtype=be.float_dtype())
    return be.where(k < (count + 1) // 2, k, k - count) / (count * pitch)


def coordinates(count: int, pitch):
    """Sample positions (mm) centred on index count // 2: (k − count // 2) · pitch.

    Parameters
    ----------
    count : int
        Number of samples N.
    pitch : float
        Sample spacing in mm.

    Returns
    -------
    array, shape (N,)
        Positions in mm; the sample at index N // 2 is at 0.
    """
    return (be.arange(count, dtype=be.float_dtype()) - count // 2) * pitch


def angular_spectrum(field, pitch, wavelength, distance, index=1.0):
    """The field ``distance`` mm further along +z, by the angular-spectrum method.

    Parameters
    ----------
    field : complex array, shape (..., N, M)
        Samples U(x, y) on a grid of ``pitch`` mm (rows y, columns x).
    pitch : float
        Sample spacing in mm (both axes).
    wavelength : float
        Vacuum wavelength in µm.
    distance : float or 0-d array
        Propagation distance in mm (negative: back-propagation).
    index : float
        Refractive index of the medium.

    Returns
    -------
    complex array, shape (..., N, M)
    """
    if not (isinstance(pitch, (int, float)) and pitch > 0 and math.isfinite(pitch)):
        raise ConfigurationError(f"angular_spectrum: pitch must be a positive mm, not {pitch!r}")
    if not (isinstance(wavelength, (int, float)) and wavelength > 0):
        raise ConfigurationError(
            f"angular_spectrum: wavelength must be a positive µm, not {wavelength!r}"
        )
    rows, cols = field.shape[-2], field.shape[-1]
    fy = be.reshape(frequencies(rows, pitch), (rows, 1))
    fx = be.reshape(frequencies(cols, pitch), (1, cols))
    reach = (index / (wavelength * 1e-3)) ** 2 - fx * fx - fy * fy  # (n/λ)² − f², 1/mm²
    propagating = reach >= 0
    root = be.sqrt(be.abs(reach))
    phase = be.where(propagating, -2 * math.pi * distance * root, 0.0)
    decay = be.where(propagating, 0.0, -2 * math.pi * be.abs(distance) * root)
    transfer = be.fft.expi(phase) * be.exp(decay)
    return be.fft.ifft2(be.fft.fft2(field) * transfer)


def gaussian_field(q, wavelength, count: int, pitch, centre=(0.0, 0.0)):
    """Samples of exp(−iπ r² / (λ q̂)) (peak 1 at a waist) on a count × count grid.

    Parameters
    ----------
    q : BeamParameter
        The reduced beam parameter (:mod:`optics.beams._gaussian`), 0-d arrays or floats.
    wavelength : float
        Vacuum wavelength in µm.
    count, pitch : int, float
        Grid size and sample spacing in mm (positions from :func:`coordinates`).
    centre : (float, float)
        Beam centre (x, y), mm.

    Returns
    -------
    complex array, shape (count, count)
    """
    x = be.reshape(coordinates(count, pitch), (1, count)) - centre[0]
    y = be.reshape(coordinates(count, pitch), (count, 1)) - centre[1]
    re_inv, im_inv = q.inverse()
    r2 = x * x + y * y
    scale = math.pi / (wavelength * 1e-3)
    # exp(−iπ r²/(λ q̂)) = exp(π r² Im(1/q̂)/λ) · exp(−i π r² Re(1/q̂)/λ)
    return be.exp(scale * r2 * im_inv) * be.fft.expi(-scale * r2 * re_inv)
