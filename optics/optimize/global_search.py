"""Global search: many starts spread over the variables' bounds, each refined by a local driver.

The starts are the design as it is (start 0) and ``starts - 1`` points of a
scrambled Sobol sequence seeded by ``seed`` inside the variables' bounds
(every variable needs finite ``min`` and ``max``).  Each start is an
independent local run (:func:`~optics.optimize.optimize` with the local
driver) on its own copy of the optic; it depends on its start point alone,
so the result is the same in this process, on an embedded Dask cluster of
any size or on any cluster at ``scheduler`` (the plumbing of
:mod:`optics._scheduler`, shared with tolerance Monte Carlo).  The best
final merit wins (ties: the lowest start index); the problem's optic is left
there, and every start's outcome is reported.
"""

from __future__ import annotations

import copy
import math
import numbers
import warnings
from dataclasses import dataclass, field, replace

import numpy as np

from .. import backend as be
from .._scheduler import check_scheduler_address, dask_client, map_tasks
from ..errors import ConfigurationError, OpticsError
from ..limits import MAX_TRIALS, MAX_WORKERS, check_size
from .diagnostics import OptimizationWarning
from .drivers import DRIVERS, optimize
from .history import History, OptimizationResult
from .problem import Problem
from .variables import Variable


@dataclass
class GlobalResult:
    """Outcome of :func:`global_search`.

    Attributes
    ----------
    best : OptimizationResult
        The best start's local run, re-run in this process from its start
        (its ``values_after`` are on the problem's optic).
    best_index : int
        Which start it was (0: the design as given).
    starts : list of dict
        Per start, in start order: ``index``, ``start`` (variable values),
        ``values`` (after), ``merit_before``, ``merit_after``, ``steps``,
        ``message`` (a failed start has ``merit_after`` inf and the error).
    seed : int
    """

    best: object
    best_index: int
    starts: list = field(default_factory=list)
    seed: int = 0

    def as_dict(self) -> dict:
        """The JSON form: the best run's keys plus ``best_start``, ``seed`` and ``starts``."""
        out = self.best.as_dict()
        out.update(
            driver="global",
            local_driver=self.best.driver,
            best_start=self.best_index,
            seed=self.seed,
            starts=[
                {k: (list(map(float, v)) if isinstance(v, np.ndarray) else v) for k, v in s.items()}
                for s in self.starts
            ],
        )
        return out


def start_points(problem, starts, seed=0) -> np.ndarray:
    """The ``starts`` start points (ndarray (starts, n), parameter units): the design, then Sobol.

    Raises
    ------
    ConfigurationError
        A variable without finite bounds.
    """
    lower, upper = problem.variables.bounds()
    unbounded = [
        p
        for p, lo, hi in zip(problem.variables.paths, lower, upper)
        if not (math.isfinite(lo) and math.isfinite(hi))
    ]
    if unbounded:
        raise ConfigurationError(
            f"a global search samples within the variables' bounds; give min and max for "
            f"{', '.join(unbounded)}"
        )
    from scipy.stats import qmc

    points = [problem.variables.start]
    if starts > 1:
        with warnings.catch_warnings():  # a count that is no power of 2 loses balance only
            warnings.simplefilter("ignore", UserWarning)
            unit = qmc.Sobol(problem.size, scramble=True, seed=seed).random(starts - 1)
        points += list(lower + unit * (upper - lower))
    return np.array(points)


def global_search(
    problem,
    starts=16,
    seed=0,
    *,
    local="dls",
    steps=50,
    workers=1,
    scheduler=None,
    **options,
) -> GlobalResult:
    """Run a local driver from ``starts`` points within the bounds and keep the best.

    Parameters
    ----------
    problem : Problem
        Every variable needs finite min and max; its optic is left at the best point.
    starts : int
        Number of starts (>= 1), the design as given among them.
    seed : int
        Seed of the scrambled Sobol points: the same seed, the same starts and result.
    local : str
        The local driver (a key of :data:`~optics.optimize.DRIVERS`).
    steps : int
        Steps of each local run.
    workers : int or None
        1: every start in this process, in order.  K > 1 or None (one per
        core): an embedded Dask LocalCluster.  Ignored with ``scheduler``.
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://HOST:PORT``).
    **options
        Options of the local driver.

    Returns
    -------
    GlobalResult
    """
    if isinstance(starts, bool) or not isinstance(starts, int) or starts < 1:
        raise ConfigurationError(f"starts must be a positive integer, not {starts!r}")
    check_size(starts, MAX_TRIALS, "the number of starts", lowest=1)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ConfigurationError(f"the seed must be an integer >= 0, not {seed!r}")
    if local not in DRIVERS:
        known = ", ".join(DRIVERS)
        raise ConfigurationError(f"unknown local driver {local!r}; choose one of {known}")
    if workers is not None:
        check_size(workers, MAX_WORKERS, "the number of workers", lowest=1)
    points = start_points(problem, starts, seed)
    spec = _Spec(problem, local, steps, options, be.get_backend())
    rows = [None] * starts
    address = None if scheduler is None else check_scheduler_address(scheduler)
    try:
        if workers == 1 and scheduler is None:
            for i, x in enumerate(points):
                rows[i] = run_start(spec, i, x)
                if rows[i].pop("interrupted", False):  # the local run kept its best and stopped
                    raise KeyboardInterrupt
        else:
            with dask_client(workers, address) as (client, _):
                tasks = [(i, x) for i, x in enumerate(points)]
                on_workers = replace(spec, quiet=True)
                for i, row in map_tasks(run_start, on_workers, tasks, client):
                    row.pop("interrupted", None)
                    rows[i] = row
    except KeyboardInterrupt:
        return _interrupted(problem, spec, points, rows, seed)
    merits = np.array([row["merit_after"] for row in rows])
    if not np.isfinite(merits).any():
        raise OpticsError(f"every start failed; start 0: {rows[0]['message']}")
    best = int(np.argmin(merits))  # the first of equal merits
    result = _run(problem, spec, points[best])  # again here: leaves the optic at the best point
    return GlobalResult(best=result, best_index=best, starts=rows, seed=seed)


