"""Scale-invariant conditioning test and normalized solve for batches of 2x2 systems.

A 2x2 Jacobian J is first divided by its largest-magnitude entry s, giving
A = J / s with entries in [-1, 1].  Everything is then computed on A:

- the condition ratio rho_F = |det A| / ||A||_F**2 (= s1 s2 / (s1**2 + s2**2)
  for singular values s1 >= s2, about 1 / cond(J), and at most 1/2) does not
  change when J is rescaled, so 1e-3 * I and 1e+6 * I are equally good;
- the solve J d = R becomes A d = R / s with the explicit 2x2 inverse of A,
  whose determinant can neither overflow nor underflow for a non-singular
  matrix, whatever the magnitude of J (entries near 1e+-150 are fine).

A singular matrix (rho_F <= C * eps, any non-finite entry, or s == 0) is
never "fixed" by clipping its determinant: :func:`normalized_solve` raises
:class:`~optics.errors.SolveError`, and :func:`normalized_solve_masked`
returns a zero step with a mask for batched iterations that freeze such
elements.
"""

from __future__ import annotations

from optics import backend as be
from optics.errors import SolveError

from ._thresholds import SINGULAR_CONSTANT, singular_threshold


def _entries(M):
    """The four entries (a, b, c, d) of a batch of 2x2 matrices, each shape (...)."""
    return M[..., 0, 0], M[..., 0, 1], M[..., 1, 0], M[..., 1, 1]


def _normalize(J):
    """(s, A, det A, rho_F, finite): s detached (1 for an all-zero or non-finite J).

    rho_F is 0 for an all-zero J and NaN for a non-finite one, whose entries
    are zeroed first so that no inf/inf or 0/0 is ever formed.
    """
    finite = be.all(be.isfinite(J), axis=(-2, -1))
    J = be.where(finite[..., None, None], J, be.zeros_like(J))
    s = be.detach(be.max(be.abs(J), axis=(-2, -1)))
    s = be.where(s > 0, s, be.ones_like(s))
    A = J / s[..., None, None]
    a, b, c, d = _entries(A)
    det = a * d - b * c
    frob2 = a * a + b * b + c * c + d * d
    rho = be.abs(det) / be.where(frob2 > 0, frob2, be.ones_like(frob2))
    return s, A, det, be.where(finite, rho, float("nan")), finite


def _singular(J, rho, finite, constant):
    """Singularity mask from rho_F, plus any non-finite entry or an all-zero matrix."""
    return ~finite | ~(rho > singular_threshold(J, constant))


def condition_ratio(J):
    """Scale-invariant condition ratio rho_F = |det A| / ||A||_F**2 of A = J / max|J_ij|.

    Parameters
    ----------
    J : array, shape (..., 2, 2)
        Batch of 2x2 matrices.

    Returns
    -------
    array, shape (...)
        rho_F in [0, 1/2]: 1/2 for a multiple of a rotation or of the
        identity, about 1 / cond(J) when J is ill-conditioned, 0 for a rank-1
        or all-zero matrix, NaN when J has a non-finite entry.
    """
    return _normalize(J)[3]


def is_singular(J, *, constant=SINGULAR_CONSTANT):
    """True where a 2x2 matrix is too close to singular to solve with.

    Parameters
    ----------
    J : array, shape (..., 2, 2)
        Batch of 2x2 matrices.
    constant : float
        C in the threshold rho_F <= C * eps, eps of J's dtype.

    Returns
    -------
    array of bool, shape (...)
        rho_F <= C * eps, or any entry non-finite, or J all zero.  Rescaling
        J by any factor that keeps its entries normal floats does not change
        the answer except for matrices within round-off of the threshold.
    """
    _, _, _, rho, finite = _normalize(J)
    return _singular(J, rho, finite, constant)


def _solve_normalized(A, det, r):
    """Explicit 2x2 inverse: A^-1 r = adj(A) r / det A, r of shape (..., 2)."""
    a, b, c, d = _entries(A)
    r0, r1 = r[..., 0], r[..., 1]
    return be.stack([(d * r0 - b * r1) / det, (a * r1 - c * r0) / det], axis=-1)


def normalized_solve_masked(J, R, *, constant=SINGULAR_CONSTANT):
    """Solve J d = R for every non-singular matrix of a batch; zero step elsewhere.

    Parameters
    ----------
    J : array, shape (..., 2, 2)
        Batch of matrices.
    R : array, shape (..., 2)
        Right-hand sides.
    constant : float
        Singularity constant, as in :func:`is_singular`.

    Returns
    -------
    delta : array, shape (..., 2)
        J^-1 R where J is non-singular, exactly 0 where it is singular (no
        step is fabricated from a clipped determinant).
    singular : array of bool, shape (...)
        The :func:`is_singular` mask.
    """
    s, A, det, rho, finite = _normalize(J)
    singular = _singular(J, rho, finite, constant)
    safe_det = be.where(singular, be.ones_like(det), det)
    delta = _solve_normalized(A, safe_det, R / s[..., None])
    return be.where(singular[..., None], be.zeros_like(delta), delta), singular


def normalized_solve(J, R, *, constant=SINGULAR_CONSTANT, name="2x2 solve"):
    """Solve J d = R through A d = R / s with the explicit inverse of A = J / s.

    Differentiable in J and R on torch (s is a detached scale; the identity
    (J/s)^-1 (R/s) = J^-1 R holds for any s).

    Parameters
    ----------
    J : array, shape (..., 2, 2)
        Batch of matrices.
    R : array, shape (..., 2)
        Right-hand sides.
    constant : float
        Singularity constant, as in :func:`is_singular`.
    name : str
        Names the solve in the error message.

    Returns
    -------
    array, shape (..., 2)
        d = J^-1 R, finite for any non-singular J with normal-float entries
        (no raw determinant is formed, so entries near 1e+-150 are fine).

    Raises
    ------
    SolveError
        When any matrix of the batch is singular (one host sync to check).  Under
        ``jax.jit`` or ``jax.vmap`` the check cannot run: a singular matrix gives
        d = 0 instead.
    """
    s, A, det, rho, finite = _normalize(J)
    singular = _singular(J, rho, finite, constant)
    if be.is_abstract(singular):  # under jax.jit nothing can be checked: no step where singular
        delta = _solve_normalized(A, be.where(singular, 1.0, det), R / s[..., None])
        return be.where(singular[..., None], be.zeros_like(delta), delta)
    if be.item(be.any(singular)):
        n_bad = int(be.item(be.sum(singular)))
        worst = float(be.item(be.min(be.where(be.isfinite(rho), rho, be.zeros_like(rho)))))
        raise SolveError(
            f"{name}: {n_bad} of {be.size(singular)} Jacobians are singular "
            f"(condition ratio {worst:.3g} <= {singular_threshold(J, constant):.3g}, "
            "or a non-finite or all-zero matrix)"
        )
    return _solve_normalized(A, det, R / s[..., None])
