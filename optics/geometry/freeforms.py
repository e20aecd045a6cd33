"""Freeform polynomial surfaces: ``xy_polynomial``, ``chebyshev`` and ``zernike``.

Each is a base conic plus a polynomial departure, with analytic slopes::

    xy_polynomial:  z = conic + sum_ij coefficients[i][j] x^i y^j                (x, y in mm)
    chebyshev:      z = conic + sum_ij coefficients[i][j] T_i(x/norm_x) T_j(y/norm_y)
    zernike:        z = conic + sum_i coefficients[i] Z_(i+1)(rho/norm_radius, theta)

The Chebyshev and Zernike bases come from :mod:`optics.polynomials` (stable
recurrences, finite derivatives at x = ±1 and at the centre).  Slopes of the
normalized bases carry the chain factor 1/norm.  The Chebyshev sum is taken
literally: T_2(0) = -1, so such terms give the vertex a sag offset; nothing is
subtracted.  A ray landing outside the Chebyshev normalization square is
rejected (invalid and counted), never an exception mid-trace.  Zernike
polynomials are evaluated as polynomials beyond the unit disk as well.
"""

from __future__ import annotations

from .. import accel
from .. import backend as be
from ..errors import LensFileError
from ..polynomials import zernike_sum
from ..polynomials.chebyshev import chebyshev_t_lists
from ..polynomials.zernike import FRINGE_MAX_INDEX
from .aspheres import _horner
from .base import is_plain, number, register
from .newton_base import NewtonRaphsonGeometry
from .newton_cache import PreparedCache, coefficient_leaves
from .newton_spec import common_from_spec, common_to_spec, number_list, number_matrix, plain


def coefficient_array(values, like):
    """Nested coefficients as one array with the dtype of ``like`` (graphs kept).

    When the structure mixes Python floats and 0-d tensors (an optimizer varies
    some coefficients), each float is converted with ``like``'s dtype first:
    stacking converts bare floats at the library's default precision, which
    for torch is float32 and would round them.
    """
    if any(not isinstance(v, (int, float)) for v in coefficient_leaves(values)):
        values = _floats_as_arrays(values, like.dtype)
    array = be.asarray(values)
    if str(array.dtype) != str(like.dtype):
        array = be.astype(array, like.dtype)
    return array


def _floats_as_arrays(values, dtype):
    if isinstance(values, (list, tuple)):
        return [_floats_as_arrays(v, dtype) for v in values]
    if isinstance(values, (int, float)):
        return be.asarray(float(values), dtype=dtype)
    return values


@register
class XYPolynomial(NewtonRaphsonGeometry):
    """Conic plus sum_ij coefficients[i][j] x^i y^j (x, y in mm; rows may differ in length).

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        Base conic.
    coefficients : list of lists of float or 0-d tensor
        coefficients[i][j] in mm^(1-i-j) multiplies x^i y^j.
    tol, max_iter
        Newton settings (see :class:`NewtonRaphsonGeometry`).
    """

    type_name = "xy_polynomial"
    spec_keys = NewtonRaphsonGeometry.spec_keys + ("coefficients",)

    def __init__(self, radius, conic=0.0, coefficients=((0.0,),), **solver):
        super().__init__(radius, conic, **solver)
        self.coefficients = [list(row) for row in coefficients]

    def departure(self, x, y):
        # q_i(y) = sum_j c_ij y^j, then Horner in x for the value and both slopes.
        rows = self.coefficients
        q = [_horner(row, y) for row in rows]
        dq = [_horner([j * row[j] for j in range(1, len(row))], y) for row in rows]
        value = _horner(q, x)
        slope_x = _horner([i * q[i] for i in range(1, len(q))], x)
        slope_y = _horner(dq, x)
        zero = 0.0 * x
        return value + zero, slope_x + zero, slope_y + zero

    @classmethod
    def from_spec(cls, spec, where):
        return cls(
            coefficients=number_matrix(spec, "coefficients", where), **common_from_spec(spec, where)
        )

    def to_spec(self):
        return {**common_to_spec(self), "coefficients": plain(self.coefficients)}


