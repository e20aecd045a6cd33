"""What an optimization run records: steps, stop criteria, progress and the result.

Every driver reports each step to one :class:`Recorder`, which keeps the
:class:`History`, advances the progress bar, calls the user's callback and
decides when to stop, so the stop criteria and the callback behave the same
for every driver.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .._notebook import NotebookView
from ..errors import ConfigurationError


@dataclass(frozen=True, eq=False)
class StepRecord:
    """The state at one step (step 0 is the start).

    Attributes
    ----------
    step : int
    merit : float
    gradient_norm : float
        Euclidean norm of the merit's gradient with respect to the scaled
        variables (NaN where the driver does not know it).
    values : ndarray, shape (n,)
        The variables in their own units (mm, 1/mm, ...).
    elapsed : float
        Seconds since the run started.
    feasible : bool
        False when the point breaks one of the problem's constraints.
    """

    step: int
    merit: float
    gradient_norm: float
    values: np.ndarray
    elapsed: float
    feasible: bool = True


@dataclass
class StopCriteria:
    """When a run ends (whichever comes first).

    Attributes
    ----------
    steps : int
        Most optimizer steps (iterations).
    merit_tol : float
        Stop when one step changes the merit by at most merit_tol · merit.
    grad_tol : float
        Stop when the gradient norm (scaled variables) is at most
        grad_tol · (the merit at the start).
    """

    steps: int = 100
    merit_tol: float = 1e-10
    grad_tol: float = 1e-10

    def __post_init__(self):
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < 0:
            raise ConfigurationError(f"steps must be a non-negative integer, not {self.steps!r}")
        for name in ("merit_tol", "grad_tol"):
            if not getattr(self, name) >= 0:
                raise ConfigurationError(f"{name} must be >= 0, not {getattr(self, name)!r}")

    def reason(self, records) -> str | None:
        """Why to stop after the last record, or None to go on."""
        last = records[-1]
        if not math.isfinite(last.merit):
            return "the merit is not finite (did every ray fail?)"
        if last.gradient_norm <= self.grad_tol * records[0].merit:
            return f"gradient norm {last.gradient_norm:.3g} <= grad_tol x start merit"
        if len(records) > 1:
            before = records[-2].merit
            if abs(before - last.merit) <= self.merit_tol * abs(before):
                return "merit change below merit_tol"
        if last.step >= self.steps:
            return f"reached {self.steps} steps"
        return None


@dataclass
class History:
    """The records of one run, in order."""

    records: list = field(default_factory=list)

    @property
    def merits(self) -> np.ndarray:
        """Merit per record, shape (k,)."""
        return np.array([r.merit for r in self.records])

    @property
    def steps(self) -> np.ndarray:
        """Step number per record, shape (k,)."""
        return np.array([r.step for r in self.records])

    def best(self) -> StepRecord:
        """The record with the lowest finite merit (the first one if none is finite).

        Records that break a constraint count only when no record meets them all.
        """
        finite = [r for r in self.records if math.isfinite(r.merit)]
        feasible = [r for r in finite if r.feasible]
        finite = feasible or finite
        return min(finite, key=lambda r: r.merit) if finite else self.records[0]


class StopRun(Exception):
    """Raised inside a driver's callbacks to end a run that another library drives."""


