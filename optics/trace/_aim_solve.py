"""Batched 2×2 problems with central-difference Jacobians, and the aim's continuation solve.

:class:`DifferenceProblem` serves the aim (``AimProblem``) and the field solve (docs/aiming.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .. import backend as be
from ..solvers import newton_2x2, newton_2x2_static, normalized_solve_masked
from .launch import launch_from
from .prepared import trace_to_surface

#: Continuation for the rays Newton misses: first step in s, smallest before giving up, stages.
FIRST_STEP = 0.125
SMALLEST_STEP = 2.0**-10
MAX_STAGES = 64
#: Newton steps per continuation stage (a good prediction converges in 2-4).
STAGE_ITERATIONS = 8


def solve(problem, start, tol, max_iter, kind, chief=None):
    """Newton from ``start``, then continuation for the rays that fail: (p, converged, |R|)."""
    result = problem.newton(start, tol, max_iter)[0]
    p, converged, norm = result.q, result.converged, result.residual_norm
    failed = be.logical_not(converged)
    # Under jax.jit the failures cannot be counted: no continuation, they stay invalid.
    if be.is_abstract(failed) or not be.item(be.any(failed)):
        return p, converged, norm
    sub = problem.subset(failed)
    if kind == "field":  # from the on-axis chief ray (p = 0 on a centred system)
        origin = velocity = be.zeros_like(sub.target)
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
    """Adaptive continuation in s from 0 (solved: ``p``) to 1, one s and step per ray."""
    s = be.zeros_like(p[:, 0])
    step = s + FIRST_STEP
    done = failed = s > 1.0
    for _ in range(MAX_STAGES):
        active = ~done & ~failed
        if not be.item(be.any(active)):
            break
        s_try = be.where(active, be.minimum(s + step, 1.0), s)
        seed = p + velocity * (s_try - s)[:, None]
        seed = be.where(be.isfinite(seed), seed, p)
        result = problem.scaled(s_try, kind).newton(seed, tol, max_iter)[0]
        ok = active & result.converged
        moved = be.where(ok, s_try - s, 1.0)
        velocity = be.where(ok[:, None], (result.q - p) / moved[:, None], velocity)
        p = be.where(ok[:, None], result.q, p)
        s = be.where(ok, s_try, s)
        done = done | (ok & (s >= 1.0))
        step = be.where(ok, 2.0 * step, 0.5 * step)
        failed = failed | (active & ~ok & (step < SMALLEST_STEP))
    return p, done


class DifferenceProblem:
    """R(q) = F(q) − target, q (n, 2), with central-difference ∂F/∂q and Newton.

    Subclasses hold ``target`` and an ``_evaluated`` list; ``points(q)``: F, q (k, n, 2), NaN fails.
    """

    #: The |q| below which the difference step stops shrinking.
    q_scale = 1.0

    def residual_and_jacobian(self, q):
        """R(q) and J(q) from one batched trace (nothing kept)."""
        plus, minus = self._difference_points(q)
        xy = self.points(be.concatenate([q[None], plus, minus]))
        return xy[0] - self.target, _difference_jacobian(xy[1:], plus, minus)

    def residual_keeping_jacobian(self, q):
        """R(q), keeping J(q) for :meth:`jacobian` (asked where R was: one trace, not two)."""
        R, J = self.residual_and_jacobian(q)
        self._evaluated.append((q, J))
        return R

    def jacobian(self, q):
        """∂F/∂q, shape (n, 2, 2), J[k, i, j] = ∂F_i/∂q_j; kept rows at the same q reused."""
        J, found = None, None
        for q_k, J_k in reversed(self._evaluated):
            same = be.all(q_k == q, axis=-1)
            J = J_k if J is None else be.where((same & ~found)[:, None, None], J_k, J)
            found = same if found is None else found | same
        if J is None or be.is_abstract(found) or not be.item(be.all(found)):
            plus, minus = self._difference_points(q)
            J = _difference_jacobian(self.points(be.concatenate([plus, minus])), plus, minus)
        self._evaluated = [(q, J)]
        return J

    def newton(self, start, tol, max_iter, static=None):
        """(Newton result, J at the root or None); ``static``: fixed shape, no host reads."""
        if static is None:
            static = be.is_abstract(start) or be.is_abstract(self.target)
        options = dict(tol=tol, max_iter=max_iter)
        if static:
            return newton_2x2_static(self.residual_and_jacobian, start, **options)
        return newton_2x2(self.residual_keeping_jacobian, self.jacobian, start, **options), None

    def _difference_points(self, q):
        """q ± δ e_j, each shape (2, n, 2) with axis 0 the perturbed coordinate j."""
        # δ = eps^(1/3) · max(|q|, q_scale) balances truncation (∝ δ²) and round-off (∝ eps/δ).
        step = (be.machine_eps(q) ** (1.0 / 3.0)) * be.maximum(
            be.max(be.abs(q), axis=-1), self.q_scale
        )
        zero = be.zeros_like(step)
        offsets = be.stack([be.stack([step, zero], axis=-1), be.stack([zero, step], axis=-1)])
        return q + offsets, q - offsets


def _difference_jacobian(xy, plus, minus):
    """J from F at [plus, minus] (shape (4, n, 2)), divided by the steps as stored."""
    difference = xy[:2] - xy[2:]
    columns = [difference[j] / (plus[j, :, j] - minus[j, :, j])[:, None] for j in (0, 1)]
    return be.stack(columns, axis=-1)


@dataclass(eq=False)
class AimProblem(DifferenceProblem):
    """The local stop point S(p) − target of a flat batch of rays (qx, qy, λ, target)."""

    optic: Any
    qx: Any
    qy: Any
    wavelength: Any
    target: Any
    first_order: Any
    _evaluated: list = field(default_factory=list, init=False)

    def subset(self, rows):
        """The problem of some rays only."""
        names = ("qx", "qy", "wavelength", "target")
        return replace(self, **{name: getattr(self, name)[rows] for name in names})

    def scaled(self, s, kind):
        """The problem with the field (``kind = "field"``) or the target scaled by s (n,)."""
        if kind == "field":
            return replace(self, qx=self.qx * s, qy=self.qy * s)
        return replace(self, target=self.target * s[:, None])

    def points(self, p):
        """Local stop (x, y) in mm for p of shape (k, n, 2); NaN where a ray fails."""
        k, n = int(p.shape[0]), int(p.shape[1])
        px, py = p[..., 0], p[..., 1]
        rays = launch_from(self.optic, self.first_order, self.qx, self.qy, px, py, self.wavelength)
        names = ("x", "y", "z", "L", "M", "N", "wavelength", "opd", "valid")
        flat = {a: be.reshape(be.broadcast_to(getattr(rays, a), (k, n)), (-1,)) for a in names}
        x, y, valid = trace_to_surface(self.optic, rays.replace(**flat), self.optic.stop_index)
        xy = be.reshape(be.stack([x, y], axis=-1), (k, n, 2))
        return be.where(be.reshape(valid, (k, n))[..., None], xy, math.nan)

    def residual(self, p):
        """R(p) = S(p) − target, shape (n, 2)."""
        return self.points(p[None])[0] - self.target
