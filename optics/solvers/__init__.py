"""optics.solvers: backend-agnostic numerics with no optics in them.

- :func:`solve_scalar_root`: the one batched scalar Newton solve with an
  implicit correction, used by every Newton ray-surface intersection
  (a geometry supplies a :class:`ScalarRootProblem`);
- :func:`newton_2x2` and :func:`implicit_correction_2x2`: batched damped
  Newton for 2x2 systems (the field solve) and its implicit derivative;
- :func:`condition_ratio`, :func:`is_singular`, :func:`normalized_solve`,
  :func:`normalized_solve_masked`: scale-invariant 2x2 conditioning and solves;
- :func:`solver_settings`: the one place that overrides tolerance, iteration
  limit, forced (masked) step count, compaction and the sync-free mode for
  every solve;
- dtype-aware thresholds (multiples of machine epsilon) and their constants.
"""

from ._condition import (
    condition_ratio,
    is_singular,
    normalized_solve,
    normalized_solve_masked,
)
from ._field_newton import Newton2x2Result, implicit_correction_2x2, newton_2x2
from ._field_newton_static import newton_2x2_static
from ._rejections import NON_CONVERGED, NON_FINITE, TANGENT, grouped_rejections
from ._scalar_newton import ScalarRootProblem, ScalarRootResult, solve_scalar_root
from ._settings import (
    SYNC_FREE_ITERATIONS,
    IterationPolicy,
    SolverSettings,
    current_settings,
    forced_iterations,
    resolve_settings,
    solver_settings,
)
from ._thresholds import (
    ROUND_OFF_CONSTANT,
    SINGULAR_CONSTANT,
    SLOPE_FLOOR_CONSTANT,
    floor_slope,
    roundoff_tolerance,
    singular_threshold,
    slope_floor,
)

__all__ = [
    "NON_CONVERGED",
    "NON_FINITE",
    "ROUND_OFF_CONSTANT",
    "SINGULAR_CONSTANT",
    "SLOPE_FLOOR_CONSTANT",
    "SYNC_FREE_ITERATIONS",
    "TANGENT",
    "IterationPolicy",
    "Newton2x2Result",
    "SolverSettings",
    "ScalarRootProblem",
    "ScalarRootResult",
    "condition_ratio",
    "current_settings",
    "forced_iterations",
    "grouped_rejections",
    "resolve_settings",
    "solver_settings",
    "floor_slope",
    "implicit_correction_2x2",
    "is_singular",
    "newton_2x2",
    "newton_2x2_static",
    "normalized_solve",
    "normalized_solve_masked",
    "roundoff_tolerance",
    "singular_threshold",
    "slope_floor",
    "solve_scalar_root",
]
