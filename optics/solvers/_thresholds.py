"""Dtype-aware thresholds for the solvers, each a constant times machine epsilon.

No solver in optics hard-codes an absolute tiny threshold: every
floor, round-off tolerance and singularity test is ``constant * eps`` where
``eps = be.machine_eps(x)`` of the dtype being worked in, so the same code is
right in float64 (eps = 2**-52) and float32 (eps = 2**-23).  The constants
live here, next to the reasoning that sizes them.
"""

from __future__ import annotations

from optics import backend as be

#: Slope floor C in tau = C * eps * max(1, scale).  A surface slope dF/dt is
#: a sum of terms whose magnitudes add up to ``scale`` (|s_x L| + |s_y M| + |N|);
#: each carries a round-off of about eps times its size, so a slope smaller
#: than a few tens of eps * scale has no significant digit left: the ray grazes
#: the surface.  16 leaves room for the ~4 terms and their products.
SLOPE_FLOOR_CONSTANT = 16.0

#: Round-off tolerance C' in tol_eff = max(tol, C' * eps * max(1, |t|)).  A
#: residual built from lengths of size |t| cannot be resolved below a few eps
#: times |t| (the best float t still leaves |F| ~ eps * |t| * |F_t|), so asking
#: for 1e-10 in float32 would flag every ray as non-converged.
ROUND_OFF_CONSTANT = 16.0

#: Singularity constant C in rho_F <= C * eps for a 2x2 Jacobian.  For a 2x2
#: matrix rho_F = s1 s2 / (s1**2 + s2**2) ~ 1 / cond, and a solve loses about
#: cond * eps of relative accuracy, so an accepted matrix has a solve accurate
#: to ~1 / C = 0.4 % at worst (cond <= 3.3e4 in float32, 1.8e13 in float64).
SINGULAR_CONSTANT = 256.0


def slope_floor(scale, constant=SLOPE_FLOOR_CONSTANT):
    """Magnitude tau = C * eps * max(1, scale) below which a slope is round-off.

    Parameters
    ----------
    scale : array, shape (n,)
        Non-negative magnitude of the terms that make up the slope.
    constant : float
        The multiple C of machine epsilon.

    Returns
    -------
    array, shape (n,)
        tau, in the dtype of ``scale``.
    """
    return constant * be.machine_eps(scale) * be.maximum(be.abs(scale), 1.0)


def floor_slope(slope, tau):
    """Slope pushed away from zero to magnitude >= tau, keeping its sign.

    A small negative slope stays negative (flipping it would reverse the
    Newton step); zero counts as positive.  NaN stays NaN.

    Parameters
    ----------
    slope, tau : array, shape (n,)
        The slope dF/dt and the floor from :func:`slope_floor`.

    Returns
    -------
    array, shape (n,)
    """
    return be.where(
        slope >= 0, be.maximum(slope, tau), be.where(slope < 0, be.minimum(slope, -tau), slope)
    )


def roundoff_tolerance(tol, t, constant=ROUND_OFF_CONSTANT):
    """Residual tolerance raised to the round-off floor: max(tol, C' * eps * max(1, |t|)).

    Parameters
    ----------
    tol : float
        Requested absolute tolerance on the residual.
    t : array, shape (n,)
        Current iterate; its dtype sets eps and its size the floor.
    constant : float
        The multiple C' of machine epsilon.

    Returns
    -------
    array, shape (n,)
    """
    return be.maximum(constant * be.machine_eps(t) * be.maximum(be.abs(t), 1.0), tol)


def singular_threshold(x, constant=SINGULAR_CONSTANT) -> float:
    """C * eps for the dtype of ``x``: the condition ratio at or below which J is singular."""
    return constant * be.machine_eps(x)
