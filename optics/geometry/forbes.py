"""Forbes polynomial surfaces: ``qbfs`` (axially symmetric) and ``q2d`` (freeform).

With ρ² = x² + y², u = ρ / norm_radius and the base conic (c = 1/radius, k)::

    qbfs:  z = conic(ρ) + φ(ρ) u²(1 - u²) sum_m terms[m] Q^bfs_m(u²)
    q2d:   z = conic(ρ) + φ(ρ) [u²(1 - u²) sum_n a^0_n Q^0_n(u²)
                               + sum_{m>=1} u^m sum_n (a^m_n cos mθ + b^m_n sin mθ) Q^m_n(u²)]
    φ(ρ) = sqrt((1 - k c² ρ²) / (1 - (1+k) c² ρ²))

(Forbes, Opt. Express 15(8), 2007, and 20(3), 2012; the polynomials and their
derivatives come from :mod:`optics.polynomials.forbes`).  The departure is 0
for u > 1.  The slopes use d(φ²)/d(ρ²) = c² / (1 - (1+k) c² ρ²)², so no step
divides by ρ and the normal is finite at the vertex.

The sums run on coefficients *prepared* for a Clenshaw recurrence.  They are
kept in a :class:`~optics.geometry.newton_cache.PreparedCache`, which builds
them under ``be.enable_grad()`` (the first evaluation happens inside the
graph-free Newton loop) and rebuilds them when any coefficient changes.
"""

from __future__ import annotations

from .. import backend as be
from ..errors import LensFileError
from ..polynomials import prepare_q2d, prepare_qbfs, q2d_sum, qbfs_sum
from .base import number, register
from .freeforms import coefficient_array
from .newton_base import NewtonRaphsonGeometry
from .newton_cache import PreparedCache
from .newton_spec import common_from_spec, common_to_spec, number_list, plain


class _ForbesSurface(NewtonRaphsonGeometry):
    """The φ factor, the u > 1 cut-off and the normalization radius shared by both types."""

    def phi_and_slope(self, rho2):
        """φ(ρ²) and dφ/d(ρ²) of the base conic (1 and 0 for a plane base)."""
        c, k = self.curvature, self.conic
        if isinstance(c, (int, float)) and c == 0:
            return 1.0, 0.0
        c2 = c * c
        inner = 1.0 - (1.0 + k) * c2 * rho2
        phi = be.sqrt((1.0 - k * c2 * rho2) / inner)
        return phi, c2 / (2.0 * phi * inner * inner)

    def departure(self, x, y):
        inv = 1.0 / self.norm_radius
        u_x, u_y = x * inv, y * inv
        u2 = u_x * u_x + u_y * u_y
        delta, delta_u, delta_v = self.normalized_departure(u_x, u_y, u2)
        phi, phi_slope = self.phi_and_slope(x * x + y * y)
        radial = 2.0 * phi_slope * delta  # d(φ)/dx = 2x dφ/d(ρ²)
        inside = u2 <= 1.0
        zero = 0.0 * u2
        return (
            be.where(inside, phi * delta, zero),
            be.where(inside, radial * x + phi * delta_u * inv, zero),
            be.where(inside, radial * y + phi * delta_v * inv, zero),
        )

    def normalized_departure(self, u_x, u_y, u2):
        """The bracketed polynomial departure and its derivatives in normalized (u_x, u_y)."""
        raise NotImplementedError


@register
class QBFS(_ForbesSurface):
    """Forbes Q^bfs asphere (Opt. Express 15(8), 2007).

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        Base conic.
    terms : list of float or 0-d tensor
        terms[m] in mm multiplies Q^bfs_m(u²).
    norm_radius : float
        Normalization radius in mm; the departure is 0 beyond it.
    tol, max_iter
        Newton settings (see :class:`NewtonRaphsonGeometry`).
    """

    type_name = "qbfs"
    spec_keys = NewtonRaphsonGeometry.spec_keys + ("terms", "norm_radius")

    def __init__(self, radius, conic=0.0, terms=(), norm_radius=1.0, **solver):
        super().__init__(radius, conic, **solver)
        self.terms = list(terms)
        self.norm_radius = norm_radius
        self._prepared = PreparedCache(
            lambda terms, like: prepare_qbfs(coefficient_array(terms, like))
        )

    def normalized_departure(self, u_x, u_y, u2):
        if not self.terms:
            zero = 0.0 * u2
            return zero, zero, zero
        s, s_slope = qbfs_sum(self._prepared.get(self.terms, u2), u2)
        weight = u2 * (1.0 - u2)
        # d/du_x of u²(1-u²) S(u²) = 2 u_x [(1 - 2u²) S + u²(1-u²) S']
        per_u = 2.0 * ((1.0 - 2.0 * u2) * s + weight * s_slope)
        return weight * s, per_u * u_x, per_u * u_y

    @classmethod
    def from_spec(cls, spec, where):
        return cls(
            terms=number_list(spec, "terms", where),
            norm_radius=number(spec, "norm_radius", where, positive=True),
            **common_from_spec(spec, where),
        )

    def to_spec(self):
        return {
            **common_to_spec(self),
            "terms": plain(self.terms),
            "norm_radius": plain(self.norm_radius),
        }


