"""Sampling chosen by a convergence test, and the accuracy it reached.

The FFT analyses converge as the pupil sampling N grows (the pupil function
is a midpoint rule over N × N cells, the rim a staircase).  By default N
starts where the wavefront slope allows (adjacent samples under a quarter
wave apart) and doubles until the figures of two successive samplings agree
to the tolerance — Strehl ratio :data:`STREHL_TOLERANCE`, MTF
:data:`MTF_TOLERANCE`; the finer result is returned with that difference as
its accuracy (for first-order convergence the difference is the finer
result's error, for faster convergence an overestimate).  A requested N is
checked the same way against N/2.  When the tolerance is not reached a
:class:`ConvergenceWarning` says so and the accuracy reached is reported.
"""

from __future__ import annotations

import math
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
    """Run ``evaluate`` at growing pupil samplings until two agree to ``tolerance``.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(n) -> (result, figures)``; ``figures`` an array of the
        numbers the tolerance applies to (NaN entries are ignored).
    start : int
        First N of the automatic sequence.
    tolerance : float
    requested : int, optional
        A fixed N: evaluated together with N/2 to measure its accuracy.
    maximum : int, optional
        Largest automatic N: :data:`DEFAULT_MAX_SAMPLES`, or ``start`` when that
        is larger (at most 1024).
    what : str
        Named in the warning.

    Returns
    -------
    result, accuracy : the finest result and max |figures(N) − figures(N/2)|.
    """
    if maximum is None:  # 512, or the slope estimate's N when a steep wavefront needs more
        maximum = min(max(DEFAULT_MAX_SAMPLES, 2 * (int(start) // 2)), MAX_SAMPLES)
    maximum = int(maximum)
    if requested is not None:
        requested = int(requested)
        coarse = max(_LOWEST, requested // 2)
        result, figures = evaluate(requested)
        accuracy = 0.0 if coarse >= requested else _difference(figures, evaluate(coarse)[1])
        if accuracy > tolerance:
            warnings.warn(
                f"{what}: with {requested} pupil samples the figures still change by "
                f"{accuracy:.3g} from {coarse} samples (tolerance {tolerance:g}); raise the "
                "samples or leave them to the convergence test",
                ConvergenceWarning,
                stacklevel=3,
            )
        return result, accuracy
    n = min(max(_LOWEST, int(start)), max(_LOWEST, maximum // 2))
    result, figures = evaluate(n)
    accuracy = math.inf
    while 2 * n <= maximum:
        n *= 2
        finer, finer_figures = evaluate(n)
        accuracy = _difference(finer_figures, figures)
        result, figures = finer, finer_figures
        if accuracy <= tolerance:
            return result, accuracy
    warnings.warn(
        f"{what}: not converged to {tolerance:g} at {n} pupil samples (the last doubling "
        f"changed the figures by {accuracy:.3g}); the result may be off by about that much",
        ConvergenceWarning,
        stacklevel=3,
    )
    return result, accuracy
