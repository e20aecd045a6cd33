"""The batched stop-point problem of real aiming and its solve (helpers of :mod:`.aim`).

One 2×2 system per ray: the residual R(p) = S(p) − target (S the local stop
point in mm of the ray launched with effective pupil coordinates p), its
central-difference Jacobian in the same batched trace, Newton through
:func:`optics.solvers.newton_2x2`, and the adaptive continuation that rescues
fields and rays the direct solve misses.  See :mod:`optics.trace.aim`.
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend as be
from ..solvers import (
    ROUND_OFF_CONSTANT,
    SINGULAR_CONSTANT,
    newton_2x2,
    newton_2x2_static,
    normalized_solve_masked,
)
from .launch import launch_rays
from .loop import trace_to_surface

#: Continuation for rays the direct solve misses: first step in s, smallest step
#: before a ray is given up, most stages.
FIRST_STEP = 0.125
SMALLEST_STEP = 2.0**-10
MAX_STAGES = 64
#: Newton steps per continuation stage (a good prediction converges in 2-4).
STAGE_ITERATIONS = 8


def solve(problem, start, tol, max_iter, kind, chief=None):
    """Newton from ``start``; rays that fail go again by continuation (see module notes).

    Returns the solution, the converged mask and |R| at the solution.
    """
    result = problem.newton(start, tol, max_iter)
    p, converged, norm = result.q, result.converged, result.residual_norm
    failed = be.logical_not(converged)
    # Under jax.jit the failures cannot be counted: no continuation, they stay invalid.
    if be.is_abstract(failed) or not be.item(be.any(failed)):
        return p, converged, norm
    sub = problem.subset(failed)
    if kind == "field":  # from the on-axis chief ray (p = 0 on a centred system)
        origin = be.zeros_like(sub.target)
        velocity = be.zeros_like(origin)
    else:  # from the chief ray, first along its linear prediction
        origin = chief[failed]
        velocity, singular = normalized_solve_masked(sub.jacobian(origin), sub.target)
        velocity = be.where(singular[:, None] | ~be.isfinite(velocity), 0.0, velocity)
    q, ok = _continue(sub, origin, velocity, tol, min(max_iter, STAGE_ITERATIONS), kind)
    R = sub.residual(q)
    # Back to every ray: row k of the subset is the k-th failed ray.
    rows = be.asarray(np.maximum(np.cumsum(be.to_numpy(failed)) - 1, 0))
    took = failed & ok[rows]
    norm = be.where(failed, be.hypot(R[:, 0], R[:, 1])[rows], norm)
    return be.where(took[:, None], q[rows], p), converged | took, norm


def _continue(problem, p, velocity, tol, max_iter, kind):
    """Adaptive continuation in s from 0 (solved: ``p``) to 1, one s and step per ray.

    Each stage predicts p(s + ds) ≈ p(s) + ds · dp/ds (the secant of the last
    accepted stage) and corrects by Newton; a stage that fails halves the ray's
    step, one that succeeds doubles it.  A ray whose step falls below
    :data:`SMALLEST_STEP` has failed.
    """
    s = be.zeros_like(p[:, 0])
    step = s + FIRST_STEP
    done = s > 1.0
    failed = done
    for _ in range(MAX_STAGES):
        active = ~done & ~failed
        if not be.item(be.any(active)):
            break
        s_try = be.where(active, be.minimum(s + step, 1.0), s)
        seed = p + velocity * (s_try - s)[:, None]
        seed = be.where(be.isfinite(seed), seed, p)
        result = problem.scaled(s_try, kind).newton(seed, tol, max_iter)
        ok = active & result.converged
        moved = be.where(ok, s_try - s, 1.0)
        velocity = be.where(ok[:, None], (result.q - p) / moved[:, None], velocity)
        p = be.where(ok[:, None], result.q, p)
        s = be.where(ok, s_try, s)
        done = done | (ok & (s >= 1.0))
        step = be.where(ok, 2.0 * step, 0.5 * step)
        failed = failed | (active & ~ok & (step < SMALLEST_STEP))
    return p, done


class AimProblem:
    """The stop residual and its Jacobian for a flat batch of rays (qx, qy, λ, target)."""

    def __init__(self, optic, qx, qy, wavelength, target, first_order):
        self.optic, self.first_order = optic, first_order
        self.qx, self.qy, self.wavelength, self.target = qx, qy, wavelength, target
        self._evaluated = []

    def subset(self, rows):
        """The problem of some rays only."""
        return AimProblem(
            self.optic,
            self.qx[rows],
            self.qy[rows],
            self.wavelength[rows],
            self.target[rows],
            self.first_order,
        )

    def scaled(self, s, kind):
        """The problem with the field (``kind = "field"``) or the target scaled by s (n,)."""
        if kind == "field":
            return AimProblem(
                self.optic, self.qx * s, self.qy * s, self.wavelength, self.target, self.first_order
            )
        return AimProblem(
            self.optic,
            self.qx,
            self.qy,
            self.wavelength,
            self.target * s[:, None],
            self.first_order,
        )

    def newton(self, start, tol, max_iter):
        """:func:`optics.solvers.newton_2x2` on this problem (R and J in one batched trace).

        Under ``jax.jit`` or ``jax.vmap`` (abstract values) the fixed-shape
        :func:`optics.solvers.newton_2x2_static` runs instead.
        """
        if be.is_abstract(start) or be.is_abstract(self.target):
            result, _ = newton_2x2_static(
                self._residual_with_jacobian,
                start,
                tol=tol,
                max_iter=max_iter,
                round_off_constant=ROUND_OFF_CONSTANT,
                singular_constant=SINGULAR_CONSTANT,
            )
            return result
        return newton_2x2(
            self.residual_and_jacobian,
            self.jacobian,
            start,
            tol=tol,
            max_iter=max_iter,
            round_off_constant=ROUND_OFF_CONSTANT,
            singular_constant=SINGULAR_CONSTANT,
        )

    def stop_xy(self, p):
        """Local stop (x, y) in mm for p of shape (k, n, 2); NaN where a ray fails."""
        k, n = int(p.shape[0]), int(p.shape[1])
        rays = launch_rays(
            self.optic,
            self.qx,
            self.qy,
            p[..., 0],
            p[..., 1],
            self.wavelength,
            self.first_order,
        )
        rays = rays.replace(
            **{
                name: be.reshape(be.broadcast_to(getattr(rays, name), (k, n)), (-1,))
                for name in ("x", "y", "z", "L", "M", "N", "wavelength", "opd", "valid")
            }
        )
        x, y, valid = trace_to_surface(self.optic, rays, self.optic.stop_index)
        xy = be.reshape(be.stack([x, y], axis=-1), (k, n, 2))
        return be.where(be.reshape(valid, (k, n))[..., None], xy, math.nan)

    def residual(self, p):
        """R(p) = S(p) − target, shape (n, 2)."""
        return self.stop_xy(p[None])[0] - self.target

    def _residual_with_jacobian(self, p):
        """(R(p), J(p)) from one batched trace, nothing kept (for the fixed-shape solve)."""
        plus, minus = _difference_points(p)
        xy = self.stop_xy(be.concatenate([p[None], plus, minus]))
        return xy[0] - self.target, _difference_jacobian(xy[1:], plus, minus)

    def residual_and_jacobian(self, p):
        """R(p), tracing the four difference rays of J(p) in the same batch (J kept)."""
        plus, minus = _difference_points(p)
        xy = self.stop_xy(be.concatenate([p[None], plus, minus]))
        self._evaluated.append((p, _difference_jacobian(xy[1:], plus, minus)))
        return xy[0] - self.target

    def jacobian(self, p):
        """Central-difference ∂S/∂p, shape (n, 2, 2); from a kept evaluation at p if any."""
        J, found = None, None
        for p_k, J_k in reversed(self._evaluated):
            same = be.all(p_k == p, axis=-1)
            J = J_k if J is None else be.where((same & ~found)[:, None, None], J_k, J)
            found = same if found is None else found | same
        if J is None or be.is_abstract(found) or not be.item(be.all(found)):
            plus, minus = _difference_points(p)
            J = _difference_jacobian(self.stop_xy(be.concatenate([plus, minus])), plus, minus)
        self._evaluated = [(p, J)]
        return J


def _difference_points(p):
    """p ± δ e_j, each shape (2, n, 2), axis 0 the perturbed coordinate j."""
    step = (be.machine_eps(p) ** (1.0 / 3.0)) * be.maximum(be.max(be.abs(p), axis=-1), 1.0)
    zero = be.zeros_like(step)
    offsets = be.stack([be.stack([step, zero], axis=-1), be.stack([zero, step], axis=-1)])
    return p + offsets, p - offsets


def _difference_jacobian(xy, plus, minus):
    """J from the stop (x, y) of [plus, minus] (shape (4, n, 2))."""
    difference = xy[:2] - xy[2:]
    columns = [difference[j] / (plus[j, :, j] - minus[j, :, j])[:, None] for j in (0, 1)]
    return be.stack(columns, axis=-1)
