"""Rejection bookkeeping of the scalar Newton solve: categories, counts, the grouped warning.

A problem that is not regular at the root falls in exactly one category, in
priority order: ``non_finite``, ``non_converged``, ``tangent``, then the
problem's own categories.  A solve warns once, grouped, with the counts;
inside :func:`grouped_rejections` (a trace run in blocks) the solves of one
name warn once together, with the counts of all of them.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import warnings

from optics import accel
from optics import backend as be

from ._thresholds import roundoff_tolerance, slope_floor

_GROUP: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "optics_rejection_group", default=None
)

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
    """:func:`warn_grouped` with the counts and the worst residual read after the trace."""
    if n == 0:
        return
    group = _GROUP.get()  # the callback runs after the trace, outside the group's block
    keys = list(result.rejected)
    abs_F = be.abs(result.residual)
    worst = be.max(be.where(be.isfinite(abs_F), abs_F, 0.0))
    sums = [be.sum(result.rejected[key]) for key in keys]

    def warn(values):
        counts = {key: int(v) for key, v in zip(keys, values)}
        if sum(counts.values()):
            counted = dataclasses.replace(result, counts=counts, deferred=False)
            _warn_or_join(group, name, counted, n, grad, stacklevel + 2, values[-1])

    accel.read_later([*sums, worst], warn)


def warn_grouped(name, result, n, grad, stacklevel, worst=None):
    """The one grouped RuntimeWarning of a solve (joined to an enclosing group's)."""
    _warn_or_join(_GROUP.get(), name, result, n, grad, stacklevel + 1, worst)


def _warn_or_join(group, name, result, n, grad, stacklevel, worst):
    worst = result.worst_residual if worst is None else worst
    if group is None:
        _warn(name, dict(result.counts), n, result.n_iter, worst, grad, stacklevel + 1)
        return
    entry = group.setdefault(name, {"counts": {}, "n": 0, "n_iter": 0, "worst": 0.0})
    for key, count in result.counts.items():
        entry["counts"][key] = entry["counts"].get(key, 0) + count
    entry["n"] += n
    entry["n_iter"] = max(entry["n_iter"], result.n_iter)
    entry["worst"] = max(entry["worst"], worst)
    entry["grad"] = grad


def _warn(name, counts, n, n_iter, worst, grad, stacklevel):
    parts = ", ".join(f"{key}={count}" for key, count in counts.items() if count)
    invalid = "all invalid, zero gradient" if grad else "non_finite and non_converged are invalid"
    warnings.warn(
        f"{name}: {sum(counts.values())} of {n} problems rejected ({parts}; {invalid}) "
        f"after {n_iter} iterations, worst residual {worst:.3g}",
        RuntimeWarning,
        stacklevel=stacklevel,
    )


@contextlib.contextmanager
def grouped_rejections():
    """Solves of one name inside the block warn once together (counts summed).

    For a computation split into parts (a trace run block by block): the
    warning reads as for one solve over every problem (total counts and
    problems, the most iterations, the worst residual).  Counts read after
    a trace (:func:`optics.backend.deferred_reads`) join too: the merged
    warnings are issued after the enclosing deferred block's reads.
    """
    if _GROUP.get() is not None:
        yield
        return
    group = {}
    token = _GROUP.set(group)
    try:
        yield
    finally:
        _GROUP.reset(token)

    def flush():
        for name, entry in group.items():
            if entry["n"] and sum(entry["counts"].values()):
                counts, worst = entry["counts"], entry["worst"]
                _warn(name, counts, entry["n"], entry["n_iter"], worst, entry["grad"], 4)

    accel.after_reads(flush)
