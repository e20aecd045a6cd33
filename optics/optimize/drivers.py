"""Run an optimization: choose a driver, record the run, leave the optic at the best point."""

from __future__ import annotations

import inspect
import math
import warnings

from ..errors import ConfigurationError
from ..trace import PupilAimWarning
from ._derivatives import require_autograd
from .constraints import run_slsqp
from .diagnostics import OptimizationWarning, diagnose
from .dls import run_dls
from .gradient_driver import run_adam, run_lbfgs
from .history import OptimizationResult, Recorder, StopCriteria
from .scipy_driver import run_least_squares, run_minimize


def run_minimize_constrained(problem, recorder):
    """L-BFGS-B, or SLSQP when the problem has inequality constraints."""
    if problem.constraints:
        return run_slsqp(problem, recorder)
    return run_minimize(problem, recorder)


#: Driver name -> (run function, needs autograd).
DRIVERS = {
    "dls": (run_dls, False),
    "adam": (run_adam, True),
    "lbfgs": (run_lbfgs, True),
    "least_squares": (run_least_squares, False),
    "minimize": (run_minimize_constrained, False),
}

#: Drivers that hold a problem's inequality constraints as constraints.
CONSTRAINED_DRIVERS = ("dls", "minimize")


def driver_options(driver) -> list[str]:
    """The keyword options driver ``driver`` takes (``learning_rate``, ``method``)."""
    if driver not in DRIVERS:
        raise ConfigurationError(f"unknown driver {driver!r}; choose one of {', '.join(DRIVERS)}")
    return list(inspect.signature(DRIVERS[driver][0]).parameters)[2:]


def default_driver() -> str:
    """``"dls"``: damped least squares on ray-level residuals, bounded and constrained.

    The merit is a sum of squared residuals, and a spot operand expands into
    one residual per ray coordinate (:mod:`optics.optimize.operands_rays`),
    so the Gauss–Newton model of :mod:`optics.optimize.dls` has full rank
    even with a single spot operand; it runs on every backend (exact
    Jacobian on Torch and JAX, finite differences on NumPy).

    Returns
    -------
    str
        ``"dls"``, a key of :data:`DRIVERS`.
    """
    return "dls"


def optimize(
    problem,
    driver=None,
    *,
    steps=100,
    merit_tol=1e-10,
    grad_tol=1e-10,
    callback=None,
    progress=False,
    **options,
) -> OptimizationResult:
    """Lower the merit of ``problem`` and leave its optic at the best point found.

    Runs on the configured backend (``be.using(...)``): Torch gives exact
    gradients; NumPy supports the SciPy drivers with finite differences.

    Parameters
    ----------
    problem : Problem
    driver : {"dls", "adam", "lbfgs", "least_squares", "minimize"}, optional
        Default :func:`default_driver`.
    steps : int
        Most optimizer steps (iterations).
    merit_tol : float
        Stop when a step changes the merit by at most merit_tol · merit.
    grad_tol : float
        Stop when the gradient norm in scaled variables is at most
        grad_tol · (the merit at the start).
    callback : callable, optional
        Called with each :class:`~optics.optimize.history.StepRecord`;
        returning True stops the run.
    progress : bool
        Show a tqdm progress bar (when tqdm is installed).
    **options
        Driver options: ``learning_rate`` (adam, lbfgs), ``method`` ("trf"
        or "lm", least_squares), ``jacobian`` ("auto", "exact" or
        "differences", dls).

    Returns
    -------
    OptimizationResult
        With the history; the optic holds ``values_after`` as plain floats.
        A KeyboardInterrupt (Ctrl-C) during the run ends it early: the result
        then has ``interrupted`` True and the best point recorded so far
        (the interrupt propagates only when no step was recorded yet).

    Raises
    ------
    ConfigurationError
        Unknown driver or option, a Torch driver on NumPy, a merit that is
        not finite at the start, or constraints given to a driver that cannot
        hold them (only dls and minimize can).

    Warns
    -----
    OptimizationWarning
        When the merit rose for many consecutive steps (the run diverged) or
        a step made the lens invalid (see :mod:`optics.optimize.diagnostics`);
        the same sentences are in ``result.warnings``.
    """
    driver = default_driver() if driver is None else driver
    if driver not in DRIVERS:
        raise ConfigurationError(f"unknown driver {driver!r}; choose one of {', '.join(DRIVERS)}")
    run, needs_autograd = DRIVERS[driver]
    unknown = set(options) - set(driver_options(driver))
    if unknown:
        raise ConfigurationError(
            f"driver {driver!r} has no option {', '.join(sorted(unknown))}; "
            f"its options are {', '.join(driver_options(driver)) or 'none'}"
        )
    if needs_autograd:
        require_autograd(f"the {driver!r} driver")
    _check_constraints(problem, driver)
    start = problem.start()
    before = problem.report(start)
    merit_before = sum(row["contribution"] for row in before)
    if not math.isfinite(merit_before):
        bad = [row["label"] for row in before if not math.isfinite(row["contribution"])]
        raise ConfigurationError(
            f"the merit is not finite at the start (operands: {', '.join(bad)})"
        )
    recorder = Recorder(
        problem.physical, StopCriteria(steps, merit_tol, grad_tol), callback, progress
    )
    interrupted = False
    try:
        # The start's report has warned about paraxial aiming already; the same
        # warning from every merit evaluation of the run would only repeat it.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PupilAimWarning)
            run(problem, recorder, **options)
    except KeyboardInterrupt:
        if not recorder.history.records:
            raise  # nothing better than the start was seen
        interrupted = True
        recorder.message = f"interrupted after step {recorder.step}"
    finally:
        recorder.close()
    best = recorder.best_point()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PupilAimWarning)
        after = problem.report(best)  # also leaves the optic at the best point
    notes = _diagnostics(recorder)
    constraints_after = problem.constraints.report(problem.optic) if problem.constraints else []
    return OptimizationResult(
        driver=driver,
        merit_before=merit_before,
        merit_after=sum(row["contribution"] for row in after),
        steps=int(recorder.history.steps.max()),
        paths=problem.variables.paths,
        values_before=problem.physical(start),
        values_after=problem.physical(best),
        operands_before=before,
        operands_after=after,
        history=recorder.history,
        message=recorder.message,
        interrupted=interrupted,
        warnings=notes,
        constraints_after=constraints_after,
    )


def _check_constraints(problem, driver):
    """A driver that cannot hold constraints refuses a problem that has them."""
    if problem.constraints and driver not in CONSTRAINED_DRIVERS:
        raise ConfigurationError(
            f"the {driver!r} driver does not take constraints; use "
            f"{' or '.join(CONSTRAINED_DRIVERS)}, or write the limits as at_least / at_most "
            "operands (penalties)"
        )


def _diagnostics(recorder) -> list[str]:
    """Warn (OptimizationWarning) each diagnostic of the run and return them."""
    notes = diagnose(recorder.history, recorder.invalid_steps)
    for note in notes:
        warnings.warn(note, OptimizationWarning, stacklevel=3)
    return notes
