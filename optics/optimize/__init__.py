"""Differentiable lens optimization: variables, merit operands, gradient, DLS and SciPy drivers.

A problem is an optic, the parameters to vary and a merit function::

    import optics
    from optics import backend as be
    from optics.optimize import Operand, Problem, Variable, optimize

    lens = optics.load("cooke_triplet")
    problem = Problem(
        lens,
        [Variable(f"surfaces[{i}].radius") for i in range(1, 7)],
        [Operand("rms_spot", weight=3.0), Operand("efl", target=50.0)],
    )
    with be.using("torch"):
        result = optimize(problem, "adam", steps=100)
    optics.save(lens, "better.toml")

See docs/optimization.md for the operands, drivers and worked examples, and
docs/lens-files.md for the ``[optimize]`` section that ``optics optimize``
reads.
"""

from .. import backend as _be
from . import (
    operands_beams,  # noqa: F401 - registers the fibre_coupling operand
    operands_focus,  # noqa: F401 - registers the through_focus_mtf operand
    operands_polarization,  # noqa: F401 - registers the transmission operand
    operands_thermal,  # noqa: F401 - registers the thermal_focus_shift operand
)
from ._derivatives import (
    gradients,
    has_autograd,
    require_autograd,
    residuals_and_jacobian,
    value_and_gradient,
)
from .constraints import Constraint
from .diagnostics import OptimizationWarning
from .drivers import DRIVERS, default_driver, optimize
from .glass_substitution import SubstitutionResult, substitute_glasses
from .global_search import GlobalResult, global_search
from .gradient_steps import LBFGS, Adam
from .history import History, OptimizationResult, StepRecord, StopCriteria
from .merit import Merit, Operand
from .operands import OPERANDS, MeritContext
from .operands_user import register_operand
from .problem import Problem
from .section import OptimizeSection, problem_from_lens, read_section
from .solves import SOLVE_TYPES, Solve, apply_solves
from .variables import Variable

__all__ = [
    "Adam",
    "LBFGS",
    "Constraint",
    "OptimizationWarning",
    "DRIVERS",
    "OPERANDS",
    "GlobalResult",
    "History",
    "Merit",
    "MeritContext",
    "Operand",
    "OptimizationResult",
    "OptimizeSection",
    "Problem",
    "SOLVE_TYPES",
    "Solve",
    "StepRecord",
    "StopCriteria",
    "SubstitutionResult",
    "Variable",
    "apply_solves",
    "default_driver",
    "global_search",
    "gradients",
    "has_autograd",
    "optimize",
    "problem_from_lens",
    "read_section",
    "register_operand",
    "require_autograd",
    "residuals_and_jacobian",
    "substitute_glasses",
    "value_and_gradient",
]

_be.pin_public(globals(), __all__)  # one configuration per call, whatever other threads set
