"""The fixed-shape variant of :func:`newton_2x2`, for code traced by a compiler (jit, vmap).

:func:`newton_2x2` stops when every element has finished and ends each line
search when every element has accepted a step: two host reads per step.
Under ``jax.jit`` or ``jax.vmap`` values cannot be read on the host, so this
variant runs the same damped Newton iteration as two nested
:func:`optics.backend.graph_free_loop` calls (one ``lax.while_loop`` each on
JAX, ending on device once no element is active).  Each element follows the
same sequence of steps as in :func:`newton_2x2`; the residual and the
Jacobian come from one evaluation (``residual_and_jacobian``), because the
iteration state cannot keep a Python cache.
"""

from __future__ import annotations

from optics import backend as be

from ._condition import SINGULAR_CONSTANT, normalized_solve_masked
from ._field_newton import Newton2x2Result, _norm, _tolerance
from ._thresholds import ROUND_OFF_CONSTANT


def newton_2x2_static(
    residual_and_jacobian,
    q0,
    *,
    tol=1e-10,
    max_iter=50,
    max_halvings=30,
    round_off_constant=ROUND_OFF_CONSTANT,
    singular_constant=SINGULAR_CONSTANT,
) -> tuple[Newton2x2Result, object]:
    """:func:`newton_2x2` without host reads; also returns the Jacobian at the last iterate.

    Parameters
    ----------
    residual_and_jacobian : callable
        ``q -> (R, J)``, q and R of shape (..., 2), J of shape (..., 2, 2),
        J[..., i, j] = dR_i/dq_j; must record nothing (detached inputs).
    q0 : array, shape (..., 2)
        Starting point (used detached).
    tol, max_iter, max_halvings, round_off_constant, singular_constant
        As in :func:`newton_2x2` (``tol`` may be a 0-d array).

    Returns
    -------
    result : Newton2x2Result
        As from :func:`newton_2x2`, except that ``n_iter`` is a 0-d integer
        array (the steps in which some element was active).
    J : array, shape (..., 2, 2)
        The Jacobian at ``result.q`` (detached), for the implicit correction.
    """
    with be.no_grad():
        q = be.detach(q0)
        R, J = residual_and_jacobian(q)
        norm = _norm(R)
        converged = norm <= _tolerance(tol, q, round_off_constant)
        singular = converged & False
        steps = be.zeros((), dtype="int64", device=be.device_of(q))

        def active(state):
            _, _, _, norm, converged, singular, stalled, _ = state
            return ~converged & ~singular & ~stalled & be.isfinite(norm)

        def line_search(state):
            q, R, J, norm, pending, step, delta = state
            candidate = q - step[..., None] * delta
            R_c, J_c = residual_and_jacobian(candidate)
            norm_c = _norm(R_c)
            accept = pending & (norm_c < norm)
            q = be.where(accept[..., None], candidate, q)
            R = be.where(accept[..., None], R_c, R)
            J = be.where(accept[..., None, None], J_c, J)
            norm = be.where(accept, norm_c, norm)
            pending = pending & ~accept
            step = be.where(pending, step / 2, step)
            return q, R, J, norm, pending, step, delta

        def newton_step(state):
            q, R, J, norm, converged, singular, stalled, steps = state
            now = active(state)
            delta, singular_now = normalized_solve_masked(J, R, constant=singular_constant)
            singular = singular | (now & singular_now)
            pending = now & ~singular_now
            searched = be.graph_free_loop(
                line_search,
                (q, R, J, norm, pending, be.ones_like(norm), delta),
                max_halvings + 1,
                active=lambda s: s[4],
            )
            q, R, J, norm, pending = searched[:5]
            stalled = stalled | pending
            converged = norm <= _tolerance(tol, q, round_off_constant)
            steps = steps + be.astype(be.any(now), "int64")
            return q, R, J, norm, converged, singular, stalled, steps

        state = (q, R, J, norm, converged, singular, singular, steps)
        state = be.graph_free_loop(newton_step, state, max_iter, active=active)
        q, R, J, norm, converged, singular, stalled, steps = state
    result = Newton2x2Result(
        q=q,
        converged=converged,
        residual_norm=norm,
        n_iter=steps,
        singular=singular & ~converged,
        stalled=stalled & ~converged,
    )
    return result, J
