"""Polarization Strehl ratio: the on-axis image of a point through the Jones pupil.

At the chief ray's reference point the image field of input state j is the pupil sum
of each ray's exit amplitude ``sqrt(flux) J[:, j] e^{2πiW}`` (W the OPD in waves, the
pupil sampled on a square grid of the entrance pupil, as an FFT PSF samples it).  The
Strehl ratio compares its intensity with the unaberrated, non-polarizing pupil of the
same amplitudes (all in phase and parallel)::

    S_j = Σ_i |Σ_k a_k J_ij(k) e^{2πiW_k}|² / (Σ_k a_k ‖J_:j(k)‖)²,   a_k = sqrt(flux_k)

so S <= 1, and S = 1 only when every ray arrives with the same phase and polarization.
With J the identity it is the scalar Strehl ratio |Σ_k e^{2πiW_k}|² / K² of the same
samples; the difference is the loss to polarization aberration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..analysis import opd
from ..limits import MAX_PUPIL_SAMPLES, check_size, check_wavelength
from ..sampling import square_grid_inside
from ..trace import prepare
from .jones import jones_pupil
from .trace import polarization_trace

__all__ = ["StrehlResult", "jones_strehl", "polarization_strehl"]


@dataclass(frozen=True)
class StrehlResult:
    """Strehl ratios of one field and wavelength.

    Attributes
    ----------
    x, y, unpolarized : float
        Polarization Strehl ratio for x and y input (entrance double-pole basis) and for
        unpolarized light (the mean intensity over the mean reference).
    scalar : float
        |Σ e^{2πiW}|² / K² of the same pupil samples (no polarization, no amplitudes).
    """

    x: float
    y: float
    unpolarized: float
    scalar: float

    def as_dict(self) -> dict:
        """Plain numbers for JSON."""
        return {"x": self.x, "y": self.y, "unpolarized": self.unpolarized, "scalar": self.scalar}


def jones_strehl(J, waves, weights):
    """Numerators and references of the Strehl ratio of each input state (module docstring).

    Parameters
    ----------
    J : nested 2x2 tuple of arrays, shape (K,)
        Jones matrices of the pupil samples.
    waves : array, shape (K,)
        OPD in waves.
    weights : array, shape (K,)
        Amplitude weights a_k (0 drops a sample).

    Returns
    -------
    peak, reference : tuples of two 0-d arrays
        For input x and y: ``Σ_i |Σ_k a_k J_ij e^{2πiW}|²`` and ``(Σ_k a_k ‖J_:j‖)²``.
    """
    phase = be.fft.expi(2.0 * math.pi * waves) * weights
    peaks, references = [], []
    for j in range(2):
        peak = 0.0
        norm = 0.0
        for i in range(2):
            peak = peak + be.fft.abs2(be.sum(J[i][j] * phase))
            norm = norm + be.fft.abs2(J[i][j] + 0.0j)
        peaks.append(peak)
        references.append(be.sum(weights * be.sqrt(norm)) ** 2)
    return tuple(peaks), tuple(references)


def polarization_strehl(optic, field=(0.0, 0.0), wavelength=None, *, samples=32):
    """Polarization Strehl ratios of one field (the OPD of :func:`optics.analysis.opd`).

    Parameters
    ----------
    optic : Optic
    field : (hx, hy)
        Normalized field.
    wavelength : float, optional
        Micrometres; the primary by default.
    samples : int
        Grid size n across the entrance pupil (the n x n cell centres inside it).

    Returns
    -------
    StrehlResult
    """
    system = prepare(optic)
    samples = check_size(samples, MAX_PUPIL_SAMPLES, "samples", lowest=2)
    wavelength = system.optic.primary_wavelength if wavelength is None else wavelength
    wavelength = check_wavelength(wavelength)
    px, py = square_grid_inside(samples)
    traced = polarization_trace(system, field, (px, py), wavelength)
    waves, valid = opd(system.optic, field[0], field[1], px, py, wavelength)
    valid = be.logical_and(valid, traced.valid)
    weights = be.where(valid, be.sqrt(be.where(valid, traced.flux, 1.0)), 0.0)
    waves = be.where(valid, waves, 0.0)
    peaks, refs = jones_strehl(jones_pupil(traced), waves, weights)
    value = [float(be.to_numpy(be.detach(p / r))) for p, r in zip(peaks, refs)]
    unpolarized = float(be.to_numpy(be.detach((peaks[0] + peaks[1]) / (refs[0] + refs[1]))))
    count = be.sum(be.astype(valid, be.float_dtype()))
    scalar = be.fft.abs2(be.sum(be.where(valid, be.fft.expi(2.0 * math.pi * waves), 0.0)))
    scalar = float(np.asarray(be.to_numpy(be.detach(scalar / (count * count)))))
    return StrehlResult(value[0], value[1], unpolarized, scalar)
