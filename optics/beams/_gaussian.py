"""Gaussian beams through a lens: the complex beam parameter q through the paraxial ABCD matrices.

The matrices come from the y–nu trace of :mod:`optics._paraxial` (its two basis rays),
written in reduced coordinates (y, n u) with signed indices, so mirrors and ideal lenses
count as they do there.  In those coordinates the beam parameter is the reduced
q̂ = q / |n| (q = z − z_waist + i z_R along the beam, z_R = π w0² |n| / (M² λ)) and it
transforms as q̂' = (A q̂ + B) / (C q̂ + D) (Siegman, *Lasers*, ch. 20).  q̂ is carried as
two real arrays, so every backend differentiates it.  Lengths in mm, wavelengths in µm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import backend as be
from .._paraxial import basis_rays
from ..errors import ConfigurationError
from ..materials import index_at
from ..surfaces import media


@dataclass(frozen=True)
class BeamParameter:
    """A reduced complex beam parameter q̂ = real + i imag (mm; imag > 0), as two arrays."""

    real: object
    imag: object

    def transformed(self, A, B, C, D) -> BeamParameter:
        """(A q̂ + B) / (C q̂ + D) in real arithmetic."""
        nr, ni = A * self.real + B, A * self.imag
        dr, di = C * self.real + D, C * self.imag
        den = dr * dr + di * di
        return BeamParameter((nr * dr + ni * di) / den, (ni * dr - nr * di) / den)

    def inverse(self):
        """(Re, Im) of 1 / q̂ (1/mm): Re = |n| / R, Im = −M² λ / (π w²)."""
        size = self.real * self.real + self.imag * self.imag
        return self.real / size, -self.imag / size


def signed_indices(optic, wavelength) -> list:
    """The medium's index after each surface, negative after an odd number of mirrors."""
    return [d * index_at(m, wavelength) for m, d in media(optic.surfaces)]


def system_matrices(optic, wavelength=None) -> list[tuple]:
    """Reduced ABCD matrices from surface 1's vertex (object space) to just after surface i.

    Parameters
    ----------
    optic : Optic
    wavelength : float, optional
        Micrometres; the primary by default.

    Returns
    -------
    list of (A, B, C, D)
        Entry i for surfaces i = 1 .. image (entry 0 is None), acting on (y, n u) with
        signed indices: [y_i, n_i u_i] = M_i [y_1, n_0 u_0].  det M_i = 1.
    """
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    rays = basis_rays(optic, wavelength)
    n = signed_indices(optic, wavelength)
    n0 = n[0]
    out = [None]
    for i in range(1, len(optic.surfaces)):
        out.append((rays.yA[i], rays.yB[i] / n0, n[i] * rays.uA[i], n[i] * rays.uB[i] / n0))
    return out


@dataclass(frozen=True)
class BeamAtSurface:
    """The beam just after surface ``surface`` (arrays, mm).

    ``radius``: 1/e² intensity radius w on the surface; ``waist``: the waist radius w0 of
    the beam leaving it; ``waist_position``: z(waist) − z(surface vertex) (negative: a
    virtual waist behind it for a beam going toward +z); ``rayleigh``: z_R, along the beam;
    ``curvature_radius``: wavefront radius of curvature R on the surface (inf when flat).
    """

    surface: int
    radius: object
    waist: object
    waist_position: object
    rayleigh: object
    curvature_radius: object


def input_parameter(optic, waist, wavelength=None, waist_position=None, m2=1.0):
    """q̂ at surface 1's vertex of a beam of waist ``waist`` (mm) in object space.

    Parameters
    ----------
    optic : Optic
    waist : float or 0-d array
        Input waist radius w0 (1/e² intensity), mm.
    wavelength : float, optional
        Vacuum wavelength in µm; the primary by default.
    waist_position : float or 0-d array, optional
        z(waist) − z(surface 1), mm; default the object surface for an object at a finite
        distance (``−thickness[0]``), surface 1 for an object at infinity.
    m2 : float
        Beam quality M² >= 1 (λ becomes M² λ).

    Returns
    -------
    BeamParameter
        real −waist_position / |n₀| and imag π w0² / (M² λ), mm (0-d arrays or floats).

    Raises
    ------
    ConfigurationError
        When ``waist`` is not positive or ``m2`` is not a finite number >= 1.
    """
    _check_beam(waist, m2)
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    n0 = be.abs(signed_indices(optic, wavelength)[0])
    if waist_position is None:
        waist_position = 0.0 if optic.object_at_infinity else -optic.surfaces[0].thickness
    wavelength_mm = wavelength * 1e-3 * m2
    return BeamParameter(-waist_position / n0 + 0.0 * waist, math.pi * waist**2 / wavelength_mm)


