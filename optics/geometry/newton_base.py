"""Surfaces intersected by Newton–Raphson, differentiated by the implicit function theorem.

A surface type supplies its sag s(x, y) and the analytic slopes (s_x, s_y) in
one fused call; this base does everything else.  For a ray from (x0, y0, z0)
along the unit direction (L, M, N) the distance t to the surface is the root of

    F(t) = s(x0 + t L, y0 + t M) - (z0 + t N),
    F_t  = s_x L + s_y M - N,

solved by :func:`optics.solvers.solve_scalar_root` (the one Newton loop of
optics): seeded by the base-conic intersection so it starts in the physical
root's basin, iterated graph-free, and, when gradients are recorded, finished
by one grad-attached correction t = t̄ - F / stopgrad(F_t) that carries the
exact first derivative dt/dθ = -F_θ / F_t.  docs/implicit-differentiation.md
explains the construction and its guarantees.

Rejections at the root (besides the solver's non-finite / non-converged /
tangent): ``near_vertical`` where |n_z| <= C eps (the surface is not a valid
height function there) and ``outside_domain`` where the type says its sag is
not defined (a Chebyshev surface outside its normalization square).  Without
gradients a tangent but converged ray is still a valid intersection; every
other category is invalid on every backend.

Paraxial data see only the base radius (``base_curvature``); real rays see
the whole surface.
"""

from __future__ import annotations

import math
from contextlib import nullcontext

import numpy as np

from .. import backend as be
from ..solvers import NON_CONVERGED, SLOPE_FLOOR_CONSTANT, forced_iterations, solve_scalar_root
from .base import Geometry, Intersection, is_plain
from .conic import Standard, conic_intersect, conic_sag_and_gradient
from .newton_spec import COMMON_KEYS, DEFAULT_MAX_ITER, DEFAULT_TOL

__all__ = ["NewtonRaphsonGeometry", "forced_iterations"]