@dataclass
class _Spec:
    """What a start needs (it travels to the workers once)."""

    problem: Problem
    local: str
    steps: int
    options: dict
    backend: str
    quiet: bool = False  # on Dask workers: their warnings would print as raw multi-line text;
    # the best start is re-run here, where its warnings are reported once


def run_start(spec, index, x) -> dict:
    """One start: a local run from ``x`` (parameter units) on a copy of the optic."""
    row = {"index": int(index), "start": np.asarray(x, dtype=float)}
    try:
        with be.using(spec.backend), warnings.catch_warnings():
            warnings.simplefilter("ignore", OptimizationWarning)
            if spec.quiet:
                warnings.simplefilter("ignore")
            problem = copy.deepcopy(spec.problem)
            result = _run(problem, spec, x)
        row.update(
            values=result.values_after,
            merit_before=float(result.merit_before),
            merit_after=float(result.merit_after),
            steps=int(result.steps),
            message=result.message,
            interrupted=bool(result.interrupted),
        )
    except (OpticsError, ArithmeticError, ValueError) as exc:
        row.update(
            values=row["start"],
            merit_before=math.inf,
            merit_after=math.inf,
            steps=0,
            message=f"{type(exc).__name__}: {exc}",
        )
    return row


def _interrupted(problem, spec, points, rows, seed):
    """The GlobalResult of a search that Ctrl-C (or SIGTERM) stopped: the best finished start.

    The problem's optic is left at that start's best point (no local run is repeated);
    the result's ``best.interrupted`` is True.  With no start finished the interrupt
    goes on (there is nothing better than the design to keep).
    """
    finished = [row for row in rows if row is not None and math.isfinite(row["merit_after"])]
    if not finished:
        raise KeyboardInterrupt
    row = min(finished, key=lambda r: (r["merit_after"], r["index"]))
    design = _at(problem, points[0])
    before = design.report(design.start())
    best = _at(problem, row["values"])
    after = best.report(best.start())  # leaves the optic at the best point
    result = OptimizationResult(
        driver=spec.local,
        merit_before=sum(r["contribution"] for r in before),
        merit_after=sum(r["contribution"] for r in after),
        steps=int(row["steps"]),
        paths=problem.variables.paths,
        values_before=np.asarray(points[0], dtype=float),
        values_after=np.asarray(row["values"], dtype=float),
        operands_before=before,
        operands_after=after,
        history=History(),
        message=f"interrupted: {len(finished)} of {len(rows)} starts finished",
        interrupted=True,
        constraints_after=best.constraints.report(best.optic) if best.constraints else [],
    )
    done = [r for r in rows if r is not None]
    return GlobalResult(best=result, best_index=int(row["index"]), starts=done, seed=seed)


def _run(problem, spec, x):
    """The local driver on ``problem``'s optic from the parameter values ``x``."""
    return optimize(_at(problem, x), spec.local, steps=spec.steps, **spec.options)


def _at(problem, x):
    """A fresh Problem on ``problem``'s optic set to the parameter values ``x``."""
    from ..params import set_param

    variables = problem.variables
    for path, value in zip(variables.paths, x):
        set_param(problem.optic, path, float(value))
    return Problem(
        problem.optic,
        [
            Variable(v.path, v.min, v.max, scale=float(s))
            for v, s in zip(variables.variables, variables.scales)
        ],
        problem.merit,
        problem.constraints.constraints if problem.constraints else (),
    )