def beam_at(q: BeamParameter, n, surface, wavelength_um, m2=1.0) -> BeamAtSurface:
    """The :class:`BeamAtSurface` of reduced parameter ``q`` in the medium of signed index n.

    Parameters
    ----------
    q : BeamParameter
        The reduced beam parameter q̂ just after the surface, mm.
    n : float or 0-d array
        Signed refractive index of the medium after the surface (negative after an odd
        number of mirrors).
    surface : int
        Index of the surface (stored in the result).
    wavelength_um : float
        Vacuum wavelength in µm.
    m2 : float
        Beam quality M² (λ becomes M² λ).

    Returns
    -------
    BeamAtSurface
        radius, waist, waist_position, rayleigh and curvature_radius in mm, arrays of the
        shape of q's arrays (0-d for a scalar beam).
    """
    lam = wavelength_um * 1e-3 * m2
    re_inv, im_inv = q.inverse()
    magnitude = be.abs(n)
    flat = be.abs(re_inv) == 0
    return BeamAtSurface(
        surface=surface,
        radius=be.sqrt(-lam / (math.pi * im_inv)),
        waist=be.sqrt(lam * q.imag / math.pi),
        waist_position=-q.real * n,
        rayleigh=q.imag * magnitude,
        curvature_radius=be.where(flat, math.inf, magnitude / be.where(flat, 1.0, re_inv)),
    )


def propagate_beam(optic, waist, *, wavelength=None, waist_position=None, m2=1.0) -> list:
    """The Gaussian beam after every surface of ``optic`` (1 .. image).

    Parameters
    ----------
    optic : Optic
    waist : float or 0-d array
        Input waist radius w0 (1/e² intensity), mm.
    wavelength : float, optional
        Micrometres; the primary by default.
    waist_position : float, optional
        z(input waist) − z(surface 1), mm (default: on the object, or on surface 1 for an
        object at infinity).
    m2 : float
        Beam quality M² >= 1 (the embedded-Gaussian model: λ becomes M² λ).

    Returns
    -------
    list of BeamAtSurface
        One per surface 1 .. image; the last is the beam on the image surface.
    """
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    q0 = input_parameter(optic, waist, wavelength, waist_position, m2)
    n = signed_indices(optic, wavelength)
    matrices = system_matrices(optic, wavelength)
    return [
        beam_at(q0.transformed(*matrices[i]), n[i], i, wavelength, m2)
        for i in range(1, len(optic.surfaces))
    ]


def image_parameter(optic, waist, *, wavelength=None, waist_position=None, m2=1.0):
    """The reduced q̂ on the image surface (a :class:`BeamParameter`).

    Parameters
    ----------
    optic : Optic
    waist : float or 0-d array
        Input waist radius w0 (1/e² intensity), mm.
    wavelength : float, optional
        Vacuum wavelength in µm; the primary by default.
    waist_position : float, optional
        z(input waist) − z(surface 1), mm (default as :func:`input_parameter`).
    m2 : float
        Beam quality M² >= 1.

    Returns
    -------
    BeamParameter
        q̂ = q / |n| just after the image surface, mm (0-d arrays).
    """
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    q0 = input_parameter(optic, waist, wavelength, waist_position, m2)
    return q0.transformed(*system_matrices(optic, wavelength)[-1])


def _check_beam(waist, m2):
    if not be.is_array(waist) and not (isinstance(waist, (int, float)) and waist > 0):
        raise ConfigurationError(f"beam waist must be a positive number of mm, not {waist!r}")
    if not (isinstance(m2, (int, float)) and math.isfinite(m2) and m2 >= 1):
        raise ConfigurationError(f"beam quality M² must be a finite number >= 1, not {m2!r}")
