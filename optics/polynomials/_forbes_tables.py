"""Scalar recurrence tables of Forbes' Q polynomials (pure Python floats, cached).

These depend only on the polynomial indices, never on coefficient values, so
caching them globally is autograd-safe.  References:

[2007] G. W. Forbes, "Shape specification for axially symmetric optical
       surfaces", Opt. Express 15(8), 5218 (2007): defines Q^bfs_m.
[2010] G. W. Forbes, "Robust, efficient computational methods for axially
       symmetric optical aspheres", Opt. Express 18(19), 19700 (2010): the
       auxiliary P_m of Eq. (2.6) and the f, g, h tables of Eqs. (A.14)-(A.16)
       that generate the [2007] basis.
[2012] G. W. Forbes, "Characterizing the shape of freeform optics",
       Opt. Express 20(3), 2483 (2012): Q^m_n, the auxiliary P^m_n with the
       A, B, C of Eq. (A.3), F of Eq. (A.13), G of Eq. (A.15) and f, g of
       Eq. (A.18).

The tables were checked symbolically: F^m_n and G^m_n are exactly the
diagonal and first off-diagonal of the (tridiagonal) Gram matrix of the P^m_n
under the [2012] gradient inner product, so the Q^m_n come out orthonormal.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache


@cache
def qbfs_tables(m_max):
    """f_0..f_M, g_0..g_{M-1}, h_0..h_{M-2} of [2010] Eqs. (A.14)-(A.16).

    Q^bfs_m = (P_m - g_{m-1} Q^bfs_{m-1} - h_{m-2} Q^bfs_{m-2}) / f_m with
    f_0 = 2, f_1 = sqrt(19) / 2, g_0 = -1/2 and, for m >= 2,
    h_{m-2} = -m (m - 1) / (2 f_{m-2}),
    g_{m-1} = -(1 + g_{m-2} h_{m-2}) / f_{m-1},
    f_m = sqrt(m (m + 1) + 3 - g_{m-1}^2 - h_{m-2}^2).
    """
    f = [2.0, math.sqrt(19.0) / 2.0][: m_max + 1]
    g = [-0.5][: max(m_max, 0)]
    h = []
    for m in range(2, m_max + 1):
        h.append(-m * (m - 1) / (2.0 * f[m - 2]))
        g.append(-(1.0 + g[m - 2] * h[m - 2]) / f[m - 1])
        f.append(math.sqrt(m * (m + 1) + 3.0 - g[m - 1] ** 2 - h[m - 2] ** 2))
    return tuple(f), tuple(g), tuple(h)


def _double_factorial(k):
    """k!! for k >= -1 (with (-1)!! = 0!! = 1)."""
    out = 1
    for factor in range(k, 0, -2):
        out *= factor
    return out


@cache
def q2d_abc(n, m):
    """(A^m_n, B^m_n, C^m_n) of [2012] Eq. (A.3): P^m_{n+1} = (A + B x) P^m_n - C P^m_{n-1}.

    Valid for m >= 2, n >= 1 and for m = 1, n >= 3 (where D != 0).
    """
    d = (4 * n * n - 1) * (m + n - 2) * (m + 2 * n - 3)
    a = (2 * n - 1) * (m + 2 * n - 2) * (4 * n * (m + n - 2) + (m - 3) * (2 * m - 1)) / d
    b = -2 * (2 * n - 1) * (m + 2 * n - 3) * (m + 2 * n - 2) * (m + 2 * n - 1) / d
    c = n * (2 * n - 3) * (m + 2 * n - 1) * (2 * m + 2 * n - 3) / d
    return a, b, c


@cache
def _gamma(n, m):
    """gamma^m_n of [2012] Appendix A, for m >= 2, n >= 1: gamma^2_1 = 3/8."""
    if n == 1:
        if m == 2:
            return 3.0 / 8.0
        return (2 * m - 1) / (2.0 * (m - 2)) * _gamma(1, m - 1)
    return n * (2 * m + 2 * n - 3) / ((m + n - 3) * (2.0 * n - 1)) * _gamma(n - 1, m)


def _F(n, m):
    """F^m_n of [2012] Eq. (A.13): the Gram diagonal <P^m_n, P^m_n>."""
    if n == 0:
        return float(
            Fraction(m * m * _double_factorial(2 * m - 3), 2 ** (m + 1) * math.factorial(m - 1))
        )
    if m == 1:
        return (4 * (n - 1) ** 2 * n * n + 1) / (8.0 * (2 * n - 1) ** 2) + (
            11.0 / 32.0 if n == 1 else 0.0
        )
    chi = m + n - 2
    numerator = 2 * n * chi * (3 - 5 * m + 4 * n * chi) + m * m * (3 - m + 4 * n * chi)
    denominator = (m + 2 * n - 3) * (m + 2 * n - 2) * (m + 2 * n - 1) * (2 * n - 1)
    return numerator / denominator * _gamma(n, m)


def _G(n, m):
    """G^m_n of [2012] Eq. (A.15): the Gram off-diagonal <P^m_n, P^m_{n+1}>."""
    if n == 0:
        return float(Fraction(_double_factorial(2 * m - 1), 2 ** (m + 1) * math.factorial(m - 1)))
    if m == 1:
        return -(2 * n * n - 1) * (n * n - 1) / (8.0 * (4 * n * n - 1)) - (
            1.0 / 24.0 if n == 1 else 0.0
        )
    numerator = (2 * n * (m + n - 1) - m) * (n + 1) * (2 * m + 2 * n - 1)
    denominator = (m + 2 * n - 2) * (m + 2 * n - 1) * (m + 2 * n) * (2 * n + 1)
    return -numerator / denominator * _gamma(n, m)


@cache
def q2d_tables(m, n_max):
    """f^m_0..f^m_N and g^m_0..g^m_{N-1} of [2012] Eq. (A.18), for m >= 1.

    Q^m_0 = P^m_0 / f_0 and Q^m_n = (P^m_n - g_{n-1} Q^m_{n-1}) / f_n with
    f_0 = sqrt(F_0), g_{n-1} = G_{n-1} / f_{n-1}, f_n = sqrt(F_n - g_{n-1}^2).
    """
    f = [math.sqrt(_F(0, m))]
    g = []
    for n in range(1, n_max + 1):
        g.append(_G(n - 1, m) / f[n - 1])
        f.append(math.sqrt(_F(n, m) - g[n - 1] ** 2))
    return tuple(f), tuple(g)
