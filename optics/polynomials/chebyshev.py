"""Chebyshev polynomials of the first kind with derivatives, in one and two variables.

Values use T_0 = 1, T_1 = x, T_n = 2x T_{n-1} - T_{n-2}; derivatives use
T_n' = n U_{n-1} with the second-kind recurrence U_0 = 1, U_1 = 2x,
U_n = 2x U_{n-1} - U_{n-2}.  Both are plain polynomial arithmetic, so values,
derivatives and their autograd are finite everywhere, including x = +-1, where
the trigonometric form cos(n arccos x) has a 0/0 derivative.  At x = +-1 the
recurrences run in exact integer arithmetic and give T_n'(+-1) = (+-1)^(n-1) n^2
exactly.
"""

from __future__ import annotations

from .. import backend as be
from ._recurrence import as_coefficients, as_float_array, coefficient_vector

__all__ = ["chebyshev_t", "chebyshev_t_lists", "chebyshev_sum", "chebyshev_2d"]


def _chebyshev_lists(x, n_max, constants=False):
    """Lists [T_0 .. T_n_max] and [T_0' .. T_n_max'] at x.

    With ``constants`` the constant entries (T_0 = 1, T_0' = 0, T_1' = 1) are
    Python numbers, not arrays: no pass over memory to fill them, the same
    values everywhere else.
    """
    if n_max < 0:
        raise ValueError(f"n_max must be >= 0, got {n_max}")
    one = 1.0 if constants else be.ones_like(x)
    values, slopes = [one], [0.0 if constants else be.zeros_like(x)]
    if n_max == 0:
        return values, slopes
    two_x = 2.0 * x
    values.append(x)
    u_prev, u_curr = one, two_x  # U_0, U_1
    slopes.append(one)  # T_1' = 1 * U_0
    for n in range(2, n_max + 1):
        values.append(two_x * values[n - 1] - values[n - 2])
        slopes.append(n * u_curr)  # T_n' = n U_{n-1}
        if n < n_max:  # U_n is needed only for the next degree
            u_prev, u_curr = u_curr, two_x * u_curr - u_prev
    return values, slopes


def chebyshev_t_lists(x, n_max, constants=False):
    """T_0 .. T_n_max and their derivatives at x as two lists of arrays (nothing stacked).

    For callers that combine the terms elementwise with scalar coefficients
    (a surface's sag): no copy into a stacked array, and entries multiplied
    by a zero coefficient can be skipped.

    Returns
    -------
    values, derivatives : lists of n_max + 1 arrays shaped like x
        (with ``constants``, T_0, T_0' and T_1' are the Python numbers 1, 0, 1)
    """
    return _chebyshev_lists(as_float_array(x), n_max, constants)


def chebyshev_t(x, n_max):
    """Chebyshev polynomials T_0 .. T_n_max and their derivatives at x.

    Parameters
    ----------
    x : array, any shape
        Evaluation points (normally in [-1, 1]; the polynomials are defined
        everywhere).
    n_max : int
        Highest degree, >= 0.

    Returns
    -------
    values, derivatives : arrays, shape (n_max + 1, *x.shape)
        ``values[n] = T_n(x)`` and ``derivatives[n] = dT_n/dx``.
    """
    x = as_float_array(x)
    values, slopes = _chebyshev_lists(x, n_max)
    return be.stack(values, axis=0), be.stack(slopes, axis=0)


def chebyshev_sum(coefficients, x):
    """The series f(x) = sum_n c_n T_n(x) and df/dx.

    Parameters
    ----------
    coefficients : array or sequence, shape (N + 1,)
        ``coefficients[n]`` multiplies T_n; may hold 0-d grad-carrying tensors.
    x : array, any shape
        Evaluation points.

    Returns
    -------
    f, df_dx : arrays shaped like x
    """
    x = as_float_array(x)
    c = coefficient_vector(coefficients, "Chebyshev coefficients")
    values, slopes = _chebyshev_lists(x, int(c.shape[0]) - 1)
    basis = be.stack(values, axis=-1)  # (*x.shape, N + 1)
    basis_slopes = be.stack(slopes, axis=-1)
    return be.sum(basis * c, axis=-1), be.sum(basis_slopes * c, axis=-1)


def chebyshev_2d(coefficients, u, v):
    """The tensor-product series f(u, v) = sum_ij c_ij T_i(u) T_j(v) and its gradient.

    u and v are already normalized (typically x / x_norm, y / y_norm); the
    caller multiplies ``df_du`` and ``df_dv`` by the chain factors 1 / x_norm
    and 1 / y_norm.

    The T lists of each variable are computed once and stacked on a last
    axis, then contracted with the coefficient matrix by one matrix product
    per derivative, ``H = T(u) @ C`` and ``H_u = T'(u) @ C`` (shape
    (..., J + 1)), followed by ``f = sum_j H T_j(v)``,
    ``df/du = sum_j H_u T_j(v)`` and ``df/dv = sum_j H T'_j(v)``.  This costs
    two (I+1)x(J+1) contractions per point instead of the three separate
    double sums, maps onto a batched GEMM on accelerators, keeps the autograd
    graph small (a few large nodes rather than (I+1)(J+1) small ones) and gives
    the coefficient gradient T_i(u) T_j(v) directly.  Clenshaw in each variable
    would save the stacked basis memory but needs a second recurrence per
    derivative and one recurrence per coefficient row; for the orders used in
    freeform surfaces (I, J <~ 20) memory is not the constraint.

    Parameters
    ----------
    coefficients : array or nested sequence, shape (I + 1, J + 1)
        ``coefficients[i][j]`` multiplies T_i(u) T_j(v); may hold 0-d
        grad-carrying tensors.
    u, v : arrays, mutually broadcastable shapes
        Normalized coordinates.

    Returns
    -------
    f, df_du, df_dv : arrays of the broadcast shape of u and v
    """
    u = as_float_array(u)
    v = as_float_array(v)
    c = as_coefficients(coefficients)
    if len(c.shape) != 2:
        raise ValueError(f"Chebyshev 2-D coefficients must be a matrix, got shape {tuple(c.shape)}")
    tu, dtu = _chebyshev_lists(u, int(c.shape[0]) - 1)
    tv, dtv = _chebyshev_lists(v, int(c.shape[1]) - 1)
    basis_v = be.stack(tv, axis=-1)  # (*v.shape, J + 1)
    slopes_v = be.stack(dtv, axis=-1)
    h = be.matmul(be.stack(tu, axis=-1), c)  # (*u.shape, J + 1): sum_i c_ij T_i(u)
    h_u = be.matmul(be.stack(dtu, axis=-1), c)
    f = be.sum(h * basis_v, axis=-1)
    df_du = be.sum(h_u * basis_v, axis=-1)
    df_dv = be.sum(h * slopes_v, axis=-1)
    return f, df_du, df_dv