class Recorder:
    """Collects steps, shows progress, calls the callback, checks the stop criteria.

    Parameters
    ----------
    to_physical : callable
        Maps scaled variables u (ndarray (n,)) to values in their own units.
    stop : StopCriteria
    callback : callable, optional
        ``callback(record) -> bool``, called with every record; returning
        True stops the run.
    progress : bool
        Show a tqdm bar (when tqdm is installed).
    """

    def __init__(self, to_physical, stop, callback=None, progress=False):
        self.history = History()
        self.message = ""
        self.invalid_steps = 0  # trial points a driver rejected because the merit was not finite
        self._points = []  # scaled variables u of each record
        self._to_physical = to_physical
        self.stop = stop
        self._callback = callback
        self._started = time.perf_counter()
        self._bar = _progress_bar(stop.steps, progress)

    def record(self, step, merit, u, gradient=None, feasible=True) -> bool:
        """Add a record; returns True when the run must stop (the reason is in ``message``)."""
        norm = math.nan if gradient is None else float(np.linalg.norm(gradient))
        entry = StepRecord(
            step=int(step),
            merit=float(merit),
            gradient_norm=norm,
            values=self._to_physical(u),
            elapsed=time.perf_counter() - self._started,
            feasible=bool(feasible),
        )
        self.history.records.append(entry)
        self._points.append(np.array(u, dtype=float))
        if self._bar is not None:
            self._bar.n = min(entry.step, self._bar.total)
            self._bar.set_postfix_str(f"merit {entry.merit:.6g}", refresh=True)
        stop_requested = self._callback is not None and self._callback(entry)
        reason = self.stop.reason(self.history.records)
        if reason is None and stop_requested:
            reason = "stopped by the callback"
        if reason is not None:
            self.message = self.message or reason
            return True
        return False

    @property
    def step(self) -> int:
        """The step number of the last record (-1 before the first)."""
        return self.history.records[-1].step if self.history.records else -1

    @property
    def last_point(self):
        """The scaled variables u of the last record (None before the first)."""
        return self._points[-1] if self._points else None

    def best_point(self):
        """The scaled variables u of :meth:`History.best`."""
        best = self.history.best()
        return next(u for u, r in zip(self._points, self.history.records) if r is best)

    def close(self):
        """Close the progress bar."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _progress_bar(total, enabled):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc="optimize", unit="step", leave=False)


@dataclass(repr=False)
class OptimizationResult(NotebookView):
    """Outcome of :func:`optics.optimize.optimize`.

    Attributes
    ----------
    driver : str
    merit_before, merit_after : float
    steps : int
        Optimizer steps taken.
    paths : list of str
        The variables.
    values_before, values_after : ndarray, shape (n,)
        Variable values in their own units; the optic holds ``values_after``.
    operands_before, operands_after : list of dict
        :meth:`optics.optimize.Merit.report` rows.
    history : History
    message : str
        Why the run stopped.
    interrupted : bool
        True when Ctrl-C (KeyboardInterrupt) ended the run early.
    warnings : list of str
        Plain-language diagnostics of the run (:mod:`optics.optimize.diagnostics`):
        the merit rose for many consecutive steps, a step made the lens invalid.
    constraints_after : list of dict
        :meth:`optics.optimize.constraints.ConstraintSet.report` rows at the result.
    """

    driver: str
    merit_before: float
    merit_after: float
    steps: int
    paths: list
    values_before: np.ndarray
    values_after: np.ndarray
    operands_before: list
    operands_after: list
    history: History
    message: str
    interrupted: bool = False
    warnings: list = field(default_factory=list)
    constraints_after: list = field(default_factory=list)

    def as_dict(self) -> dict:
        """The JSON form: merit_before, merit_after, steps, operands, variables (plain values)."""
        operands = [
            {
                "type": before["type"],
                "label": before["label"],
                "kind": before["kind"],
                "target": before["target"],
                "weight": before["weight"],
                "value_before": before["value"],
                "value_after": after["value"],
                "contribution_before": before["contribution"],
                "contribution_after": after["contribution"],
            }
            for before, after in zip(self.operands_before, self.operands_after)
        ]
        variables = [
            {"path": p, "before": float(b), "after": float(a)}
            for p, b, a in zip(self.paths, self.values_before, self.values_after)
        ]
        return {
            "driver": self.driver,
            "merit_before": self.merit_before,
            "merit_after": self.merit_after,
            "steps": self.steps,
            "message": self.message,
            "warnings": list(self.warnings),
            "constraints": list(self.constraints_after),
            "operands": operands,
            "variables": variables,
        }
