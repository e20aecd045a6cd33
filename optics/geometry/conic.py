"""Plane and standard (sphere/conic) surfaces with the closed-form intersection.

Sag: z = c r² / (1 + sqrt(1 − (1+k) c² r²)), c = 1/radius, k the conic constant.
Equivalently F(x, y, z) = c (x² + y²) + (1+k) c z² − 2 z = 0, which gives both
the intersection (a quadratic in t) and the normal (∇F) without a square root
of the sag.
"""

from __future__ import annotations

import math

from .. import backend as be
from .base import Geometry, number, register


def _is_plain_zero(value) -> bool:
    return isinstance(value, (int, float)) and value == 0


def curvature_of(radius):
    """1/radius with ``inf`` (a plane) giving 0; keeps tensors attached."""
    if isinstance(radius, (int, float)):
        return 0.0 if math.isinf(radius) else 1.0 / radius
    return 1.0 / radius


def conic_intersect(curvature, conic, x, y, z, L, M, N):
    """Distance to the vertex sheet of a conic; ``(t, hit)``, arrays shaped like x.

    Solves a t² + 2 b t + g = 0 with the cancellation-free root
    t = −g / (b + sign(b) sqrt(b² − a g)), which is the root that stays finite
    (and equals the plane's −z/N) as the curvature goes to zero.  Rays that miss
    (negative discriminant) or land on the far sheet are not ``hit``; their t is
    finite garbage so that no NaN reaches a gradient.
    """
    if _is_plain_zero(curvature):
        t = -z / N
        return t, be.isfinite(t)
    c = curvature
    kp1 = 1.0 + conic
    a = c * (L * L + M * M + kp1 * N * N)
    b = c * (x * L + y * M + kp1 * z * N) - N
    g = c * (x * x + y * y + kp1 * z * z) - 2.0 * z
    disc = b * b - a * g
    hit = disc >= 0
    root = be.sqrt(be.where(hit, disc, 0.0))
    denominator = b + be.copysign(root, b)
    hit = be.logical_and(hit, denominator != 0)
    t = -g / be.where(hit, denominator, 1.0)
    # The far sheet of a closed conic has (1+k) c z >= 1 (normal z-component flips).
    zh = z + t * N
    hit = be.logical_and(hit, kp1 * c * zh < 1.0)
    return t, hit


def conic_normal(curvature, conic, x, y, z):
    """Unit normal of the conic at (x, y, z) on it, pointing toward −z."""
    if _is_plain_zero(curvature):
        zero = be.zeros_like(x)
        return zero, zero, zero - 1.0
    c = curvature
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
        return math.inf if _is_plain_zero(c) else 1.0 / c

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
        if _is_plain_zero(self.curvature):
            zero = be.zeros_like(x)
            return zero, zero, zero
        return conic_sag_and_gradient(self.curvature, self.conic, x, y)

    def intersect(self, x, y, z, L, M, N):
        return conic_intersect(self.curvature, self.conic, x, y, z, L, M, N)

    def normal(self, x, y, z):
        return conic_normal(self.curvature, self.conic, x, y, z)

    @classmethod
    def from_spec(cls, spec, where):
        radius = number(spec, "radius", where, math.inf)
        if radius == 0:
            raise_zero_radius(where)
        return cls(radius, number(spec, "conic", where, 0.0))

    def to_spec(self):
        spec = {"radius": _plain(self.radius)}
        if not _is_plain_zero(self.conic):
            spec["conic"] = _plain(self.conic)
        return spec


def raise_zero_radius(where):
    from ..errors import LensFileError

    raise LensFileError(f"{where}: key 'radius' must be nonzero (use inf for a plane)")


def _plain(value):
    """A parameter as a Python float (detached) for writing lens files."""
    return value if isinstance(value, (int, float)) else float(be.to_numpy(value))