class NewtonRaphsonGeometry(Geometry):
    """Base of the surface types without a closed-form ray intersection.

    Subclasses implement :meth:`departure` (added to the base conic) or
    override :meth:`sag_and_gradient` whole, and may override :meth:`domain`.
    A subclass whose evaluation needs coefficients converted first sets
    ``self._prepared`` to a :class:`~optics.geometry.newton_cache.PreparedCache`;
    the base keeps it valid for one whole intersection.

    Parameters
    ----------
    radius : float or 0-d tensor
        Base (vertex) radius of curvature in mm; ``inf`` for a plane base.
    conic : float or 0-d tensor
        Base conic constant k.
    tol : float
        Bound on the residual |F| in mm at which a ray counts as converged
        (raised to the dtype's round-off floor where that is larger).
    max_iter : int
        Most Newton steps per solve.
    """

    spec_keys = COMMON_KEYS
    # One parameter, two views, exactly as on the standard surface.
    radius = Standard.radius
    curvature = Standard.curvature

    def __init__(self, radius=math.inf, conic=0.0, *, tol=DEFAULT_TOL, max_iter=DEFAULT_MAX_ITER):
        self.radius = radius
        self.conic = conic
        self.tol = tol
        self.max_iter = max_iter
        self._prepared = None

    # --- the shape -----------------------------------------------------------------

    def conic_part(self, x, y):
        """Base-conic sag and slopes (Python zeros for a plane base), x and y in mm."""
        if is_plain(self.curvature):
            return 0.0, 0.0, 0.0
        return conic_sag_and_gradient(self.curvature, self.conic, x, y)

    def departure(self, x, y):
        """Departure from the base conic and its slopes, arrays shaped like x (mm)."""
        raise NotImplementedError

    def sag_and_gradient(self, x, y):
        """Sag z(x, y) in mm and slopes dz/dx, dz/dy, all shaped like x (one fused pass).

        Parameters
        ----------
        x, y : array, shape (n,)
            Local coordinates in mm.
        """
        z, zx, zy = self.conic_part(x, y)
        d, dx, dy = self.departure(x, y)
        return z + d, zx + dx, zy + dy

    def domain(self, x, y):
        """Boolean mask of points where the sag is defined, or None when it is everywhere."""
        return None

    # --- intersection ----------------------------------------------------------------

    def seed(self, x, y, z, L, M, N):
        """Start of the Newton solve: the base-conic intersection, else the vertex plane, else 0."""
        t, hit = conic_intersect(self.curvature, self.conic, x, y, z, L, M, N)
        plane = -z / N
        return be.where(hit, t, be.where(be.isfinite(plane), plane, 0.0))

    def intersect(self, x, y, z, L, M, N):
        """Distance t (mm) along (L, M, N) to the surface and a hit mask, shaped like x."""
        t, hit, _ = self.intersect_with_normal(x, y, z, L, M, N)
        return t, hit

    def intersect_with_normal(self, x, y, z, L, M, N):
        """``(t, hit, normal)`` of :meth:`solve_intersection` from the base-conic seed."""
        found = self.solve_intersection(x, y, z, L, M, N)
        return found.t, found.hit, found.normal

    def solve_intersection(self, x, y, z, L, M, N, root=None):
        """Intersect by Newton's method; the root and the unconverged rays come back as data.

        Parameters
        ----------
        x, y, z : array
            Ray positions in the local frame, mm.
        L, M, N : array
            Unit ray directions; all six broadcast to one shape.
        root : array, optional
            Flat (n,) distances to start from instead of the base-conic seed
            (the roots of an earlier no-gradient pass; with a forced count of
            zero Newton steps only the implicit correction runs).

        Returns
        -------
        Intersection
            ``t`` (finite everywhere; differentiable for hit rays when
            gradients are recorded), ``hit`` (False for rays the solve
            rejected, see the module docstring), ``normal(xh, yh, zh)`` (the
            slopes of the last Newton evaluation without a gradient, a
            grad-attached evaluation otherwise; the vertex normal for a
            rejected ray), ``root`` (t detached, flat) and ``unconverged``
            (rays the step limit left unconverged, in the broadcast shape).
        """
        shape = tuple(np.broadcast_shapes(*(tuple(a.shape) for a in (x, y, z, L, M, N))))
        rays = [be.reshape(be.broadcast_to(a, shape), (-1,)) for a in (x, y, z, L, M, N)]
        grad = be.grad_active()
        problem = _SurfaceRoot(self, rays)
        # The graph-free iteration's copy: on JAX the geometry and rays go through
        # stop_gradient (no_grad cannot stop a transformation); elsewhere the same object.
        detached = be.detach_all(self)
        primal = problem if detached is self else _SurfaceRoot(detached, rays, detach=True)
        scope = self._prepared.scope() if self._prepared is not None else nullcontext()
        # Rays off the surface's domain make NaN on the way; they are classified, not errors.
        with scope, be.quiet_float_errors():
            with be.no_grad():
                t0 = self.seed(*rays) if root is None else be.detach(root)
            result = solve_scalar_root(
                problem,
                t0,
                tol=self.tol,
                max_iter=self.max_iter,
                name=f"{self.type_name} surface intersection",
                stacklevel=3,
                primal=primal,
            )
        # In a compiled graph (static): a fixed masked step count, no host sync, no gathers;
        # inside a deferred-read trace the counts come later: assume rejections either way.
        counted = result.counted
        clean = counted and result.n_rejected == 0
        hit = result.regular if grad or clean else result.valid & primal.usable
        t = result.t
        if not counted or result.counts.get("non_finite"):
            t = be.where(be.isfinite(be.detach(t)), t, 0.0)
        if grad:
            normal = _AttachedNormal(self, hit, shape, clean)
        else:
            normal = _StoredNormal(primal.slopes, hit, shape, clean)
        unconverged = be.reshape(result.rejected[NON_CONVERGED], shape)
        return Intersection(
            be.reshape(t, shape), be.reshape(hit, shape), normal, be.detach(result.t), unconverged
        )


