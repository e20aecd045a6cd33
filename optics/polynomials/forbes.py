"""Forbes Q polynomials: Q^bfs_m (axially symmetric) and Q^m_n (freeform), values and derivatives.

Both families are functions of x = u^2, u the normalized radius (the papers'
symbols; the Cartesian inputs of :func:`q2d_sum` are called (x, y) like the
Zernike functions, and the papers' x is then ``u2`` = x^2 + y^2).

Q^bfs_m [2007] are orthonormal in the mean-square slope of the departure
u^2 (1 - u^2) Q^bfs_m(u^2):
(2/pi) int_0^1 f_m'(u) f_k'(u) (1 - u^2)^(-1/2) du = delta_mk,
f_m(u) = u^2 (1 - u^2) Q^bfs_m(u^2).  Q^bfs_0 = 1, Q^bfs_1 = (13 - 16x)/sqrt(19),
Q^bfs_2 = sqrt(2/95) (29 - 4x (25 - 19x)).

Q^m_n [2012] (m >= 1) make the freeform terms T = u^m Q^m_n(u^2) cos m theta
(or sin) gradient-orthonormal:
(1/pi^2) int_0^2pi int_0^1 grad T . grad T' (1 - u^2)^(-1/2) du dtheta = delta,
the same average that makes Q^0_n = Q^bfs_n orthonormal for the m = 0 terms.
Q^1_0 = 1, Q^1_1 = sqrt(8/7) (1 - x), Q^2_0 = 1/sqrt(2), Q^2_1 = (9 - 8x)/sqrt(38).

Evaluation follows [2010]/[2012]: a series sum_n a_n Q_n is rewritten on the
auxiliary basis P_n (which has a three-term recurrence) as sum_n b_n P_n by
back substitution through the f, g (, h) tables, then summed with its
derivative by Clenshaw's recurrence.  The b_n are *prepared data*: they
depend only on the coefficients, so a surface may compute them once
(:func:`prepare_qbfs`, :func:`prepare_q2d`) and reuse them for every ray
batch and Newton iteration.  Any such cache of coefficient-derived tensors
must be built under ``be.enable_grad()`` (a cache first filled inside a
graph-free solve would otherwise be detached for good) and must be
invalidated whenever the coefficients change (each optimizer step); on
torch, keep it no longer than one forward/backward pass.

See _forbes_tables for the references [2007], [2010], [2012] and the tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .. import backend as be
from ._cartesian import COS, SIN, add_term, broadcast_xy, harmonics
from ._forbes_tables import q2d_abc, q2d_tables, qbfs_tables
from ._recurrence import ThreeTermRecurrence, as_coefficients, as_float_array, coefficient_vector

__all__ = [
    "QbfsPrepared",
    "Q2DPrepared",
    "qbfs_polynomials",
    "q2d_polynomials",
    "prepare_qbfs",
    "prepare_q2d",
    "qbfs_sum",
    "q2d_sum",
]


def _qbfs_seeds(x):
    """[2010] Eq. (2.6): P_0 = 2, P_1 = 6 - 8x."""
    one = be.ones_like(x)
    return [(2.0 * one, be.zeros_like(x)), (6.0 - 8.0 * x, -8.0 * one)]


# [2010] Eq. (2.6): P_{m+1} = (2 - 4x) P_m - P_{m-1}.
_QBFS_P = ThreeTermRecurrence(_qbfs_seeds, lambda k: (2.0, -4.0, 1.0), order=1)


def _q2d_seeds_m1(x):
    """[2012] Appendix A, m = 1: P_0 = 1/2, P_1 = 1 - x/2, P_2, P_3 explicit."""
    one = be.ones_like(x)
    return [
        (0.5 * one, be.zeros_like(x)),
        (1.0 - 0.5 * x, -0.5 * one),
        ((3.0 - x * (12.0 - 8.0 * x)) / 6.0, (-12.0 + 16.0 * x) / 6.0),
        (
            (5.0 - x * (60.0 - x * (120.0 - 64.0 * x))) / 10.0,
            (-60.0 + x * (240.0 - 192.0 * x)) / 10.0,
        ),
    ]


@cache
def _q2d_family(m):
    """The auxiliary P^m_n of [2012] for m >= 1 with the recurrence of Eq. (A.3)."""
    if m == 1:
        return ThreeTermRecurrence(_q2d_seeds_m1, lambda k: q2d_abc(k, 1), order=3)

    def seeds(x):  # P^m_0 = 1/2, P^m_1 = (m - 1/2) + (1 - m) x
        one = be.ones_like(x)
        return [(0.5 * one, be.zeros_like(x)), ((m - 0.5) + (1.0 - m) * x, (1.0 - m) * one)]

    return ThreeTermRecurrence(seeds, lambda k: q2d_abc(k, m), order=1)


def qbfs_polynomials(x, m_max):
    """Q^bfs_0 .. Q^bfs_M of [2007] and their derivatives d/dx at x = u^2.

    Q_m = (P_m - g_{m-1} Q_{m-1} - h_{m-2} Q_{m-2}) / f_m ([2010] Eqs. (A.14)-(A.16))
    applied to values and derivatives alike.

    Parameters
    ----------
    x : array, any shape
        The squared normalized radius u^2, normally in [0, 1].
    m_max : int
        Highest index M >= 0.

    Returns
    -------
    values, derivatives : arrays, shape (M + 1, *x.shape)
    """
    x = as_float_array(x)
    f, g, h = qbfs_tables(m_max)
    p, dp = _QBFS_P.forward(x, m_max)
    q, dq = [], []
    for m in range(m_max + 1):
        value, slope = p[m], dp[m]
        if m >= 1:
            value, slope = value - g[m - 1] * q[m - 1], slope - g[m - 1] * dq[m - 1]
        if m >= 2:
            value, slope = value - h[m - 2] * q[m - 2], slope - h[m - 2] * dq[m - 2]
        q.append(value / f[m])
        dq.append(slope / f[m])
    return be.stack(q, axis=0), be.stack(dq, axis=0)


def q2d_polynomials(x, m, n_max):
    """Q^m_0 .. Q^m_N of [2012] and their derivatives d/dx at x = u^2.

    For m = 0 these are Q^bfs_n; for m >= 1, Q^m_0 = P^m_0 / f_0 and
    Q^m_n = (P^m_n - g_{n-1} Q^m_{n-1}) / f_n ([2012] Eq. (A.18) tables).

    Parameters
    ----------
    x : array, any shape
        The squared normalized radius u^2.
    m : int
        Azimuthal order >= 0.
    n_max : int
        Highest radial index N >= 0.

    Returns
    -------
    values, derivatives : arrays, shape (N + 1, *x.shape)
    """
    if m == 0:
        return qbfs_polynomials(x, n_max)
    if m < 0:
        raise ValueError(f"Q^m_n azimuthal order m must be >= 0, got {m}")
    x = as_float_array(x)
    f, g = q2d_tables(m, n_max)
    p, dp = _q2d_family(m).forward(x, n_max)
    q, dq = [p[0] / f[0]], [dp[0] / f[0]]
    for n in range(1, n_max + 1):
        q.append((p[n] - g[n - 1] * q[n - 1]) / f[n])
        dq.append((dp[n] - g[n - 1] * dq[n - 1]) / f[n])
    return be.stack(q, axis=0), be.stack(dq, axis=0)


def _back_substitute(a, f, g, h=()):
    """b solving f_n b_n + g_n b_{n+1} + h_n b_{n+2} = a_n, so sum a_n Q_n = sum b_n P_n."""
    count = int(a.shape[0])
    b = [None] * count
    for n in range(count - 1, -1, -1):
        value = a[n]
        if n + 1 < count:
            value = value - g[n] * b[n + 1]
        if n + 2 < count and h:
            value = value - h[n] * b[n + 2]
        b[n] = value * (1.0 / f[n])
    return tuple(b)


@dataclass(frozen=True, eq=False)
class QbfsPrepared:
    """Coefficients b_m of sum_m a_m Q^bfs_m on the auxiliary basis P_m (0-d arrays)."""

    b: tuple


@dataclass(frozen=True, eq=False)
class Q2DPrepared:
    """Per azimuthal order m: (m, b_cos, b_sin), each b a tuple of 0-d arrays or None."""

    terms: tuple


def prepare_qbfs(coefficients):
    """Prepared data for :func:`qbfs_sum` from the Q^bfs coefficients a_0 .. a_M.

    Parameters
    ----------
    coefficients : array or sequence, shape (M + 1,)
        a_m multiplying Q^bfs_m; may hold 0-d grad-carrying tensors.

    Returns
    -------
    QbfsPrepared
        Gradient-carrying when the coefficients are (build caches under
        ``be.enable_grad()``; see the module notes).
    """
    a = coefficient_vector(coefficients, "Q-bfs coefficients")
    if int(a.shape[0]) == 0:
        return QbfsPrepared(())
    f, g, h = qbfs_tables(int(a.shape[0]) - 1)
    return QbfsPrepared(_back_substitute(a, f, g, h))


def qbfs_sum(terms, x):
    """S(x) = sum_m a_m Q^bfs_m(x) and dS/dx, at x = u^2.

    A surface's departure is u^2 (1 - u^2) S(u^2) (divided by
    sqrt(1 - c^2 rho^2) for the [2007] normal-departure form); its u-derivative
    is 2u [(1 - 2x) S + x (1 - x) dS/dx].

    Parameters
    ----------
    terms : QbfsPrepared, or array or sequence of shape (M + 1,)
        Prepared data from :func:`prepare_qbfs`, or the coefficients a_m.
    x : array, any shape
        The squared normalized radius u^2.

    Returns
    -------
    S, dS_dx : arrays shaped like x
    """
    x = as_float_array(x)
    prepared = terms if isinstance(terms, QbfsPrepared) else prepare_qbfs(terms)
    if not prepared.b:
        zero = be.zeros_like(x)
        return zero, zero
    return _QBFS_P.clenshaw(x, [list(prepared.b)])[0]


def _coefficient_rows(coefficients, name):
    """Rows indexed by m as 1-D arrays (ragged nested sequences allowed)."""
    if coefficients is None:
        return []
    if be.is_array(coefficients):
        c = as_coefficients(coefficients)
        if len(c.shape) != 2:
            raise ValueError(f"{name} must be 2-D [m][n], got shape {tuple(c.shape)}")
        return [c[m] for m in range(int(c.shape[0]))]
    return [coefficient_vector(row, f"{name}[{m}]") for m, row in enumerate(coefficients)]


def prepare_q2d(cos_coefficients, sin_coefficients=None):
    """Prepared data for :func:`q2d_sum` from the [2012] coefficients a^m_n and b^m_n.

    Parameters
    ----------
    cos_coefficients : 2-D array (M + 1, N + 1) or ragged nested sequence
        ``cos_coefficients[m][n]`` = a^m_n, multiplying Q^m_n cos m theta
        (for m = 0, the rotationally symmetric a^0_n).
    sin_coefficients : same form, optional
        ``sin_coefficients[m][n]`` = b^m_n, multiplying Q^m_n sin m theta;
        row m = 0 is ignored (there is no b^0_n).

    Returns
    -------
    Q2DPrepared
        Gradient-carrying when the coefficients are (build caches under
        ``be.enable_grad()``; see the module notes).
    """
    cos_rows = _coefficient_rows(cos_coefficients, "Q2D cos coefficients")
    sin_rows = _coefficient_rows(sin_coefficients, "Q2D sin coefficients")
    terms = []
    for m in range(max(len(cos_rows), len(sin_rows))):
        prepared = []
        for rows in (cos_rows, sin_rows if m else []):
            a = rows[m] if m < len(rows) else None
            if a is None or int(a.shape[0]) == 0:
                prepared.append(None)
            elif m == 0:
                f, g, h = qbfs_tables(int(a.shape[0]) - 1)
                prepared.append(_back_substitute(a, f, g, h))
            else:
                prepared.append(_back_substitute(a, *q2d_tables(m, int(a.shape[0]) - 1)))
        if prepared[0] is not None or prepared[1] is not None:
            terms.append((m, prepared[0], prepared[1]))
    return Q2DPrepared(tuple(terms))


def q2d_sum(coefficients, x, y, sin_coefficients=None):
    """The [2012] freeform departure and its Cartesian gradient at normalized (x, y).

    delta(x, y) = u^2 (1 - u^2) sum_n a^0_n Q^0_n(u^2)
                  + sum_{m >= 1} sum_n [a^m_n C_m + b^m_n S_m] Q^m_n(u^2)

    with u^2 = x^2 + y^2, C_m = u^m cos m theta = Re (x + iy)^m and
    S_m = u^m sin m theta = Im (x + iy)^m, so everything is polynomial in x, y
    and finite (with finite autograd) at the vertex.  The surface adds the
    base conic and the [2012] 1 / sqrt(1 - c^2 rho^2) factor and applies the
    1 / rho_max chain factor to the gradient.

    Parameters
    ----------
    coefficients : Q2DPrepared, or the cos coefficients a^m_n
        Prepared data from :func:`prepare_q2d`, or ``cos_coefficients`` as
        accepted there (then ``sin_coefficients`` may give b^m_n).
    x, y : arrays, broadcastable shapes
        Normalized Cartesian coordinates (x, y) = u (cos theta, sin theta).
    sin_coefficients : optional
        b^m_n when ``coefficients`` is not prepared.

    Returns
    -------
    z, dz_dx, dz_dy : arrays of the broadcast shape of x and y
    """
    if isinstance(coefficients, Q2DPrepared):
        if sin_coefficients is not None:
            raise ValueError("sin_coefficients must be None when coefficients are already prepared")
        prepared = coefficients
    else:
        prepared = prepare_q2d(coefficients, sin_coefficients)
    x, y, u2 = broadcast_xy(x, y)
    harmonic_lists = harmonics(x, y, max((m for m, _, _ in prepared.terms), default=0))
    zero = be.zeros_like(u2)
    total = (zero, zero, zero)
    for m, b_cos, b_sin in prepared.terms:
        if m == 0:
            s, ds = _QBFS_P.clenshaw(u2, [list(b_cos)])[0]
            weight = u2 * (1.0 - u2)  # the [2012] u^2 (1 - u^2) prefactor of the m = 0 part
            radial, radial_ds = weight * s, (1.0 - 2.0 * u2) * s + weight * ds
            total = add_term(total, radial, radial_ds, 0, COS, harmonic_lists, x, y)
            continue
        kinds = [(list(b), kind) for b, kind in ((b_cos, COS), (b_sin, SIN)) if b is not None]
        length = max(len(b) for b, _ in kinds)
        padded = [b + [0.0] * (length - len(b)) for b, _ in kinds]
        sums = _q2d_family(m).clenshaw(u2, padded)
        for (radial, radial_ds), (_, kind) in zip(sums, kinds):
            total = add_term(total, radial, radial_ds, m, kind, harmonic_lists, x, y)
    return total
