"""The public PSF: :func:`psf` (polychromatic, converged), and the FFT helpers it shares.

The pupil-sampling and FFT helpers live in :mod:`optics.analysis._psf_core`
(re-exported here for the modules that import them from this one); the
converged, polychromatic computation in :mod:`optics.analysis._psf_converged`.
"""

from __future__ import annotations

from ..trace.prepared import takes_system
from ._psf_converged import converged_psf
from ._psf_core import (
    ALIASING_STEP_WAVES,
    MAX_SAMPLES,
    MIN_SAMPLES,
    PSFResult,
    PupilGrid,
    SamplingWarning,
    check_sampling,
    choose_samples,
    fast_size,
    psf_from_opd,
    pupil_grid,
    sample_pupil,
)

__all__ = [
    "ALIASING_STEP_WAVES",
    "MAX_SAMPLES",
    "MIN_SAMPLES",
    "PSFResult",
    "PupilGrid",
    "SamplingWarning",
    "check_sampling",
    "choose_samples",
    "fast_size",
    "psf",
    "psf_from_opd",
    "pupil_grid",
    "sample_pupil",
]


@takes_system
def psf(
    optic,
    field,
    wavelength=None,
    *,
    samples=None,
    grid=None,
    image_sampling=None,
    polychromatic=None,
    method=None,
):
    """Point spread function and Strehl ratio of one field, converged by default.

    Polychromatic when the lens has several wavelengths (and neither
    ``wavelength`` nor ``polychromatic=False`` is given): every wavelength
    aimed at the primary wavelength's entrance pupil, each PSF placed about
    the primary wavelength's chief-ray image point (lateral colour counts),
    the unit-energy PSFs summed with the lens's wavelength weights and
    normalized to the unaberrated polychromatic peak.

    Parameters
    ----------
    optic : Optic
    field : (hx, hy)
        Normalized field.
    wavelength : float, optional
        Micrometres: a monochromatic PSF at that wavelength.
    samples : int, optional
        N, pupil samples across the diameter.  By default N doubles from the
        wavefront-slope estimate until the Strehl ratio changes by less than
        0.005; a given N is checked against N/2 (``accuracy``) and a
        :class:`ConvergenceWarning` says when it misses 0.005.
    grid : int, optional
        M, image pixels across (the window stays the automatic one: 1.25 ×
        the geometric spot radius or 20 Airy radii, whichever is wider).
    image_sampling : float, optional
        Largest PSF pixel asked for, in mm (quarter of the shortest
        wavelength's Airy radius by default).
    polychromatic : bool, optional
        False: the primary wavelength alone.
    method : TraceMethod or str, optional
        How the pupil rays are traced (:mod:`optics.trace.methods`);
        :class:`~optics.trace.Streamed` bounds the trace's memory for large
        samplings (the same numbers as one batch).

    Returns
    -------
    PSFResult
    """
    return converged_psf(
        optic,
        field,
        wavelength,
        samples=samples,
        grid=grid,
        image_sampling=image_sampling,
        polychromatic=polychromatic,
        method=method,
    )
