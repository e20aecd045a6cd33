"""Rejection bookkeeping of the scalar Newton solve: categories, counts, the grouped warning.

A problem that is not regular at the root falls in exactly one category, in
priority order: ``non_finite``, ``non_converged``, ``tangent``, then the
problem's own categories.  A solve warns once, grouped, with the counts.
"""

from __future__ import annotations

import dataclasses
import warnings

from optics import backend as be

from ._thresholds import roundoff_tolerance, slope_floor

#: The solver's own rejection categories, in priority order (a problem falls
#: in the first that applies; the problem's own categories come after).
NON_FINITE, NON_CONVERGED, TANGENT = "non_finite", "non_converged", "tangent"


def union(masks):
    """Elementwise or of one or more masks."""
    masks = list(masks)
    out = masks[0]
    for m in masks[1:]:
        out = out | m
    return out


def classify(problem, t, F, F_t, scale, tol, floor_constant, round_off_constant):
    """Graph-free rejection masks at the root, mutually exclusive, in priority order."""
    extra = dict(problem.reject(t)) if hasattr(problem, "reject") else {}
    non_finite = ~(be.isfinite(t) & be.isfinite(F) & be.isfinite(F_t) & be.isfinite(scale))
    if NON_FINITE in extra:
        non_finite = non_finite | extra.pop(NON_FINITE)
    non_converged = ~non_finite & ~(be.abs(F) <= roundoff_tolerance(tol, t, round_off_constant))
    taken = non_finite | non_converged
    tangent = ~taken & (be.abs(F_t) <= slope_floor(scale, floor_constant))
    taken = taken | tangent
    rejected = {NON_FINITE: non_finite, NON_CONVERGED: non_converged, TANGENT: tangent}
    for key, mask in extra.items():
        rejected[key] = mask & ~taken
        taken = taken | rejected[key]
    return rejected


def tally(rejected):
    """Category counts as Python ints, in one host transfer."""
    host = be.to_numpy(be.stack([be.sum(m) for m in rejected.values()]))
    return {key: int(v) for key, v in zip(rejected, host)}


def warn_grouped_later(name, result, n, grad, stacklevel):
    """:func:`_warn` with the counts and the worst residual read after the trace."""
    if n == 0:
        return
    keys = list(result.rejected)
    abs_F = be.abs(result.residual)
    worst = be.max(be.where(be.isfinite(abs_F), abs_F, 0.0))
    sums = [be.sum(result.rejected[key]) for key in keys]

    def warn(values):
        counts = {key: int(v) for key, v in zip(keys, values)}
        if sum(counts.values()):
            counted = dataclasses.replace(result, counts=counts, deferred=False)
            warn_grouped(name, counted, n, grad, stacklevel + 2, worst=values[-1])

    be.read_later([*sums, worst], warn)


def warn_grouped(name, result, n, grad, stacklevel, worst=None):
    """The one grouped RuntimeWarning of a solve."""
    parts = ", ".join(f"{key}={count}" for key, count in result.counts.items() if count)
    invalid = "all invalid, zero gradient" if grad else "non_finite and non_converged are invalid"
    warnings.warn(
        f"{name}: {result.n_rejected} of {n} problems rejected ({parts}; {invalid}) "
        f"after {result.n_iter} iterations, worst residual "
        f"{result.worst_residual if worst is None else worst:.3g}",
        RuntimeWarning,
        stacklevel=stacklevel,
    )
