"""The error of a real-image-height field solve that did not converge (eager path only)."""

from __future__ import annotations

import math

import numpy as np

from .. import backend as be
from ..errors import SolveError


def raise_if_failed(result, targets, field_scale, tol, max_iter):
    """Raise SolveError naming the first field of ``result`` that did not converge.

    Parameters
    ----------
    result : Newton2x2Result
        The solve's outcome for m fields (values readable on the host).
    targets : array, shape (m, 2)
        The requested image heights in mm.
    field_scale : float
        The largest field magnitude in mm (0: no normalized height in the message).
    tol : float
        The tolerance on |I - h| in mm.
    max_iter : int
        The most Newton steps the solve had.

    Raises
    ------
    SolveError
        When any field did not converge; the message names the field, the
        reason (missed surface, singular Jacobian, stalled line search, too
        few iterations) and the residual.
    """
    converged = be.to_numpy(result.converged)
    if converged.all():
        return
    k = int(np.flatnonzero(~converged)[0])
    target = be.to_numpy(be.detach(targets))[k]
    norm = float(be.to_numpy(result.residual_norm)[k])
    where = f"field at image height (x, y) = ({target[0]:.9g}, {target[1]:.9g}) mm"
    if field_scale > 0:
        where += f" (normalized ({target[0] / field_scale:.6g}, "
        where += f"{target[1] / field_scale:.6g}))"
    if not math.isfinite(norm):
        reason = "the chief ray misses a surface or is totally internally reflected"
    elif bool(be.to_numpy(result.singular)[k]):
        reason = "the Jacobian dI/dq is singular (x and y responses are degenerate)"
    elif bool(be.to_numpy(result.stalled)[k]):
        reason = "no damped Newton step reduces the residual"
    else:
        reason = f"no convergence in {max_iter} Newton iterations"
    raise SolveError(
        f"real-image-height field solve failed for the {where}: {reason}; "
        f"chief-ray residual |I - h| = {norm:.3e} mm (tolerance {tol:.3e} mm)"
    )