def _q2d_rows(coefficients, like):
    """The {type, m, n, value} list as prepared Q^m_n data (cos rows a^m_n, sin rows b^m_n)."""
    rows = {"a": [], "b": []}
    for term in coefficients:
        table = rows[term["type"]]
        m, n = int(term["m"]), int(term["n"])
        while len(table) <= m:
            table.append([])
        table[m].extend([0.0] * (n + 1 - len(table[m])))
        table[m][n] = term["value"]
    cos_rows = [coefficient_array(r, like) if r else [] for r in rows["a"]]
    sin_rows = [coefficient_array(r, like) if r else [] for r in rows["b"]]
    return prepare_q2d(cos_rows, sin_rows or None)


@register
class Q2D(_ForbesSurface):
    """Forbes Q^m_n freeform (Opt. Express 20(3), 2012).

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        Base conic.
    coefficients : list of dict
        Terms ``{"type": "a" | "b", "m": int, "n": int, "value": float}``:
        a^m_n multiplies u^m cos(mθ) Q^m_n(u²) (for m = 0, u²(1-u²) Q^0_n),
        b^m_n multiplies u^m sin(mθ) Q^m_n(u²) (m >= 1); values in mm.
    norm_radius : float
        Normalization radius in mm; the departure is 0 beyond it.
    tol, max_iter
        Newton settings (see :class:`NewtonRaphsonGeometry`).
    """

    type_name = "q2d"
    spec_keys = NewtonRaphsonGeometry.spec_keys + ("coefficients", "norm_radius")

    def __init__(self, radius, conic=0.0, coefficients=(), norm_radius=1.0, **solver):
        super().__init__(radius, conic, **solver)
        self.coefficients = [dict(term) for term in coefficients]
        self.norm_radius = norm_radius
        self._prepared = PreparedCache(_q2d_rows)

    def normalized_departure(self, u_x, u_y, u2):
        if not self.coefficients:
            zero = 0.0 * u2
            return zero, zero, zero
        return q2d_sum(self._prepared.get(self.coefficients, u2), u_x, u_y)

    @classmethod
    def from_spec(cls, spec, where):
        terms = spec.get("coefficients")
        if not isinstance(terms, (list, tuple)):
            raise LensFileError(
                f"{where}: key 'coefficients' must be a list of "
                f'{{ type = "a" | "b", m, n, value }} tables, not {terms!r}'
            )
        checked = [_q2d_term(term, i, where) for i, term in enumerate(terms)]
        seen = set()
        for term in checked:
            key = (term["type"], term["m"], term["n"])
            if key in seen:
                raise LensFileError(
                    f"{where}: key 'coefficients' lists the term "
                    f"type = {key[0]!r}, m = {key[1]}, n = {key[2]} twice"
                )
            seen.add(key)
        return cls(
            coefficients=checked,
            norm_radius=number(spec, "norm_radius", where, positive=True),
            **common_from_spec(spec, where),
        )

    def to_spec(self):
        return {
            **common_to_spec(self),
            "coefficients": plain(self.coefficients),
            "norm_radius": plain(self.norm_radius),
        }


def _q2d_term(term, i, where):
    """One checked q2d coefficient table."""
    here = f"{where}: coefficients[{i}]"
    if not isinstance(term, dict) or set(term) != {"type", "m", "n", "value"}:
        raise LensFileError(
            f"{here} must be a table with exactly the keys type, m, n, value; got {term!r}"
        )
    if term["type"] not in ("a", "b"):
        raise LensFileError(f'{here}: \'type\' must be "a" or "b", not {term["type"]!r}')
    for key in ("m", "n"):
        value = term[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise LensFileError(f"{here}: '{key}' must be an integer >= 0, not {value!r}")
    if term["type"] == "b" and term["m"] == 0:
        raise LensFileError(f"{here}: a 'b' (sin) term needs m >= 1")
    return {
        "type": term["type"],
        "m": term["m"],
        "n": term["n"],
        "value": number(term, "value", here),
    }