class _SurfaceRoot:
    """The scalar root problem F(t) = s(x0 + tL, y0 + tM) - (z0 + tN) for a batch of rays."""

    __slots__ = ("geometry", "rays", "abs_n", "slopes", "usable")

    def __init__(self, geometry, rays, detach=False):
        self.geometry = geometry
        self.rays = [be.detach(a) for a in rays] if detach else rays  # x0, y0, z0, L, M, N (n,)
        self.abs_n = be.abs(be.detach(rays[5]))  # |N|, the fixed part of the slope scale
        self.slopes = None  # (s_x, s_y) at each ray's latest t, kept from graph-free passes
        self.usable = None  # not near-vertical and inside the domain, set by reject()

    def evaluate(self, t, subset=None):
        """(F, F_t, scale) at t for all rays or the ``subset`` mask (solver interface)."""
        x0, y0, z0, L, M, N = self.rays if subset is None else [a[subset] for a in self.rays]
        s, sx, sy = self.geometry.sag_and_gradient(x0 + t * L, y0 + t * M)
        a, b = sx * L, sy * M
        residual = s - (z0 + t * N)
        slope = a + b - N
        abs_n = self.abs_n if subset is None else self.abs_n[subset]
        scale = be.abs(a) + be.abs(b) + abs_n
        if not be.grad_active():  # the primal passes: keep slopes for the normal
            if subset is None or self.slopes is None:
                self.slopes = (sx, sy)
            else:
                self.slopes = tuple(
                    be.scatter(old, subset, new) for old, new in zip(self.slopes, (sx, sy))
                )
        return residual, slope, scale

    def correction_terms(self, t, subset=None, mask=None):
        """(F with gradients, F_t detached) at t̄ for the implicit correction.

        Only the residual records gradients: the slope enters the correction
        detached, so it is formed from detached slopes (no product or
        absolute value of the slopes kept for the backward pass).  The sag is
        evaluated at the detached point, so its graph holds the surface
        parameters' part alone (nothing when none requires grad); the
        point's motion enters linearly through the detached slopes (first
        derivatives exact, which is all the correction carries).  With
        ``mask``, rays outside it are evaluated at the vertex (every sag is
        finite there; a NaN in a discarded branch would still poison the
        backward pass) and discarded by the caller; only t and the lateral
        position are replaced, not the six ray arrays.
        """
        x0, y0, z0, L, M, N = self.rays if subset is None else [a[subset] for a in self.rays]
        if mask is not None:
            t = be.where(mask, t, 0.0)
        x, y = x0 + t * L, y0 + t * M
        if mask is not None:
            x, y = be.where(mask, x, 0.0), be.where(mask, y, 0.0)
        # The sag at the detached point (x̄, ȳ) records gradients for the surface's
        # own parameters only; the point's motion enters through the detached slopes:
        # s(x, y) = s(x̄, ȳ) + s_x (x - x̄) + s_y (y - ȳ) has the same value (the
        # differences are exact zeros) and the same first derivatives.
        x_bar, y_bar = be.detach(x), be.detach(y)
        s, sx, sy = self.geometry.sag_and_gradient(x_bar, y_bar)
        sx, sy = be.detach(sx), be.detach(sy)
        residual = s + sx * (x - x_bar) + sy * (y - y_bar) - (z0 + t * N)
        L, M, N = (be.detach(v) for v in (L, M, N))
        return residual, sx * L + sy * M - N

    def evaluate_masked(self, t, mask):
        """(F, F_t, scale) at t where ``mask``; elsewhere at the vertex along +z (discarded)."""
        vertex_ray = (0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
        rays = [be.where(mask, a, b) for a, b in zip(self.rays, vertex_ray)]
        return _SurfaceRoot(self.geometry, rays).evaluate(be.where(mask, t, 0.0))

    def reject(self, t):
        """Graph-free rejections at the root t: non-finite, near-vertical, outside the domain."""
        x0, y0, _, L, M, _ = self.rays
        x, y = x0 + t * L, y0 + t * M
        sx, sy = self.slopes
        g2 = sx * sx + sy * sy
        # |n_z| = 1 / sqrt(1 + g2) <= C eps  <=>  g2 >= 1 / (C eps)^2 - 1
        limit = 1.0 / (SLOPE_FLOOR_CONSTANT * be.machine_eps(g2))
        near_vertical = g2 >= limit * limit - 1.0
        rejected = {"non_finite": ~be.isfinite(x + y + g2), "near_vertical": near_vertical}
        inside = self.geometry.domain(x, y)
        self.usable = ~near_vertical
        if inside is not None:
            rejected["outside_domain"] = ~inside
            self.usable = self.usable & inside
        return rejected


class _StoredNormal:
    """Unit normal from the slopes of the final graph-free Newton evaluation."""

    __slots__ = ("slopes", "hit", "shape", "clean")

    def __init__(self, slopes, hit, shape, clean):
        self.slopes, self.hit, self.shape, self.clean = slopes, hit, shape, clean

    def __call__(self, x, y, z):
        sx, sy = self.slopes
        if not self.clean:
            sx, sy = be.where(self.hit, sx, 0.0), be.where(self.hit, sy, 0.0)
        return _unit_normal(sx, sy, self.shape)


class _AttachedNormal:
    """Unit normal evaluated grad-attached at the (corrected) hit points.

    Through ``be.recompute``: autograd keeps the hit point, not the dozens of
    intermediates of the slope evaluation, and evaluates it again in the
    backward pass (eager torch; issue 17's saved-bytes target).
    """

    __slots__ = ("geometry", "hit", "shape", "clean")

    def __init__(self, geometry, hit, shape, clean):
        self.geometry, self.hit, self.shape, self.clean = geometry, hit, shape, clean

    def __call__(self, x, y, z):
        x, y = be.reshape(x, (-1,)), be.reshape(y, (-1,))
        if not self.clean:
            # Rejected rays are evaluated at the vertex, where every sag is finite:
            # a NaN there would poison the backward pass even behind a where.
            x, y = be.where(self.hit, x, 0.0), be.where(self.hit, y, 0.0)
        # Evaluated again in the backward pass: only x and y are kept for it.
        return be.recompute(self._normal, x, y)

    def _normal(self, x, y):
        _, sx, sy = self.geometry.sag_and_gradient(x, y)
        return _unit_normal(sx, sy, self.shape)


def _unit_normal(sx, sy, shape):
    """(s_x, s_y, -1) / |.|, toward -z, reshaped."""
    inv = 1.0 / be.sqrt(1.0 + sx * sx + sy * sy)
    return tuple(be.reshape(v, shape) for v in (sx * inv, sy * inv, -inv))
