"""The geometry interface every surface shape implements.

A geometry works in the surface's local frame (vertex at the origin, optical
axis along +z).  Parameters are plain attributes holding Python floats,
nested lists of floats, or 0-d tensors when a parameter is being optimized;
code reads them through ``be`` so either works.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ..errors import LensFileError


class Intersection(NamedTuple):
    """What a ray-surface intersection returns to the trace (local frame).

    Attributes
    ----------
    t : array
        Distance along the ray to the surface, mm, in the rays' broadcast shape.
    hit : bool array
        False where the ray misses (or the solve rejected it).
    normal : callable
        ``normal(xh, yh, zh) -> (nx, ny, nz)``, the unit normal at the hit points.
    root : array or None
        The detached flat (n,) root of an iterative solve, to seed a later
        pass (:meth:`NewtonRaphsonGeometry.solve_intersection`); None for
        closed forms.
    unconverged : bool array or None
        Rays an iterative solve's step limit left unconverged; None for closed forms.
    """

    t: Any
    hit: Any
    normal: Any
    root: Any = None
    unconverged: Any = None


class Geometry:
    """Base class of surface shapes.

    Subclasses set ``type_name`` (the lens-file ``type``) and ``spec_keys``
    (their own lens-file keys), and implement :meth:`sag_and_gradient`,
    :meth:`intersect` and :meth:`from_spec` / :meth:`to_spec`.
    """

    type_name: str = ""
    spec_keys: tuple = ()

    # Paraxial data see only the base sphere/conic of a surface.
    @property
    def base_curvature(self):
        """Vertex curvature 1/radius in 1/mm (0 for a plane)."""
        return self.curvature

    def sag_and_gradient(self, x, y):
        """Sag z(x, y) in mm and its slopes dz/dx, dz/dy, each shaped like x."""
        raise NotImplementedError

    def sag(self, x, y):
        """Sag z(x, y) in mm."""
        return self.sag_and_gradient(x, y)[0]

    def intersect(self, x, y, z, L, M, N):
        """Distance t along (L, M, N) from (x, y, z) to the surface, and a hit mask.

        All arguments are local-frame arrays of one shape; returns ``(t, hit)``.
        """
        raise NotImplementedError

    def intersect_with_normal(self, x, y, z, L, M, N):
        """``(t, hit, normal)``: :meth:`intersect` plus a function giving the normal at the hit.

        ``normal(xh, yh, zh)`` returns the unit normal at the hit points.  The
        default is :meth:`normal`; a geometry whose solve already evaluated the
        slopes at the hit (the Newton types) returns them instead of
        evaluating the surface again.
        """
        t, hit = self.intersect(x, y, z, L, M, N)
        return t, hit, self.normal

    def solve_intersection(self, x, y, z, L, M, N, root=None):
        """:meth:`intersect_with_normal` as an :class:`Intersection` (the trace's one call).

        Closed-form types have no root to reuse (``root`` is ignored) and
        nothing left unconverged; the Newton types override this.
        """
        t, hit, normal = self.intersect_with_normal(x, y, z, L, M, N)
        return Intersection(t, hit, normal)

    def normal(self, x, y, z):
        """Unit surface normal (nx, ny, nz) at a point on the surface, pointing toward -z."""
        from .. import backend as be

        _, zx, zy = self.sag_and_gradient(x, y)
        inv = 1.0 / be.sqrt(1.0 + zx * zx + zy * zy)
        return zx * inv, zy * inv, -inv

    @classmethod
    def from_spec(cls, spec: dict, where: str) -> Geometry:
        """Build from a lens-file surface table (keys already checked against spec_keys)."""
        raise NotImplementedError

    def to_spec(self) -> dict:
        """The lens-file keys (besides ``type``) that reproduce this geometry."""
        raise NotImplementedError


def number(spec, key, where, default=None, *, positive=False):
    """Read a real number from a lens-file table, or raise LensFileError naming the key."""
    value = spec.get(key, default)
    if value is None:
        raise LensFileError(f"{where}: missing key '{key}'")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if not hasattr(value, "dtype"):
            raise LensFileError(f"{where}: key '{key}' must be a number, not {value!r}")
    if positive and not value > 0:
        raise LensFileError(f"{where}: key '{key}' must be positive, not {value!r}")
    return value


def is_plain(value, number=0) -> bool:
    """True when ``value`` is a Python number equal to ``number``.

    Shape code skips work for plain constants (a plane, a sphere's conic 0, a
    zero term); a tensor parameter is never skipped, even when it is 0,
    because it may be being optimized.
    """
    return isinstance(value, (int, float)) and value == number


GEOMETRY_TYPES: dict[str, type] = {}


def register(cls):
    """Class decorator adding a geometry to the lens-file type registry."""
    GEOMETRY_TYPES[cls.type_name] = cls
    return cls
