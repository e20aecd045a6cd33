"""Zernike polynomials on the unit disk (Noll and Fringe orderings) with Cartesian gradients.

A term is Z = N R_n^|m|(rho) {cos |m| theta, sin |m| theta}.  It is evaluated
entirely in Cartesian normalized coordinates (x, y) = rho (cos theta, sin theta):

* the azimuthal factor with its radial power, rho^|m| cos |m| theta = Re (x + iy)^|m|
  and rho^|m| sin |m| theta = Im (x + iy)^|m|, by the real recurrences
  C_k = x C_{k-1} - y S_{k-1}, S_k = x S_{k-1} + y C_{k-1}, whose gradients are
  (dC_k/dx, dC_k/dy) = k (C_{k-1}, -S_{k-1}) and
  (dS_k/dx, dS_k/dy) = k (S_{k-1}, C_{k-1})  (z^k is holomorphic);
* the rest of the radial polynomial as a polynomial in s = rho^2 = x^2 + y^2,
  R_n^m(rho) = rho^m P_k^(0, m)(2s - 1) with k = (n - m) / 2 (a Jacobi
  polynomial, DLMF 18.9.2 recurrence), summed by Clenshaw per |m|.

No atan2, sqrt or division by rho occurs, so values, gradients and their
autograd (to any order) are finite at the centre.

Sign convention for m (Noll 1976): m > 0 is the cos |m| theta term, m < 0 the
sin |m| theta term.  In Noll order even j carries cos and odd j carries sin
for m != 0; in Fringe order the cos term of each pair comes first.
"""

from __future__ import annotations

import math
import operator
from functools import cache

from .. import backend as be
from ._cartesian import COS, SIN, add_term, broadcast_xy, harmonics
from ._recurrence import ThreeTermRecurrence, coefficient_vector

__all__ = [
    "noll_to_nm",
    "fringe_to_nm",
    "zernike_nm",
    "zernike_sum",
    "zernike_basis",
    "FRINGE_MAX_INDEX",
]

FRINGE_MAX_INDEX = 37


def _check_index(j, name):
    """j as a Python int >= 1 (any integer type), else a ValueError naming the ordering."""
    try:
        index = operator.index(j)
    except TypeError:
        index = None
    if isinstance(j, bool) or index is None or index < 1:
        raise ValueError(f"{name} Zernike index must be an integer >= 1, got {j!r}")
    return index