@register
class Chebyshev(NewtonRaphsonGeometry):
    """Conic plus a tensor-product Chebyshev series on a normalization rectangle.

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        Base conic.
    coefficients : list of lists of float or 0-d tensor, shape (I+1, J+1)
        coefficients[i][j] in mm multiplies T_i(x/norm_x) T_j(y/norm_y).
    norm_x, norm_y : float
        Half-widths of the normalization rectangle in mm; rays landing
        outside it are rejected.
    tol, max_iter
        Newton settings (see :class:`NewtonRaphsonGeometry`).
    """

    type_name = "chebyshev"
    spec_keys = NewtonRaphsonGeometry.spec_keys + ("coefficients", "norm_x", "norm_y")

    def __init__(self, radius, conic=0.0, coefficients=((0.0,),), norm_x=1.0, norm_y=1.0, **solver):
        super().__init__(radius, conic, **solver)
        self.coefficients = [list(row) for row in coefficients]
        if len({len(row) for row in self.coefficients}) != 1 or not self.coefficients[0]:
            raise ValueError(
                f"Chebyshev coefficients must be a non-empty rectangular matrix, "
                f"got rows of lengths {[len(r) for r in self.coefficients]}"
            )
        self.norm_x = norm_x
        self.norm_y = norm_y

    def departure(self, x, y):
        # f = sum_j T_j(v) h_j(u), h_j = sum_i c_ij T_i(u);  f_u = sum_j T_j(v) h_j'(u),
        # f_v = sum_j T_j'(v) h_j(u).  Freeform orders are small, so elementwise
        # multiply-adds with the coefficients as scalars beat stacking the bases
        # for a matrix product (on a CPU ~5x at 1e6 rays), and zero terms cost nothing.
        rows = self.coefficients
        inv_x, inv_y = 1.0 / self.norm_x, 1.0 / self.norm_y
        t_u, dt_u = _chebyshev_basis(x * inv_x, len(rows) - 1)
        t_v, dt_v = _chebyshev_basis(y * inv_y, len(rows[0]) - 1)
        columns = range(len(rows[0]))
        h = [_weighted_sum([(row[j], t) for row, t in zip(rows, t_u)]) for j in columns]
        h_u = [_weighted_sum([(row[j], t) for row, t in zip(rows, dt_u)]) for j in columns]
        f = _weighted_sum(list(zip(h, t_v)))
        f_u = _weighted_sum(list(zip(h_u, t_v)))
        f_v = _weighted_sum(list(zip(h, dt_v)))
        return _shaped_like(f, x), _shaped_like(f_u * inv_x, x), _shaped_like(f_v * inv_y, x)

    def domain(self, x, y):
        return (be.abs(x) <= be.abs(self.norm_x)) & (be.abs(y) <= be.abs(self.norm_y))

    @classmethod
    def from_spec(cls, spec, where):
        return cls(
            coefficients=number_matrix(spec, "coefficients", where, rectangular=True),
            norm_x=number(spec, "norm_x", where, positive=True),
            norm_y=number(spec, "norm_y", where, positive=True),
            **common_from_spec(spec, where),
        )

    def to_spec(self):
        return {
            **common_to_spec(self),
            "coefficients": plain(self.coefficients),
            "norm_x": plain(self.norm_x),
            "norm_y": plain(self.norm_y),
        }


def _chebyshev_basis(u, n_max):
    """T_0..T_n_max(u) and derivatives, with the constant entries as Python numbers."""
    return chebyshev_t_lists(u, n_max, constants=True)


def _weighted_sum(pairs):
    """sum of weight * term over (weight, term) pairs; Python zeros and ones cost no operation."""
    total, owned = 0.0, False  # owned: total is a temporary made here (may be updated in place)
    for weight, term in pairs:
        if is_plain(weight, 0) or is_plain(term, 0):
            continue
        if owned and be.is_array(term):
            total = accel.accumulate(total, term, weight)
            continue
        product = weight if is_plain(term, 1) else term if is_plain(weight, 1) else weight * term
        fresh = not (is_plain(term, 1) or is_plain(weight, 1))
        total, owned = (product, fresh) if is_plain(total, 0) else (total + product, True)
        owned = owned and be.is_array(total)
    return total


def _shaped_like(value, x):
    """value as an array of x's shape (a Python number or 0-d array is broadcast)."""
    if be.is_array(value) and tuple(value.shape) == tuple(x.shape):
        return value
    return value + be.zeros_like(x)


ZERNIKE_ORDERINGS = ("noll", "fringe")


@register
class Zernike(NewtonRaphsonGeometry):
    """Conic plus a Zernike series on a normalization radius.

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        Base conic.
    coefficients : list of float or 0-d tensor
        coefficients[i] in mm multiplies Z_j, j = i + 1 in the chosen ordering.
    norm_radius : float
        Normalization radius in mm (rho / norm_radius is the unit-disk radius).
    ordering : {"noll", "fringe"}
        Noll indices with unit-RMS terms, or Fringe indices 1..37, unnormalized.
    tol, max_iter
        Newton settings (see :class:`NewtonRaphsonGeometry`).
    """

    type_name = "zernike"
    spec_keys = NewtonRaphsonGeometry.spec_keys + ("coefficients", "norm_radius", "ordering")

    def __init__(
        self, radius, conic=0.0, coefficients=(), norm_radius=1.0, ordering="noll", **solver
    ):
        super().__init__(radius, conic, **solver)
        self.coefficients = list(coefficients)
        self.norm_radius = norm_radius
        self.ordering = ordering
        self._prepared = PreparedCache(coefficient_array)

    def departure(self, x, y):
        if not self.coefficients:
            zero = 0.0 * x
            return zero, zero, zero
        vector = self._prepared.get(self.coefficients, x)
        inv = 1.0 / self.norm_radius
        z, z_u, z_v = zernike_sum(vector, x * inv, y * inv, ordering=self.ordering)
        return z, z_u * inv, z_v * inv

    @classmethod
    def from_spec(cls, spec, where):
        ordering = spec.get("ordering", "noll")
        if ordering not in ZERNIKE_ORDERINGS:
            raise LensFileError(
                f"{where}: key 'ordering' must be one of {list(ZERNIKE_ORDERINGS)}, "
                f"not {ordering!r}"
            )
        coefficients = number_list(spec, "coefficients", where)
        if ordering == "fringe" and len(coefficients) > FRINGE_MAX_INDEX:
            raise LensFileError(
                f"{where}: key 'coefficients' has {len(coefficients)} terms; "
                f'Fringe ordering stops at {FRINGE_MAX_INDEX} (use ordering = "noll")'
            )
        return cls(
            coefficients=coefficients,
            norm_radius=number(spec, "norm_radius", where, positive=True),
            ordering=ordering,
            **common_from_spec(spec, where),
        )

    def to_spec(self):
        return {
            **common_to_spec(self),
            "coefficients": plain(self.coefficients),
            "norm_radius": plain(self.norm_radius),
            "ordering": self.ordering,
        }
