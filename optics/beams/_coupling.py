"""Fibre coupling: the overlap of the image-side Gaussian beam with a fibre's mode.

The efficiency of a field E into a mode F is η = |∫ E F* dA|² / (∫ |E|² dA ∫ |F|² dA).
For two Gaussian fields exp(−iπ r²/(λ q̂)) on one plane the integrals are closed:
with p = 1/q̂ (reduced, :mod:`optics.beams._gaussian`), it is
η = 4 Im p₁ Im p₂ / ((Re p₁ − Re p₂)² + (Im p₁ + Im p₂)²),
equal to 1 for matched beams;
a fibre's mode at its face has q̂ = i π w_f² / λ (w_f the mode field radius).
"""

from __future__ import annotations

import math

from .. import backend as be
from ..errors import ConfigurationError
from ._gaussian import BeamParameter, image_parameter


def overlap_efficiency(field, mode):
    """η = |Σ E F*|² / (Σ |E|² Σ |F|²) of two sampled fields on one grid (shape (..., N, M)).

    The sums are the overlap integrals on a uniform grid (the area element cancels).

    Parameters
    ----------
    field : complex array, shape (..., N, M)
        Samples of the field E.
    mode : complex array, shape (..., N, M)
        Samples of the mode F on the same grid (broadcast against ``field``).

    Returns
    -------
    array, shape (...)
        η in [0, 1] over the last two axes (the broadcast leading shape of the inputs;
        0-d for two single grids).
    """
    cross = be.sum(field * _conjugate(mode), axis=(-2, -1))
    return be.fft.abs2(cross) / (
        be.sum(be.fft.abs2(field), axis=(-2, -1)) * be.sum(be.fft.abs2(mode), axis=(-2, -1))
    )


def _conjugate(z):
    return be.fft.real(z) - 1j * be.fft.imag(z)


def mode_parameter(mode_field_radius, wavelength) -> BeamParameter:
    """q̂ of a fibre's fundamental mode at its face: i π w_f² / λ (w_f mm, λ µm).

    Parameters
    ----------
    mode_field_radius : float or array
        The mode's 1/e² intensity radius w_f, mm (positive); an array of any shape S.
    wavelength : float
        Vacuum wavelength in µm.

    Returns
    -------
    BeamParameter
        real 0 and imag π w_f² / λ (mm), both of the shape S of ``mode_field_radius``.

    Raises
    ------
    ConfigurationError
        When a non-array ``mode_field_radius`` is not positive.
    """
    if not be.is_array(mode_field_radius) and not mode_field_radius > 0:
        raise ConfigurationError(
            f"mode field radius must be a positive number of mm, not {mode_field_radius!r}"
        )
    imag = math.pi * mode_field_radius**2 / (wavelength * 1e-3)
    return BeamParameter(0.0 * mode_field_radius, imag)


def gaussian_overlap(q1: BeamParameter, q2: BeamParameter):
    """Closed-form overlap efficiency of two coaxial Gaussian fields on one plane (0-d array).

    With p = 1/q̂: η = 4 Im p₁ Im p₂ / ((Re p₁ − Re p₂)² + (Im p₁ + Im p₂)²).

    Parameters
    ----------
    q1, q2 : BeamParameter
        The two reduced beam parameters (mm) on the plane, in one medium.

    Returns
    -------
    array, shape S
        η in [0, 1] (1 for matched beams), S the broadcast shape of the parameters'
        arrays (0-d for scalar beams).
    """
    re1, im1 = q1.inverse()
    re2, im2 = q2.inverse()
    d_re, s_im = re1 - re2, im1 + im2
    return 4 * im1 * im2 / (d_re * d_re + s_im * s_im)


def fibre_coupling(optic, waist, mode_field_radius, *, wavelength=None, waist_position=None):
    """Coupling efficiency of a Gaussian beam through ``optic`` into a fibre at the image.

    Parameters
    ----------
    optic : Optic
        The fibre's face is the image surface, on axis, perpendicular to it.
    waist : float or 0-d array
        Input beam waist radius (1/e² intensity), mm; a TEM00 beam (M² = 1).
    mode_field_radius : float or 0-d array
        The fibre mode's 1/e² intensity radius w_f (half the mode field diameter), mm.
    wavelength : float, optional
        Micrometres; the primary by default.
    waist_position : float, optional
        z(input waist) − z(surface 1), mm (default as :func:`propagate_beam`).

    Returns
    -------
    0-d array
        η in [0, 1]; differentiable in the optic's parameters on torch and jax.
    """
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    q_image = image_parameter(optic, waist, wavelength=wavelength, waist_position=waist_position)
    return gaussian_overlap(q_image, mode_parameter(mode_field_radius, wavelength))
