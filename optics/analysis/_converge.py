"""Sampling chosen by a convergence test, and the accuracy it reached.

The FFT analyses converge as the pupil sampling N grows (the pupil function
is a midpoint rule over N × N cells, the rim a staircase).  By default N
starts where the wavefront slope allows (adjacent samples under a quarter
wave apart) and doubles until the figures at N and at N/2 agree to the tolerance — Strehl
ratio :data:`STREHL_TOLERANCE`, MTF :data:`MTF_TOLERANCE`; the N/2 figures
come from every other sample of the same trace (no second trace), and the
result at N is returned with that difference as its accuracy (the error of
the N/2 sampling, so for first-order convergence twice the error at N).  A
requested N is checked the same way.  When the tolerance is not reached a
:class:`ConvergenceWarning` says so and the accuracy reached is reported.
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import backend as be
from ._psf_core import MAX_SAMPLES, SamplingWarning

__all__ = [
    "ConvergenceWarning",
    "MTF_TOLERANCE",
    "STREHL_TOLERANCE",
    "DEFAULT_MAX_SAMPLES",
    "converge",
]

STREHL_TOLERANCE = 0.005
MTF_TOLERANCE = 0.01
DEFAULT_MAX_SAMPLES = 512
_LOWEST = 8


class ConvergenceWarning(SamplingWarning):
    """A PSF or MTF sampling does not reach the stated accuracy (Strehl 0.005, MTF 0.01)."""


def _difference(a, b):
    a = np.asarray(be.to_numpy(be.detach(a)), dtype=float).ravel()
    b = np.asarray(be.to_numpy(be.detach(b)), dtype=float).ravel()
    finite = np.isfinite(a) & np.isfinite(b)
    return float(np.max(np.abs(a[finite] - b[finite]))) if finite.any() else 0.0


def converge(evaluate, start, tolerance, *, requested=None, maximum=None, what="result"):
    """Evaluate at growing pupil samplings until N and N/2 agree to ``tolerance``.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(n) -> (result, figures, coarse_figures)``: ``figures`` the
        numbers the tolerance applies to (NaN entries are ignored) at N,
        ``coarse_figures`` the same from every other sample of the same trace
        (an N/2 sampling of the pupil, shifted by half a cell: its error is of
        the N/2 level, so their difference bounds the error at N without a
        second trace).
    start : int
        First N of the automatic sequence.
    tolerance : float
    requested : int, optional
        A fixed N: its accuracy is measured, nothing more is traced.
    maximum : int, optional
        Largest automatic N: :data:`DEFAULT_MAX_SAMPLES`, or ``start`` when that
        is larger (at most 1024).
    what : str
        Named in the warning.

    Returns
    -------
    result, accuracy : the result at the last N and max |figures − coarse_figures|.
    """
    if maximum is None:  # 512, or the slope estimate's N when a steep wavefront needs more
        maximum = min(max(DEFAULT_MAX_SAMPLES, 2 * (int(start) // 2)), MAX_SAMPLES)
    maximum = int(maximum)
    if requested is not None:
        requested = int(requested)
        result, figures, coarse = evaluate(requested)
        accuracy = _difference(figures, coarse)
        if accuracy > tolerance:
            warnings.warn(
                f"{what}: with {requested} pupil samples the figures still change by "
                f"{accuracy:.3g} from {requested // 2} samples (tolerance {tolerance:g}); "
                "raise the samples or leave them to the convergence test",
                ConvergenceWarning,
                stacklevel=3,
            )
        return result, accuracy
    n = min(max(2 * _LOWEST, int(start)), maximum)
    while True:
        result, figures, coarse = evaluate(n)
        accuracy = _difference(figures, coarse)
        if accuracy <= tolerance or 2 * n > maximum:
            break
        n *= 2
    if accuracy > tolerance:
        warnings.warn(
            f"{what}: not converged to {tolerance:g} at {n} pupil samples (they change the "
            f"figures by {accuracy:.3g} from {n // 2}); the result may be off by about that much",
            ConvergenceWarning,
            stacklevel=3,
        )
    return result, accuracy
