"""Azimuthal factors u^m cos m theta, u^m sin m theta in Cartesian form, and term assembly.

With normalized Cartesian coordinates (x, y) = u (cos theta, sin theta),
u^k cos k theta = Re (x + iy)^k = C_k and u^k sin k theta = Im (x + iy)^k = S_k
follow the real recurrences C_k = x C_{k-1} - y S_{k-1},
S_k = x S_{k-1} + y C_{k-1}.  Because z^k is holomorphic, their gradients are
(dC_k/dx, dC_k/dy) = k (C_{k-1}, -S_{k-1}) and
(dS_k/dx, dS_k/dy) = k (S_{k-1}, C_{k-1}): polynomials, finite with finite
autograd at the origin, where theta = atan2(y, x) is undefined.
"""

from __future__ import annotations

from .. import backend as be
from ._recurrence import as_float_array

COS, SIN = 0, 1


def broadcast_xy(x, y):
    """x and y as float arrays broadcast to one shape, and s = x^2 + y^2."""
    x = as_float_array(x)
    y = as_float_array(y)
    x = x + be.zeros_like(y)
    y = y + be.zeros_like(x)
    return x, y, x * x + y * y


def harmonics(x, y, m_max):
    """Lists C_k = Re (x+iy)^k and S_k = Im (x+iy)^k for k = 0 .. m_max."""
    cos_terms, sin_terms = [be.ones_like(x)], [be.zeros_like(x)]
    for k in range(1, m_max + 1):
        c_prev, s_prev = cos_terms[k - 1], sin_terms[k - 1]
        cos_terms.append(x * c_prev - y * s_prev)
        sin_terms.append(x * s_prev + y * c_prev)
    return cos_terms, sin_terms


def add_term(total, radial, radial_ds, m, kind, harmonic_lists, x, y):
    """total + radial(s) * H_m(x, y) with its gradient; H_m is C_m (kind COS) or S_m (SIN).

    ``total`` is (z, dz_dx, dz_dy); ``radial_ds`` is the derivative of the radial
    factor with respect to s = x^2 + y^2, so d/dx adds 2 x radial_ds H_m.
    """
    cos_terms, sin_terms = harmonic_lists
    z, dz_dx, dz_dy = total
    if kind == COS:
        h = cos_terms[m]
        h_x = m * cos_terms[m - 1] if m else 0.0
        h_y = -m * sin_terms[m - 1] if m else 0.0
    else:
        h = sin_terms[m]
        h_x = m * sin_terms[m - 1]
        h_y = m * cos_terms[m - 1]
    radial_slope = 2.0 * radial_ds * h
    return (
        z + radial * h,
        dz_dx + radial_slope * x + radial * h_x,
        dz_dy + radial_slope * y + radial * h_y,
    )
