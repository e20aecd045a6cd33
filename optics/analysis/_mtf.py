"""The public MTF: :func:`mtf` (polychromatic, converged), and the helpers it shares.

MTFResult, the clear-circle diffraction limit, the lag interpolation and the
geometric MTF live in :mod:`optics.analysis._mtf_core` (re-exported here);
the converged, polychromatic computation in
:mod:`optics.analysis._mtf_converged`.
"""

from __future__ import annotations

from ..trace.prepared import takes_system
from ._mtf_converged import converged_mtf
from ._mtf_core import MTFResult, diffraction_limit, geometric_mtf, interpolate_lags, mtf_from_psf

__all__ = [
    "MTFResult",
    "diffraction_limit",
    "geometric_mtf",
    "interpolate_lags",
    "mtf",
    "mtf_from_psf",
]


@takes_system
def mtf(
    optic,
    fields=None,
    frequencies=None,
    wavelength=None,
    *,
    samples=None,
    grid=None,
    polychromatic=None,
    method=None,
):
    """Diffraction MTF of several fields, tangential and sagittal, with the diffraction limit.

    Polychromatic when the lens has several wavelengths (and neither
    ``wavelength`` nor ``polychromatic=False`` is given): every wavelength
    aimed at the primary wavelength's entrance pupil, the weighted sum of
    the wavelengths' complex OTFs, each PSF placed about the primary
    wavelength's chief ray (lateral colour counts), normalized at zero
    frequency.

    Parameters
    ----------
    optic : Optic
    fields : sequence of (hx, hy), optional
        Normalized fields; the optic's fields by default.
    frequencies : sequence of float, optional
        Cycles/mm; ten steps up to the first field's cutoff by default.
    wavelength : float, optional
        Micrometres: the monochromatic MTF at that wavelength.
    samples : int, optional
        N, pupil samples across the diameter.  By default N doubles from the
        steepest field's wavefront-slope estimate until no value changes by
        more than 0.01 (``accuracy``); a given N is checked against N/2 and a
        :class:`ConvergenceWarning` says when it misses 0.01.
    grid : int, optional
        G, the FFT size (>= 2N keeps the autocorrelation from wrapping); 2N
        by default.
    polychromatic : bool, optional
        False: the primary wavelength alone.
    method : TraceMethod or str, optional
        How the pupil rays are traced (:mod:`optics.trace.methods`);
        :class:`~optics.trace.Streamed` bounds the trace's memory for large
        samplings (the same numbers as one batch).

    Returns
    -------
    MTFResult
        ``diffraction_limit`` is the MTF of the same pupil unaberrated
        (central obscurations and vignetting included).
    """
    return converged_mtf(
        optic,
        fields,
        frequencies,
        wavelength,
        samples=samples,
        grid=grid,
        polychromatic=polychromatic,
        method=method,
    )
