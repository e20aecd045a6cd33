"""Plane and standard (sphere/conic) surfaces with the closed-form intersection.

Sag: z = c r² / (1 + sqrt(1 − (1+k) c² r²)), c = 1/radius, k the conic constant.
Equivalently F(x, y, z) = c (x² + y²) + (1+k) c z² − 2 z = 0, which gives both
the intersection (a quadratic in t) and the normal (∇F) without a square root
of the sag.
"""

from __future__ import annotations

import math

from .. import accel
from .. import backend as be
from .base import Geometry, is_plain, number, register


def curvature_of(radius):
    """1/radius with ``inf`` (a plane) giving 0; keeps tensors attached."""
    if isinstance(radius, (int, float)):
        return 0.0 if math.isinf(radius) else 1.0 / radius
    return 1.0 / radius


def conic_intersect(curvature, conic, x, y, z, L, M, N):
    """Distance to the vertex sheet of a conic; ``(t, hit)``, arrays shaped like x.

    Solves a t² + 2 b t + g = 0 (see :func:`_conic_roots`) for the root where
    the ray crosses the vertex sheet in its direction of travel, whatever its
    start point: before or beyond the centre of curvature, inside a closed
    conic, travelling +z or −z.  The root stays finite (and equals the plane's
    −z/N) as the curvature goes to zero.  Rays that miss (negative
    discriminant) or whose crossing lies on the far sheet are not ``hit``;
    their t is finite garbage so that no NaN reaches a gradient.  The
    direction (L, M, N) must be a unit vector: then a = c (L² + M² + (1+k) N²)
    = c (1 + k N²), which is the constant c on a sphere.
    """
    t, hit, _ = _conic_roots(curvature, conic, x, y, z, L, M, N)
    return t, hit


def _conic_roots(curvature, conic, x, y, z, L, M, N):
    """(t, hit, (b, t1)) of :func:`conic_intersect`: b = c (x L + y M) − N and t1 from the
    ray's point on the tangent plane z = 0, t = t0 + t1 from its start (None: a plane).

    Which root: F = c (x² + y²) + (1+k) c z² − 2 z has ∂F/∂z = 2 ((1+k) c z − 1) < 0
    on the vertex sheet, so a ray travelling +z crosses the vertex sheet where
    ∇F·d = 2 (a t + b) < 0, and a ray travelling −z where it is > 0.  With
    s = sign(N) the wanted root is t = (−b − s √D) / a = g / (s √D − b),
    D = b² − a g: a property of the line and its direction, not of the start
    point.  Each form is free of cancellation where −b and s √D have the same
    sign (b N <= 0: the usual case, and the plane limit) or opposite signs.
    """
    if is_plain(curvature):
        t = -z / N
        return t, be.isfinite(t), None
    c = curvature
    # Transfer to the tangent plane z = 0 first, then solve from there: from a far
    # start (an object metres away) b² and a g are huge and nearly equal, and their
    # difference D loses most of its digits (a 20 m object: 1e-9 mm at the hit);
    # from the plane, g and b are of the surface's own size.  The root is a property
    # of the line, so t = t0 + t1.  A ray parallel to the plane (N = 0) stays put.
    if be.grad_active():  # no NaN may reach a gradient: a parallel ray stays put
        parallel = be.detach(N) == 0.0
        t0 = be.where(parallel, 0.0, -z / be.where(parallel, 1.0, N))
    else:  # a parallel ray goes to infinity, and its t is caught below as a miss
        with be.quiet_float_errors():
            t0 = -z / N
    x, y = accel.add_product(x, t0, L), accel.add_product(y, t0, M)
    # Each full-array operation costs a pass over memory (see docs/performance.md):
    # a sphere (k a plain 0) skips every factor (1 + k); on the plane z is 0.
    sphere = is_plain(conic)
    kp1 = 1.0 + conic
    a = c if sphere else c * (1.0 + conic * (N * N))
    b = c * (x * L + y * M) - N
    g = c * (x * x + y * y)
    disc = b * b - a * g
    # Which form: a mask needs no graph (detached operands are not kept for backward).
    near = be.detach(b) * be.detach(N) <= 0.0
    if be.grad_active():
        # No NaN may arise even where a mask later discards it: it would reach the
        # gradient through the backward pass.  Misses get a finite t (g or b + s√D).
        hit = disc >= 0
        signed_root = be.copysign(be.sqrt(be.where(hit, disc, 0.0)), N)
        near_den = signed_root - b
        near_ok = be.logical_and(be.logical_and(hit, near), near_den != 0)
        far_ok = be.logical_and(be.logical_and(hit, be.logical_not(near)), a != 0)
        # One division of the selected numerator by the selected denominator: the same
        # values as dividing per branch, but autograd keeps two arrays, not four.
        numerator = be.where(near, g, b + signed_root)
        denominator = be.where(near, be.where(near_ok, near_den, 1.0), be.where(far_ok, -a, 1.0))
        t = numerator / denominator
        hit = be.logical_or(near_ok, far_ok)
    else:
        # Without a graph a miss may go through NaN (sqrt of a negative discriminant,
        # 0/0, a root at infinity) and be caught at the end.  Misses get t = 0.
        with be.quiet_float_errors():
            signed_root = be.copysign(be.sqrt(disc), N)
            t = be.where(near, g / (signed_root - b), (b + signed_root) / -a)
        hit = be.isfinite(t)
        t = be.where(hit, t, 0.0)
    # The far sheet of a conic has (1+k) c z >= 1 (normal z-component flips).
    zh = be.detach(t) * be.detach(N)
    hit = be.logical_and(hit, be.detach(c if sphere else kp1 * c) * zh < 1.0)
    # b and t from the plane: b + c t is the incidence cosine either way.
    return t0 + t, hit, (b, t)


