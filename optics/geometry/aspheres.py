"""Rotationally symmetric polynomial aspheres: ``even_asphere`` and ``odd_asphere``.

Both are a base conic plus a power series in the radial distance r (mm)::

    even_asphere:  z = conic(r) + sum_i coefficients[i] r^(2(i+1))
    odd_asphere:   z = conic(r) + sum_i coefficients[i] r^(i+1)

The even series is a polynomial in r² = x² + y², so its slopes
dz/dx = 2x dP/d(r²) never divide by r.  The odd series has the cone term
coefficients[0] r, whose slope x/r has no limit at the vertex; there the
slope is defined as 0 (the symmetric choice), and r itself is formed with a
guarded square root so that neither the value nor its autograd is infinite at
r = 0.
"""

from __future__ import annotations

from .. import backend as be
from .base import register
from .newton_base import NewtonRaphsonGeometry
from .newton_spec import common_from_spec, common_to_spec, number_list, plain


def _horner(coefficients, u):
    """sum_k coefficients[k] u^k by Horner's rule (u an array; a scalar zero for no terms)."""
    total = 0.0
    for c in reversed(coefficients):
        total = total * u + c
    return total


class _RadialAsphere(NewtonRaphsonGeometry):
    """Shared construction and lens-file handling of the power-series aspheres."""

    spec_keys = NewtonRaphsonGeometry.spec_keys + ("coefficients",)

    def __init__(self, radius, conic=0.0, coefficients=(), **solver):
        super().__init__(radius, conic, **solver)
        self.coefficients = list(coefficients)

    @classmethod
    def from_spec(cls, spec, where):
        common = common_from_spec(spec, where)
        return cls(coefficients=number_list(spec, "coefficients", where, default=[]), **common)

    def to_spec(self):
        return {**common_to_spec(self), "coefficients": plain(self.coefficients)}


@register
class EvenAsphere(_RadialAsphere):
    """Conic plus an even power series: coefficients[i] multiplies r^(2(i+1)).

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        Base conic (mm, unitless).
    coefficients : list of float or 0-d tensor
        coefficients[i] in mm^(1 - 2(i+1)): the r², r⁴, r⁶ ... terms.
    tol, max_iter
        Newton settings (see :class:`NewtonRaphsonGeometry`).
    """

    type_name = "even_asphere"

    def departure(self, x, y):
        r2 = x * x + y * y
        a = self.coefficients
        # P(r²) = r² sum_i a_i (r²)^i ;  dP/d(r²) = sum_i (i+1) a_i (r²)^i
        value = r2 * _horner(a, r2)
        slope = _horner([(i + 1) * a_i for i, a_i in enumerate(a)], r2)
        twice = 2.0 * slope
        return value, twice * x, twice * y


@register
class OddAsphere(_RadialAsphere):
    """Conic plus a full power series: coefficients[i] multiplies r^(i+1).

    The slope at the vertex is finite: the cone term's x/r is taken as 0 at
    r = 0.

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        Base conic (mm, unitless).
    coefficients : list of float or 0-d tensor
        coefficients[i] in mm^(-i): the r, r², r³ ... terms.
    tol, max_iter
        Newton settings (see :class:`NewtonRaphsonGeometry`).
    """

    type_name = "odd_asphere"

    def departure(self, x, y):
        r2 = x * x + y * y
        positive = r2 > 0
        root = be.sqrt(be.where(positive, r2, 1.0))  # guarded: finite autograd at r = 0
        r = be.where(positive, root, 0.0)
        a = self.coefficients
        if not a:
            zero = 0.0 * x
            return zero, zero, zero
        value = r * _horner(a, r)
        # dP/dr * (1/r) = a_0 / r + sum_{i>=1} (i+1) a_i r^(i-1)
        inv_r = be.where(positive, 1.0 / root, 0.0)
        per_r = a[0] * inv_r + _horner([(i + 2) * a_i for i, a_i in enumerate(a[1:])], r)
        return value, per_r * x, per_r * y
