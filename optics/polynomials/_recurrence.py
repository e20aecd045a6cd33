"""Three-term recurrences shared by the polynomial families: values, derivatives, Clenshaw sums.

A family p_0, p_1, ... is given by explicit low-order seeds p_0 .. p_s and, for
k >= s, by

    p_{k+1}(x) = (alpha_k + beta_k x) p_k(x) - gamma_k p_{k-1}(x).

Derivatives come from differentiating the recurrence itself (forward mode),

    p'_{k+1} = beta_k p_k + (alpha_k + beta_k x) p'_k - gamma_k p'_{k-1},

which costs one more multiply-add per step, is as stable as the values, and
never divides by x or uses a closed form (arccos, atan2, 1/rho) whose autograd
breaks down at the ends of the interval or at the origin.
"""

from __future__ import annotations

from .. import backend as be


def as_float_array(x):
    """x unchanged when it is an array, else a float array of the configured backend."""
    if be.is_array(x):
        return x
    return be.asarray(x, dtype=be.float_dtype())


def as_coefficients(coefficients):
    """Coefficients as an array: arrays as received, sequences on the configured backend.

    Arrays are used as they are (operations dispatch on them, so pass them on
    the backend of the evaluation points); sequences become the configured
    float dtype, and sequences holding 0-d grad-carrying tensors are stacked
    without detaching.
    """
    if be.is_array(coefficients):
        return coefficients
    return be.asarray(coefficients, dtype=be.float_dtype())


def coefficient_vector(coefficients, name):
    """Coefficients as a 1-D array (see :func:`as_coefficients`)."""
    c = as_coefficients(coefficients)
    if len(c.shape) != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {tuple(c.shape)}")
    return c


class ThreeTermRecurrence:
    """A polynomial family defined by seeds and a three-term recurrence.

    Parameters
    ----------
    seeds : callable
        ``seeds(x) -> [(p_0, p_0'), ..., (p_s, p_s')]``, arrays shaped like x.
    step : callable
        ``step(k) -> (alpha_k, beta_k, gamma_k)`` as Python floats, for k >= s.
    """

    __slots__ = ("_seeds", "_step", "order")

    def __init__(self, seeds, step, order):
        self._seeds = seeds
        self._step = step
        self.order = order  # s: index of the last seed

    def forward(self, x, n_max):
        """Lists ``[p_0 .. p_n_max]`` and ``[p_0' .. p_n_max']`` evaluated at x."""
        seeds = self._seeds(x)[: n_max + 1]
        p = [value for value, _ in seeds]
        dp = [slope for _, slope in seeds]
        for k in range(self.order, n_max):
            alpha, beta, gamma = self._step(k)
            factor = alpha + beta * x
            p.append(factor * p[k] - gamma * p[k - 1])
            dp.append(beta * p[k] + factor * dp[k] - gamma * dp[k - 1])
        return p, dp

    def clenshaw(self, x, coefficient_lists):
        """Sums ``S_i = sum_k c_ik p_k(x)`` and ``dS_i/dx`` for several coefficient lists.

        Clenshaw's backward recurrence,
        ``B_k = c_k + (alpha_k + beta_k x) B_{k+1} - gamma_{k+1} B_{k+2}``,
        gives ``S = sum_{k<s} c_k p_k + B_s p_s - gamma_s B_{s+1} p_{s-1}``;
        differentiating it gives dS/dx in the same pass.  The lists share one
        ``alpha_k + beta_k x`` per step.  Entries may be Python floats or 0-d
        arrays (gradients flow to them); all lists must have the same length.

        Returns
        -------
        list of (S, dS_dx)
            One pair per coefficient list, each shaped like x.
        """
        n_max = len(coefficient_lists[0]) - 1
        s = self.order
        seeds = self._seeds(x)
        if n_max < s:
            return [_direct_sum(c, seeds) for c in coefficient_lists]
        count = len(coefficient_lists)
        b1, b2 = [0.0] * count, [0.0] * count  # B_{k+1}, B_{k+2}
        d1, d2 = [0.0] * count, [0.0] * count  # their x-derivatives
        for k in range(n_max, s - 1, -1):
            alpha, beta, _ = self._step(k)
            gamma_next = self._step(k + 1)[2] if k < n_max else 0.0
            factor = alpha + beta * x
            for i, c in enumerate(coefficient_lists):
                b_k = c[k] + factor * b1[i] - gamma_next * b2[i]
                d_k = beta * b1[i] + factor * d1[i] - gamma_next * d2[i]
                b1[i], b2[i] = b_k, b1[i]
                d1[i], d2[i] = d_k, d1[i]
        gamma_s = self._step(s)[2]
        (p_prev, dp_prev), (p_s, dp_s) = seeds[s - 1], seeds[s]
        out = []
        for i, c in enumerate(coefficient_lists):
            total, slope = _direct_sum(c[:s], seeds)
            total = total + b1[i] * p_s - gamma_s * b2[i] * p_prev
            slope = (
                slope + d1[i] * p_s + b1[i] * dp_s - gamma_s * (d2[i] * p_prev + b2[i] * dp_prev)
            )
            out.append((total, slope))
        return out


def _direct_sum(coefficients, seeds):
    """sum_k c_k p_k and its derivative over the first len(coefficients) seeds."""
    total, slope = 0.0, 0.0
    for c_k, (p_k, dp_k) in zip(coefficients, seeds):
        total = total + c_k * p_k
        slope = slope + c_k * dp_k
    return total, slope
