"""Solver settings: the one place that says how hard every Newton solve works.

Per-surface values (a Newton surface's ``tol`` and ``max_iter`` from its lens
file) are the defaults a caller passes in; a :func:`solver_settings` block
overrides them for every solve it encloses, and a compiled graph (detected
through ``be.is_compiling()``) always gets a fixed, masked step count.  The
compiled trace, gradient checks, tests and benchmarks all steer the solvers
through this module and nothing else.
"""

from __future__ import annotations

import contextvars
import dataclasses
from contextlib import contextmanager
from dataclasses import dataclass

from optics import backend as be

__all__ = [
    "ResolvedSettings",
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
    """

    tolerance: float | None = None
    max_iterations: int | None = None
    forced_iterations: int | None = None
    compact: bool = True


@dataclass(frozen=True)
class ResolvedSettings:
    """What one solve actually runs with."""

    tolerance: float
    max_iterations: int
    forced_iterations: int | None
    compact: bool
    static: bool


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


def resolve_settings(tolerance, max_iterations) -> ResolvedSettings:
    """The settings for one solve whose own defaults are ``tolerance`` and ``max_iterations``.

    Inside a compiled graph the solve is static: a fixed masked step count
    (the forced count, else the iteration limit) with no host sync.
    """
    settings = current_settings()
    tolerance = tolerance if settings.tolerance is None else settings.tolerance
    max_iterations = max_iterations if settings.max_iterations is None else settings.max_iterations
    static = be.is_compiling()
    forced = settings.forced_iterations
    if static and forced is None:
        forced = max_iterations
    return ResolvedSettings(tolerance, int(max_iterations), forced, settings.compact, static)
