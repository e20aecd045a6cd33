"""Batched damped Newton for 2x2 systems R(q) = 0, and its implicit correction.

Used by the real-image-height field solve (q: the two object-space field
coordinates, R: the chief ray's image-plane miss).  The iteration is
graph-free; :func:`implicit_correction_2x2` then attaches the derivative
dq/dθ = -J^-1 dR/dθ with one grad-attached residual evaluation, exactly as
the scalar solver does for surface intersections.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from optics import backend as be

from ._condition import SINGULAR_CONSTANT, normalized_solve, normalized_solve_masked
from ._thresholds import ROUND_OFF_CONSTANT


@dataclass(frozen=True)
class Newton2x2Result:
    """Outcome of :func:`newton_2x2` for a batch of shape (...).

    Attributes
    ----------
    q : array, shape (..., 2)
        Last accepted iterate q̄ (detached).
    converged : array of bool, shape (...)
        ||R(q̄)|| within the dtype-aware tolerance.
    residual_norm : array, shape (...)
        ||R(q̄)||, Euclidean.
    n_iter : int
        Newton steps taken by the batch.
    singular : array of bool, shape (...)
        Stopped because the Jacobian was singular (see ``is_singular``).
    stalled : array of bool, shape (...)
        Stopped because no step, down to the last halving, reduced ||R||.
    """

    q: Any
    converged: Any
    residual_norm: Any
    n_iter: int
    singular: Any
    stalled: Any


def _norm(R):
    """Euclidean norm over the last axis of length 2, without overflow."""
    return be.hypot(R[..., 0], R[..., 1])


def _tolerance(tol, q, constant):
    """max(tol, C' * eps * max(1, ||q||_inf)) per batch element."""
    q_size = be.max(be.abs(q), axis=-1)
    return be.maximum(constant * be.machine_eps(q) * be.maximum(q_size, 1.0), tol)


def newton_2x2(
    residual_fn,
    jacobian_fn,
    q0,
    *,
    tol=1e-10,
    max_iter=50,
    max_halvings=30,
    round_off_constant=ROUND_OFF_CONSTANT,
    singular_constant=SINGULAR_CONSTANT,
) -> Newton2x2Result:
    """Solve R(q) = 0 for a batch of 2-vectors by damped Newton with backtracking.

    Each step solves J d = R with :func:`normalized_solve_masked` and tries
    q - d, q - d/2, q - d/4, ... until ||R|| decreases (at most
    ``max_halvings`` halvings).  Every batch element converges, stalls or
    stops on a singular Jacobian on its own; finished elements are frozen.
    Runs under ``be.no_grad()``: attach derivatives afterwards with
    :func:`implicit_correction_2x2`.

    Parameters
    ----------
    residual_fn : callable
        ``residual_fn(q) -> R``, q of shape (..., 2), R of shape (..., 2).
    jacobian_fn : callable
        ``jacobian_fn(q) -> J`` of shape (..., 2, 2), J[..., i, j] = dR_i/dq_j.
    q0 : array, shape (..., 2)
        Starting point (used detached).
    tol : float
        Requested tolerance on ||R||, raised per element to the round-off
        floor ``round_off_constant * eps * max(1, ||q||_inf)``.
    max_iter : int
        Most Newton steps.
    max_halvings : int
        Most step halvings in one backtracking line search.
    round_off_constant : float
        C' of the round-off floor.
    singular_constant : float
        C of the singularity test rho_F <= C * eps.

    Returns
    -------
    Newton2x2Result

    Notes
    -----
    Host syncs: one per Newton step and one per halving (field solves are
    small batches; the scalar solver is the hot path).
    """
    with be.no_grad():
        q = be.detach(q0)
        R = residual_fn(q)
        norm = _norm(R)
        converged = norm <= _tolerance(tol, q, round_off_constant)
        singular = converged & False
        stalled = singular
        n_iter = 0
        while n_iter < max_iter:
            active = ~converged & ~singular & ~stalled & be.isfinite(norm)
            if not be.item(be.any(active)):
                break
            delta, singular_now = normalized_solve_masked(
                jacobian_fn(q), R, constant=singular_constant
            )
            singular = singular | (active & singular_now)
            pending = active & ~singular_now
            step = be.ones_like(norm)
            for _ in range(max_halvings + 1):
                candidate = q - step[..., None] * delta
                R_candidate = residual_fn(candidate)
                norm_candidate = _norm(R_candidate)
                accept = pending & (norm_candidate < norm)
                q = be.where(accept[..., None], candidate, q)
                R = be.where(accept[..., None], R_candidate, R)
                norm = be.where(accept, norm_candidate, norm)
                pending = pending & ~accept
                if not be.item(be.any(pending)):
                    break
                step = be.where(pending, step / 2, step)
            stalled = stalled | pending
            converged = norm <= _tolerance(tol, q, round_off_constant)
            n_iter += 1
    return Newton2x2Result(
        q=q,
        converged=converged,
        residual_norm=norm,
        n_iter=n_iter,
        singular=singular & ~converged,
        stalled=stalled & ~converged,
    )


def implicit_correction_2x2(
    residual_attached, q_bar, J_bar, *, constant=SINGULAR_CONSTANT, name="2x2 implicit correction"
):
    """Attach dq/dθ to a graph-free root: q = q̄ - J̄^-1 R(q̄, θ), J̄ detached.

    The value is q̄ (R(q̄) is zero to tolerance); the derivative is the
    implicit-function one, -J^-1 dR/dθ, independent of how q̄ was found.

    Parameters
    ----------
    residual_attached : callable or array
        ``residual_attached(q) -> R`` of shape (..., 2), called once with the
        detached q̄ and evaluated grad-attached (so R depends on θ); or R(q̄)
        already evaluated that way.  Called only when gradients are recording.
    q_bar : array, shape (..., 2)
        The root from :func:`newton_2x2`.
    J_bar : array, shape (..., 2, 2)
        Jacobian dR/dq at q̄ (detached here).
    constant : float
        Singularity constant of the strict solve.
    name : str
        Names the solve in the error message.

    Returns
    -------
    array, shape (..., 2)
        q̄ itself unless ``be.grad_active()``; then the corrected root.

    Raises
    ------
    SolveError
        When gradients are recording and any J̄ is singular.
    """
    if not be.grad_active():
        return q_bar
    q_bar = be.detach(q_bar)
    R = residual_attached(q_bar) if callable(residual_attached) else residual_attached
    return q_bar - normalized_solve(be.detach(J_bar), R, constant=constant, name=name)