def noll_to_nm(j):
    """(n, m) of the Noll index j >= 1 (Noll 1976, J. Opt. Soc. Am. 66, 207).

    Row n holds j = n(n+1)/2 + 1 .. (n+1)(n+2)/2 with |m| = n mod 2,
    n mod 2 + 2, ... each non-zero |m| appearing twice; even j gives m = +|m|
    (cos), odd j gives m = -|m| (sin).

    Examples: 1 -> (0, 0), 2 -> (1, 1), 3 -> (1, -1), 4 -> (2, 0),
    5 -> (2, -2), 6 -> (2, 2), 11 -> (4, 0).
    """
    j = _check_index(j, "Noll")
    n = (math.isqrt(8 * j - 7) - 1) // 2
    k = j - n * (n + 1) // 2 - 1  # position within row n, 0 .. n
    m = n % 2 + 2 * ((k + (n + 1) % 2) // 2)
    if m == 0:
        return n, 0
    return n, m if j % 2 == 0 else -m


def fringe_to_nm(j):
    """(n, m) of the Fringe (University of Arizona) index j, 1 <= j <= 37.

    Terms 1..36 are grouped by d = (n + |m|) / 2 = 0 .. 5; group d holds
    j = d^2 + 1 .. (d+1)^2 in order of decreasing |m|, the cos term of each
    pair before the sin term, ending with the m = 0 term, i.e.
    j = (d + 1)^2 - 2|m| + (1 if sin else 0).  Term 37 is the 12th-order
    spherical term (12, 0), not the next term (6, 6) of group 6.  Because the
    standard set breaks its own pattern there, no extension beyond 37 is
    standard, and larger indices are rejected.

    Examples: 1 -> (0, 0), 2 -> (1, 1), 3 -> (1, -1), 4 -> (2, 0),
    5 -> (2, 2), 9 -> (4, 0), 36 -> (10, 0), 37 -> (12, 0).
    """
    j = _check_index(j, "Fringe")
    if j > FRINGE_MAX_INDEX:
        raise ValueError(
            f"Fringe Zernike index must be <= {FRINGE_MAX_INDEX} (the standard Fringe set), "
            f"got {j}; use Noll ordering for more terms"
        )
    if j == FRINGE_MAX_INDEX:
        return 12, 0
    d = math.isqrt(j - 1)
    r = (d + 1) ** 2 - j  # = 2|m| - (1 if sin else 0)
    m = (r + 1) // 2
    n = 2 * d - m
    return n, -m if r % 2 else m


_ORDERINGS = {"noll": (noll_to_nm, True), "fringe": (fringe_to_nm, False)}


def _normalization(n, m):
    """Noll's unit-RMS factor: sqrt(n + 1) for m = 0, sqrt(2 (n + 1)) otherwise."""
    return math.sqrt((n + 1) * (1 if m == 0 else 2))


@cache
def _jacobi_step(m, k):
    """(alpha, beta, gamma) of P_{k+1}^(0,m)(2s-1) = (alpha + beta s) P_k - gamma P_{k-1}."""
    n = k + 1  # DLMF 18.9.2 with a = 0, b = m, written for P_n
    denominator = 2 * n * (n + m) * (2 * n + m - 2)
    slope_t = (2 * n + m - 1) * (2 * n + m) * (2 * n + m - 2) / denominator
    constant_t = -(2 * n + m - 1) * m * m / denominator
    gamma = 2 * (n - 1) * (n + m - 1) * (2 * n + m) / denominator
    return constant_t - slope_t, 2.0 * slope_t, gamma  # t = 2s - 1


@cache
def _radial_family(m):
    """P_k^(0, m)(2s - 1) as a recurrence in s: P_0 = 1, P_1 = (m + 2) s - (m + 1)."""

    def seeds(s):
        one = be.ones_like(s)
        return [(one, be.zeros_like(s)), ((m + 2) * s - (m + 1), (m + 2) * one)]

    return ThreeTermRecurrence(seeds, lambda k: _jacobi_step(m, k), order=1)


def _series(terms, x, y):
    """sum of weight * R_n^|m| {cos, sin} over terms (n, m, weight), with the gradient.

    ``weight`` is a Python float or a 0-d array (a coefficient times its
    normalization); terms are grouped by |m| and each group's radial
    polynomials summed by one Clenshaw pass in s = x^2 + y^2.
    """
    x, y, s = broadcast_xy(x, y)
    groups = {}
    for n, m, weight in terms:
        if n < 0 or abs(m) > n or (n - abs(m)) % 2:
            raise ValueError(
                f"Zernike (n, m) = ({n}, {m}) is invalid: need |m| <= n and n - |m| even"
            )
        cos_list, sin_list = groups.setdefault(abs(m), ([], []))
        target = sin_list if m < 0 else cos_list
        k = (n - abs(m)) // 2
        target.extend([0.0] * (k + 1 - len(target)))
        target[k] = target[k] + weight
    harmonic_lists = harmonics(x, y, max(groups, default=0))
    zero = be.zeros_like(s)
    total = (zero, zero, zero)
    for m, (cos_list, sin_list) in sorted(groups.items()):
        kinds = [(lst, kind) for lst, kind in ((cos_list, COS), (sin_list, SIN)) if lst]
        length = max(len(lst) for lst, _ in kinds)
        padded = [lst + [0.0] * (length - len(lst)) for lst, _ in kinds]
        sums = _radial_family(m).clenshaw(s, padded)
        for (radial, radial_ds), (_, kind) in zip(sums, kinds):
            total = add_term(total, radial, radial_ds, m, kind, harmonic_lists, x, y)
    return total


def zernike_nm(n, m, x, y, normalize=True):
    """One Zernike term Z_n^m at normalized Cartesian points, with its gradient.

    Parameters
    ----------
    n, m : int
        Radial degree and signed azimuthal order (m > 0: cos, m < 0: sin),
        |m| <= n, n - |m| even.
    x, y : arrays, broadcastable shapes
        Normalized coordinates (x, y) = rho (cos theta, sin theta).
    normalize : bool
        Multiply by Noll's factor so the term has unit RMS over the unit disk;
        False gives the Fringe (peak-normalized, R(1) = 1) convention.

    Returns
    -------
    z, dz_dx, dz_dy : arrays of the broadcast shape of x and y
    """
    weight = _normalization(n, m) if normalize else 1.0
    return _series([(n, m, weight)], x, y)


def zernike_sum(coefficients, x, y, ordering="noll"):
    """The Zernike series sum_j c_j Z_j(x, y) and its Cartesian gradient.

    Parameters
    ----------
    coefficients : array or sequence, shape (J,)
        ``coefficients[j - 1]`` multiplies Z_j (indices start at 1); entries
        may be 0-d grad-carrying tensors.
    x, y : arrays, broadcastable shapes
        Normalized coordinates (x, y) = rho (cos theta, sin theta); the caller
        applies the 1 / normalization-radius chain factor to the gradient.
    ordering : {"noll", "fringe"}
        "noll": Noll (1976) indices, unit-RMS normalized terms.
        "fringe": Fringe / University of Arizona indices 1..37, unnormalized
        (R_n^m(1) = 1).

    Returns
    -------
    z, dz_dx, dz_dy : arrays of the broadcast shape of x and y
        The series and its derivatives with respect to x and y.
    """
    if ordering not in _ORDERINGS:
        raise ValueError(f"Zernike ordering must be one of {sorted(_ORDERINGS)}, got {ordering!r}")
    index_to_nm, normalize = _ORDERINGS[ordering]
    c = coefficient_vector(coefficients, "Zernike coefficients")
    terms = []
    for j in range(1, int(c.shape[0]) + 1):
        n, m = index_to_nm(j)
        weight = c[j - 1] * _normalization(n, m) if normalize else c[j - 1]
        terms.append((n, m, weight))
    return _series(terms, x, y)


def zernike_basis(terms, x, y, ordering="fringe", axis=-1):
    """The first ``terms`` Zernike terms at normalized points, stacked as columns.

    Parameters
    ----------
    terms : int
        Number of terms J (indices 1..J; at most 37 for Fringe).
    x, y : arrays, shape (P,)
        Normalized coordinates (x, y) = rho (cos theta, sin theta), theta from
        +x toward +y.
    ordering : {"fringe", "noll"}
        "fringe": Fringe indices, unnormalized (R_n^m(1) = 1), as Zemax and
        CODE V list them; "noll": Noll indices, unit-RMS (orthonormal) terms.

    axis : int
        Where the term axis goes: -1 gives shape (P, J), 0 gives (J, P).

    Returns
    -------
    array, shape (P, J) or (J, P)
        Z_j(x, y) at index j - 1 of the term axis.
    """
    if ordering not in _ORDERINGS:
        raise ValueError(f"Zernike ordering must be one of {sorted(_ORDERINGS)}, got {ordering!r}")
    index_to_nm, normalize = _ORDERINGS[ordering]
    columns = []
    for j in range(1, terms + 1):
        n, m = index_to_nm(j)
        columns.append(zernike_nm(n, m, x, y, normalize=normalize)[0])
    return be.stack(columns, axis=axis)