def conic_normal(curvature, conic, x, y, z):
    """Unit normal of the conic at (x, y, z) on it, pointing toward −z."""
    if is_plain(curvature):
        zero = be.zeros_like(x)
        return zero, zero, zero - 1.0
    c = curvature
    if is_plain(conic):
        # On a sphere |(c x, c y, c z − 1)|² = c (c r² − 2 z) + 1 = 1: a unit vector
        # already (to round-off at a computed hit point), so no normalization.
        return c * x, c * y, c * z - 1.0
    nx, ny, nz = c * x, c * y, (1.0 + conic) * c * z - 1.0
    inv = 1.0 / be.sqrt(nx * nx + ny * ny + nz * nz)
    return nx * inv, ny * inv, nz * inv


def conic_sag_and_gradient(curvature, conic, x, y):
    """Conic sag and slopes; points outside the conic's domain give non-finite values."""
    c = curvature
    r2 = x * x + y * y
    root = be.sqrt(1.0 - (1.0 + conic) * c * c * r2)
    z = c * r2 / (1.0 + root)
    slope = c / root  # dz/dr / r
    return z, slope * x, slope * y


@register
class Standard(Geometry):
    """Sphere or conic of revolution (``radius = inf`` is a plane).

    Parameters
    ----------
    radius : float or 0-d tensor
        Vertex radius of curvature in mm (positive: centre to the right).
    conic : float or 0-d tensor
        Conic constant k (0 sphere, −1 paraboloid, < −1 hyperboloid).
    """

    type_name = "standard"
    spec_keys = ("radius", "conic")

    def __init__(self, radius=math.inf, conic=0.0):
        self.radius = radius
        self.conic = conic

    # Radius and curvature are two views of one parameter; whichever was set
    # last is stored exactly (so lens files round-trip and curvature can pass
    # through zero while optimizing).
    @property
    def radius(self):
        """Vertex radius in mm (inf for a plane)."""
        if self._radius is not None:
            return self._radius
        c = self._curvature
        return math.inf if is_plain(c) else 1.0 / c

    @radius.setter
    def radius(self, value):
        self._radius, self._curvature = value, None

    @property
    def curvature(self):
        """Vertex curvature 1/radius in 1/mm."""
        if self._curvature is not None:
            return self._curvature
        return curvature_of(self._radius)

    @curvature.setter
    def curvature(self, value):
        self._curvature, self._radius = value, None

    def sag_and_gradient(self, x, y):
        if is_plain(self.curvature):
            zero = be.zeros_like(x)
            return zero, zero, zero
        return conic_sag_and_gradient(self.curvature, self.conic, x, y)

    def intersect(self, x, y, z, L, M, N):
        return conic_intersect(self.curvature, self.conic, x, y, z, L, M, N)

    def normal(self, x, y, z):
        return conic_normal(self.curvature, self.conic, x, y, z)

    def intersect_with_normal(self, x, y, z, L, M, N):
        c = self.curvature
        if is_plain(c) or not is_plain(self.conic):
            return super().intersect_with_normal(x, y, z, L, M, N)
        t, hit, (b, t1) = _conic_roots(c, 0.0, x, y, z, L, M, N)
        return t, hit, _SphereNormal(c, b, t1)

    @classmethod
    def from_spec(cls, spec, where):
        radius = number(spec, "radius", where, math.inf)
        if radius == 0:
            raise_zero_radius(where)
        return cls(radius, number(spec, "conic", where, 0.0))

    def to_spec(self):
        spec = {"radius": be.item(self.radius)}
        if not is_plain(self.conic):
            spec["conic"] = be.item(self.conic)
        return spec


class _SphereNormal:
    """The unit normal (c x, c y, c z − 1) of a sphere, and the incidence cosine at the hit."""

    __slots__ = ("curvature", "b", "t")

    def __init__(self, curvature, b, t):
        self.curvature, self.b, self.t = curvature, b, t

    def __call__(self, x, y, z):
        c = self.curvature
        return c * x, c * y, c * z - 1.0

    def incidence_cosine(self):
        """n · d = c (p + t d) · d − N = b + c t for a unit direction d (2 passes, not 5);
        p the ray's point on the tangent plane, t the distance from there."""
        return self.b + self.curvature * self.t


def raise_zero_radius(where):
    from ..errors import LensFileError

    raise LensFileError(f"{where}: key 'radius' must be nonzero (use inf for a plane)")
