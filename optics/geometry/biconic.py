"""Anamorphic surfaces: ``biconic`` and ``toroidal`` (the usual Zemax definitions).

Biconic, with c_x = 1/radius_x, c_y = 1/radius::

    z = (c_x x² + c_y y²) / (1 + sqrt(1 - (1+k_x) c_x² x² - (1+k_y) c_y² y²))

Toroidal: a curve in the y–z plane, a conic plus even powers of y,

    z_y(y) = c y² / (1 + sqrt(1 - (1+k) c² y²)) + sum_i coefficients[i] y^(2(i+1)),

swept about an axis parallel to y at the radius of rotation R = 1/c_r
(``radius_rotation``; ``inf`` gives a cylinder).  With p = 1 - c_r z_y and
Q = sqrt(p² - c_r² x²) the sag is written without cancellation as

    z = z_y + c_r x² / (p + Q),   dz/dx = c_r x / Q,   dz/dy = z_y' p / Q,

which is finite for c_r = 0.  Both surfaces use the y-section (``radius``,
``conic``) for paraxial data and for the Newton seed.
"""

from __future__ import annotations

import math

from .. import backend as be
from .aspheres import _horner
from .base import number, register
from .conic import curvature_of
from .newton_base import NewtonRaphsonGeometry
from .newton_spec import common_from_spec, common_to_spec, number_list, plain


def _nonzero_radius(spec, key, where):
    from ..errors import LensFileError

    value = number(spec, key, where, math.inf)
    if value == 0:
        raise LensFileError(f"{where}: key '{key}' must be nonzero (use inf for a flat section)")
    return value


@register
class Biconic(NewtonRaphsonGeometry):
    """Different conic sections in x and in y.

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        The y section: radius of curvature (mm) and conic constant.
    radius_x, conic_x : float or 0-d tensor
        The x section.
    tol, max_iter
        Newton settings (see :class:`NewtonRaphsonGeometry`).
    """

    type_name = "biconic"
    spec_keys = NewtonRaphsonGeometry.spec_keys + ("radius_x", "conic_x")

    def __init__(self, radius=math.inf, conic=0.0, radius_x=math.inf, conic_x=0.0, **solver):
        super().__init__(radius, conic, **solver)
        self.radius_x = radius_x
        self.conic_x = conic_x

    def sag_and_gradient(self, x, y):
        cx, cy = curvature_of(self.radius_x), self.curvature
        ax, ay = (1.0 + self.conic_x) * cx * cx, (1.0 + self.conic) * cy * cy
        x2, y2 = x * x, y * y
        root = be.sqrt(1.0 - ax * x2 - ay * y2)
        inv = 1.0 / (1.0 + root)
        z = (cx * x2 + cy * y2) * inv
        # d/dx: 2 c_x x / (1 + R) + z (1+k_x) c_x² x / (R (1 + R))
        common = z * inv / root
        return z, (2.0 * cx * inv + ax * common) * x, (2.0 * cy * inv + ay * common) * y

    @classmethod
    def from_spec(cls, spec, where):
        common = common_from_spec(spec, where)
        return cls(
            radius_x=_nonzero_radius(spec, "radius_x", where),
            conic_x=number(spec, "conic_x", where, 0.0),
            **common,
        )

    def to_spec(self):
        spec = {**common_to_spec(self), "radius_x": plain(self.radius_x)}
        if plain(self.conic_x) != 0:
            spec["conic_x"] = plain(self.conic_x)
        return spec


@register
class Toroidal(NewtonRaphsonGeometry):
    """A y-section curve (conic plus even polynomial) swept around a rotation axis.

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        The y-section curve's vertex radius (mm) and conic constant.
    radius_rotation : float or 0-d tensor
        Distance from the vertex to the rotation axis in mm (``inf``: cylinder).
    coefficients : list of float or 0-d tensor
        coefficients[i] multiplies y^(2(i+1)) in the y-section curve.
    tol, max_iter
        Newton settings (see :class:`NewtonRaphsonGeometry`).
    """

    type_name = "toroidal"
    spec_keys = NewtonRaphsonGeometry.spec_keys + ("radius_rotation", "coefficients")

    def __init__(
        self, radius=math.inf, conic=0.0, radius_rotation=math.inf, coefficients=(), **solver
    ):
        super().__init__(radius, conic, **solver)
        self.radius_rotation = radius_rotation
        self.coefficients = list(coefficients)

    def sag_and_gradient(self, x, y):
        zero = 0.0 * y
        z_y, _, dz_y = self.conic_part(zero, y)
        y2 = y * y
        a = self.coefficients
        z_y = z_y + y2 * _horner(a, y2) + zero
        dz_y = dz_y + 2.0 * _horner([(i + 1) * a_i for i, a_i in enumerate(a)], y2) * y
        cr = curvature_of(self.radius_rotation)
        p = 1.0 - cr * z_y
        q = be.sqrt(p * p - cr * cr * (x * x))
        return z_y + cr * (x * x) / (p + q), cr * x / q, dz_y * p / q

    @classmethod
    def from_spec(cls, spec, where):
        common = common_from_spec(spec, where)
        return cls(
            radius_rotation=_nonzero_radius(spec, "radius_rotation", where),
            coefficients=number_list(spec, "coefficients", where, default=[]),
            **common,
        )

    def to_spec(self):
        spec = {**common_to_spec(self), "radius_rotation": plain(self.radius_rotation)}
        if self.coefficients:
            spec["coefficients"] = plain(self.coefficients)
        return spec
