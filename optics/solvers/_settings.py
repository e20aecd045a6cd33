"""Solver settings: the one place that says how hard every Newton solve works.

Per-surface values (a Newton surface's ``tol`` and ``max_iter`` from its lens
file) are the defaults a caller passes in; a :func:`solver_settings` block
overrides them for every solve it encloses, and a compiled graph (detected
through ``be.is_compiling()``) always gets a fixed, masked step count, and so
does a solve on an accelerator (the *sync-free* mode: no host read per step;
its convergence is checked with the trace's other deferred reads).  The
compiled trace, gradient checks, tests and benchmarks all steer the solvers
through this module and nothing else.
"""

from __future__ import annotations

import contextvars
import dataclasses
from contextlib import contextmanager
from dataclasses import dataclass

from optics import accel
from optics import backend as be

__all__ = [
    "SYNC_FREE_ITERATIONS",
    "IterationPolicy",
    "SolverSettings",
    "current_settings",
    "forced_iterations",
    "resolve_settings",
    "solver_settings",
]


@dataclass(frozen=True)
class SolverSettings:
    """Overrides for every solve in a :func:`solver_settings` block (None: the caller's own).

    Attributes
    ----------
    tolerance : float or None
        Residual tolerance (mm for surface intersections); 0 asks for round-off.
    max_iterations : int or None
        Most Newton steps.
    forced_iterations : int or None
        Exactly this many masked steps, no early exit and no host sync.
    compact : bool
        Iterate only the still-moving problems (ignored with forced iterations).
    sync_free : bool or None
        True: no host read inside the solve (:data:`SYNC_FREE_ITERATIONS`
        masked steps unless ``forced_iterations`` says otherwise); False: the
        early-exit loop, which reads one count per step; None (default):
        sync-free exactly when the solve's arrays live on an accelerator
        (``accel.host_reads_cheap`` is False), so CPU solves keep the early exit.
    """

    tolerance: float | None = None
    max_iterations: int | None = None
    forced_iterations: int | None = None
    compact: bool = True
    sync_free: bool | None = None


@dataclass(frozen=True)
class IterationPolicy:
    """The iteration policy one Newton solve runs with, passed explicitly (``policy=``).

    A caller that knows its mode (a trace method) builds one and hands it to
    the solve; without one the solve resolves it from its own defaults and the
    enclosing :func:`solver_settings` block (:func:`resolve_settings`).

    Parameters
    ----------
    tolerance : float
        Residual tolerance (mm for surface intersections); 0 asks for round-off.
    max_iterations : int
        Most Newton steps.
    forced_iterations : int or None
        Exactly this many masked steps (no early exit, no host sync); None:
        the early-exit loop.
    compact : bool
        Iterate only the still-moving problems (early-exit loop only).
    static : bool
        A compiled graph: no host read, no counts, masked implicit correction.
    """

    tolerance: float
    max_iterations: int
    forced_iterations: int | None
    compact: bool
    static: bool


#: Masked Newton steps of a sync-free solve: the benchmark freeforms converge
#: in 3-5 steps from the base-conic seed; a problem still moving after them is
#: rejected as non-converged (counted in the deferred warning).  (The compiled
#: trace takes fewer, optics.trace.methods.compiled.DEFAULT_NEWTON_ITERATIONS, and
#: traces the rays still moving again eagerly.)
SYNC_FREE_ITERATIONS = 12

# SolverSettings is frozen, so a shared default is safe.
_SETTINGS = contextvars.ContextVar("optics_solver_settings", default=SolverSettings())  # noqa: B039


@be.trace_constant
def current_settings() -> SolverSettings:
    """The settings of the innermost :func:`solver_settings` block (fixed in a compiled graph)."""
    return _SETTINGS.get()


@contextmanager
def solver_settings(**changes):
    """Override solver settings (the fields of :class:`SolverSettings`) inside the block.

    Blocks nest: a field not named keeps the enclosing block's value.
    """
    token = _SETTINGS.set(dataclasses.replace(_SETTINGS.get(), **changes))
    try:
        yield
    finally:
        _SETTINGS.reset(token)


def forced_iterations(n):
    """Run every Newton solve in the block for exactly ``n`` masked steps (None: default).

    For graph-size tests, benchmarks and compiled paths: the autograd graph
    does not depend on ``n``.
    """
    return solver_settings(forced_iterations=None if n is None else int(n))


def resolve_settings(tolerance, max_iterations, *arrays) -> IterationPolicy:
    """The settings for one solve whose own defaults are ``tolerance`` and ``max_iterations``.

    Inside a compiled graph (or when one of ``arrays``, the solve's inputs,
    is an abstract JAX tracer) the solve is static: a fixed masked step count
    (the forced count, else the iteration limit) with no host sync.  A
    sync-free solve (see :class:`SolverSettings`) gets
    :data:`SYNC_FREE_ITERATIONS` forced steps (at most the limit) unless a
    count is forced already.
    """
    settings = current_settings()
    tolerance = tolerance if settings.tolerance is None else settings.tolerance
    max_iterations = max_iterations if settings.max_iterations is None else settings.max_iterations
    static = be.is_compiling(*arrays)
    forced = settings.forced_iterations
    if static and forced is None:
        forced = max_iterations
    elif forced is None and _sync_free(settings.sync_free, arrays):
        forced = min(int(max_iterations), SYNC_FREE_ITERATIONS)
    return IterationPolicy(tolerance, int(max_iterations), forced, settings.compact, static)


def _sync_free(choice, arrays) -> bool:
    """The sync-free decision: the setting, else whether a host read would wait for a device."""
    if choice is not None:
        return bool(choice)
    return not accel.host_reads_cheap(*(a for a in arrays if a is not None))
