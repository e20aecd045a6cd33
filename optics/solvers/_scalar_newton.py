"""Batched scalar Newton root finding with one implicit (grad-attached) correction.

This is the single Newton loop of optics: every Newton-Raphson ray-surface
intersection (and, through its pieces, the field solve and ray aiming) calls
:func:`solve_scalar_root` with a *problem* object and never writes its own
loop.  The solver knows nothing about rays.

The problem interface
---------------------
A problem is any object with::

    evaluate(t, subset=None) -> (F, F_t, scale)
        Residual F, slope dF/dt and slope scale at t.  ``t`` has shape (n,),
        or (k,) when ``subset`` is a boolean mask of length n selecting k of
        the problems (the problem gathers its own per-problem data with it).
        ``scale >= 0`` is the magnitude used to floor the slope (for a
        surface: |s_x L| + |s_y M| + |N|).  Evaluated with whatever graph
        state is active: the solver calls it graph-free while iterating and
        grad-attached once for the correction.

    reject(t) -> dict[str, mask]            (optional)
        Graph-free extra rejection categories at the root t (shape (n,)),
        e.g. ``{"near_vertical": mask}``.  A ``"non_finite"`` entry is merged
        into the solver's own non-finite category.

How the solve is differentiated
-------------------------------
The iteration runs under ``be.no_grad()``, so its cost in memory and graph
size does not depend on the number of iterations.  When ``be.grad_active()``
the root t̄ is corrected once::

    t = t̄ - F(t̄, θ) / stopgrad(F_t(t̄, θ))

which has the value t̄ and the implicit-function derivative
dt/dθ = -F_θ / F_t.  The correction is evaluated only on the regular
problems (gathered, then put back with ``be.scatter``): PyTorch propagates a
NaN from a branch that ``where`` later discards through the backward pass, so
rejected problems are never part of the graph and get exactly zero gradient.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from optics import accel
from optics import backend as be

from ._rejections import (
    NON_CONVERGED,
    NON_FINITE,
    classify,
    tally,
    union,
    warn_grouped,
    warn_grouped_later,
)
from ._settings import resolve_settings
from ._thresholds import (
    ROUND_OFF_CONSTANT,
    SLOPE_FLOOR_CONSTANT,
    floor_slope,
    roundoff_tolerance,
    slope_floor,
)

#: Compact the iteration (evaluate only the moving problems) once at most this
#: fraction of them still moves; see ``_iterate``.
COMPACT_FRACTION = 0.5


@runtime_checkable
class ScalarRootProblem(Protocol):
    """A batch of n scalar equations F(t) = 0 (see the module docstring).

    ``evaluate`` is required; ``reject(t) -> dict[str, mask]`` is optional
    and therefore not part of the structural check.
    """

    def evaluate(self, t, subset=None):
        """Return (F, F_t, scale) at t, each shaped like t (see the module docstring)."""


@dataclass(frozen=True)
class ScalarRootResult:
    """Outcome of :func:`solve_scalar_root` for a batch of n problems.

    Attributes
    ----------
    t : array, shape (n,)
        The root.  With gradients recording, regular problems carry the
        implicit derivative; every other entry is the detached primal value.
    valid : array of bool, shape (n,)
        Without gradients: not non_finite and not non_converged (a tangent or
        problem-rejected but converged root is still usable for analysis).
        With gradients recording: equal to ``regular``.
    regular : array of bool, shape (n,)
        In no rejection category at all.
    rejected : dict[str, array of bool, shape (n,)]
        One mask per category, mutually exclusive: "non_finite",
        "non_converged", "tangent", then the problem's own categories.
    counts : dict[str, int]
        Number of problems in each category.
    n_iter : int
        Newton steps taken (the loop count, the same for the whole batch).
    residual, slope : array, shape (n,)
        F and F_t at the root, detached.
    static : bool
        The solve ran as a fixed-shape compiled-graph solve (no counts).
    worst_residual : float
        Largest finite |F| at the root, 0.0 when there is none (a property:
        one host sync when read).
    n_rejected : int
        Total number of problems outside ``regular``.
    """

    t: Any
    valid: Any
    regular: Any
    rejected: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    n_iter: int = 0
    residual: Any = None
    slope: Any = None
    static: bool = False
    deferred: bool = False

    @property
    def counted(self) -> bool:
        """True when ``counts`` holds the category counts (neither static nor deferred)."""
        return not (self.static or self.deferred)

    @property
    def worst_residual(self) -> float:
        """Largest finite |F| at the root (0.0 when there is none)."""
        if self.residual is None or be.size(self.residual) == 0:
            return 0.0
        abs_F = be.abs(self.residual)
        return float(be.item(be.max(be.where(be.isfinite(abs_F), abs_F, 0.0))))

    @property
    def n_rejected(self) -> int:
        """Total number of problems outside ``regular``."""
        return sum(self.counts.values())


def solve_scalar_root(
    problem,
    t0,
    *,
    tol=1e-10,
    max_iter=100,
    floor_constant=SLOPE_FLOOR_CONSTANT,
    round_off_constant=ROUND_OFF_CONSTANT,
    name="scalar Newton solve",
    stacklevel=2,
    primal=None,
    policy=None,
) -> ScalarRootResult:
    """Solve n scalar equations F(t) = 0 by Newton's method with an implicit correction.

    Parameters
    ----------
    problem : ScalarRootProblem
        Supplies ``evaluate(t, subset=None) -> (F, F_t, scale)`` and,
        optionally, ``reject(t) -> dict`` (see the module docstring).
    t0 : array, shape (n,)
        Starting point, e.g. the base-conic intersection so that Newton starts
        in the physical root's basin.  Used detached.
    tol : float
        Requested absolute tolerance on |F|; raised per problem to the
        round-off floor ``round_off_constant * eps * max(1, |t|)``.  An
        enclosing :func:`optics.solvers.solver_settings` block overrides it.
    max_iter : int
        Most Newton steps (overridable the same way).
    floor_constant : float
        C in the slope floor tau = C * eps * max(1, scale), used (sign-
        preservingly) in the primal steps and as the tangent test |F_t| <= tau.
    round_off_constant : float
        C' in the round-off floor of the tolerance.
    Forced iterations, compaction and the static (compiled) mode come from
    :mod:`optics.solvers._settings`: with ``forced_iterations`` the solve runs
    exactly that many masked steps with no early exit and no host sync; with
    ``compact`` it iterates only the still-unconverged problems (on a GPU each
    boolean gather is an implicit device sync); inside a compiled graph it is
    *static*: a fixed step count with no host sync at all, no category counts
    (``counts`` is empty, so ``n_rejected`` is 0 and means nothing), no
    warning, and the implicit correction evaluated on every problem, the
    non-regular ones moved to a harmless point by the problem's optional
    ``evaluate_masked(t, mask)`` and then discarded by a ``where``.
    name : str
        Names the solve in the rejection warning.
    stacklevel : int
        ``stacklevel`` of the warning; 2 points at the caller of this function.
    primal : ScalarRootProblem, optional
        The same problem on detached inputs, iterated and classified instead
        of ``problem`` (which then only supplies the implicit correction).
        JAX needs it: ``no_grad()`` cannot stop a transformation from
        recording work on its tracers, so the iteration must see none
        (``be.detach_all``).  Default: ``problem`` itself.
    policy : IterationPolicy, optional
        The iteration policy, chosen by the caller (a trace method); it
        replaces ``tol``/``max_iter`` and the :func:`solver_settings` lookup.
        Default: resolved from ``tol``, ``max_iter`` and the enclosing block.

    Returns
    -------
    ScalarRootResult

    Warns
    -----
    RuntimeWarning
        Once per call when any problem is rejected, with the counts per
        category, the iteration count and the worst residual.

    Notes
    -----
    Host syncs: one count of the moving problems per iteration (the early
    exit and the compaction test), and one
    transfer of the category counts at the end (``worst_residual`` is read
    lazily).  In the sync-free mode (on an accelerator, or asked for with
    ``solver_settings(sync_free=True)``) a fixed number of masked steps and
    no read at all inside a ``accel.deferred_reads`` block (a trace): the
    counts, and with them the convergence check, are read after it.
    """
    settings = resolve_settings(tol, max_iter, t0) if policy is None else policy
    tol, max_iter, static = settings.tolerance, settings.max_iterations, settings.static
    force_iterations, compact = settings.forced_iterations, settings.compact
    t_bar = be.detach(t0)
    primal = problem if primal is None else primal
    with be.no_grad():
        if force_iterations is not None:
            t_bar, n_iter = _iterate_masked(
                primal, t_bar, tol, int(force_iterations), floor_constant, round_off_constant
            )
            F, F_t, scale = primal.evaluate(t_bar)
        else:
            t_bar, F, F_t, scale, n_iter = _iterate(
                primal, t_bar, tol, max_iter, floor_constant, round_off_constant, compact
            )
        rejected = classify(primal, t_bar, F, F_t, scale, tol, floor_constant, round_off_constant)
        # In a trace on an accelerator the counts are read after it, with its other checks.
        deferred = not static and accel.reads_deferred(t_bar)
        counts = {} if static or deferred else tally(rejected)
    regular = ~union(rejected.values())
    grad = be.grad_active()
    if grad:
        valid = regular
        if static or deferred:
            t = _masked_implicit_correction(problem, t_bar, regular)
        else:
            t = _implicit_correction(problem, t_bar, regular, counts)
    else:
        valid = ~(rejected[NON_FINITE] | rejected[NON_CONVERGED])
        t = t_bar
    result = ScalarRootResult(
        t=t,
        valid=valid,
        regular=regular,
        rejected=rejected,
        counts=counts,
        n_iter=n_iter,
        residual=F,
        slope=F_t,
        static=static,
        deferred=deferred,
    )
    if deferred:
        warn_grouped_later(name, result, be.size(t_bar), grad, stacklevel + 1)
    elif result.n_rejected:
        warn_grouped(name, result, be.size(t_bar), grad, stacklevel + 1)
    return result


def _newton_step(F, F_t, scale, floor_constant):
    """Primal step F / floor(F_t) with the sign-preserving slope floor."""
    return F / floor_slope(F_t, slope_floor(scale, floor_constant))


def _moving(t, F, F_t, tol, round_off_constant):
    """Problems that still need a step: finite and |F| above the tolerance."""
    finite = be.isfinite(t) & be.isfinite(F) & be.isfinite(F_t)
    return finite & ~(be.abs(F) <= roundoff_tolerance(tol, t, round_off_constant))


def _iterate(problem, t, tol, max_iter, floor_constant, round_off_constant, compact):
    """Newton loop with early exit; returns t̄ and (F, F_t, scale) evaluated at t̄.

    Each pass evaluates the active problems at their current t and tests
    convergence before any slope is used, so a converged problem is frozen at
    the t its stored residual belongs to.  Non-finite problems are frozen too.
    With ``compact`` only the active subset is evaluated and stepped.

    Why compact: most problems converge in 2-4 steps from a base-conic seed
    while a few take many more.  Compaction starts once at most
    ``COMPACT_FRACTION`` of the problems are still moving: while (nearly) all
    of them move, gathering and scattering every array costs more than the
    few evaluations it would save.  Measured at n = 1e6 on NumPy (CPU, one
    thread), a cubic residual: 104 ms compacted vs 143 ms masked; a residual
    with 20 trig terms (asphere-like cost): 0.97 s vs 3.2 s.  The cost of
    compacting is O(n) per step (mask scans and scatters), independent of the
    residual's cost, so the gain grows with the residual's price.
    """
    active = None  # None: all n problems
    F = F_t = scale = None
    n_iter = 0
    while True:
        t_act = t if active is None else t[active]
        F_act, F_t_act, scale_act = problem.evaluate(t_act, subset=active)
        if active is None:
            F, F_t, scale = F_act, F_t_act, scale_act
        else:
            F, F_t, scale = (
                be.scatter(full, active, part)
                for full, part in ((F, F_act), (F_t, F_t_act), (scale, scale_act))
            )
        moving = _moving(t_act, F_act, F_t_act, tol, round_off_constant)
        n_moving = int(be.item(be.sum(moving))) if n_iter < max_iter else 0  # the one host sync
        if n_moving == 0:
            return t, F, F_t, scale, n_iter
        step = _newton_step(F_act, F_t_act, scale_act, floor_constant)
        t_new = be.where(moving, t_act - step, t_act)
        if active is not None:
            t = be.scatter(t, active, t_new)
            active = be.scatter(active, active, moving)
        elif compact and n_moving <= COMPACT_FRACTION * be.size(t):
            t, active = t_new, moving
        else:
            t = t_new
        n_iter += 1


def _iterate_masked(problem, t, tol, n_steps, floor_constant, round_off_constant):
    """Exactly ``n_steps`` full-size masked Newton steps (no early exit, no host sync).

    The first step runs here, so a problem that fills caches on its first
    evaluation fills them at the caller's level; the rest run in
    ``be.graph_free_loop`` (a Python loop on NumPy and torch, one
    ``lax.while_loop`` on stop-gradient inputs on JAX, which may stop once no
    problem moves: a masked step then changes nothing).
    """

    def step(state):
        t, _ = state
        F, F_t, scale = problem.evaluate(t)
        moving = _moving(t, F, F_t, tol, round_off_constant)
        return be.where(moving, t - _newton_step(F, F_t, scale, floor_constant), t), moving

    if n_steps == 0:
        return t, 0
    state = step((t, None))
    t, _ = be.graph_free_loop(step, state, n_steps - 1, active=lambda state: state[1])
    return t, n_steps


def _implicit_correction(problem, t_bar, regular, counts):
    """t = t̄ - F(t̄) / stopgrad(F_t(t̄)) on the regular problems only; others stay detached."""
    n_regular = be.size(t_bar) - sum(counts.values())
    if n_regular == 0:
        return t_bar
    if n_regular == be.size(t_bar):
        F, F_t = _correction_terms(problem, t_bar)
        return t_bar - F / be.detach(F_t)
    t_reg = t_bar[regular]
    F, F_t = _correction_terms(problem, t_reg, subset=regular)
    return be.scatter(t_bar, regular, t_reg - F / be.detach(F_t))


def _masked_implicit_correction(problem, t_bar, regular):
    """The implicit correction without gathers: every problem evaluated, non-regular ones discarded.

    A NaN in a discarded branch of ``where`` still poisons torch's backward
    pass, so non-regular problems are evaluated where F and F_t are finite
    (``problem.correction_terms(t, mask=...)`` or ``problem.evaluate_masked``)
    and their slope is replaced by 1.
    """
    if hasattr(problem, "correction_terms"):
        F, F_t = problem.correction_terms(t_bar, mask=regular)
    elif hasattr(problem, "evaluate_masked"):
        F, F_t, _ = problem.evaluate_masked(t_bar, regular)
    else:
        F, F_t, _ = problem.evaluate(be.where(regular, t_bar, 0.0))
    slope = be.where(regular, be.detach(F_t), 1.0)
    return be.where(regular, t_bar - be.where(regular, F, 0.0) / slope, t_bar)


def _correction_terms(problem, t, subset=None):
    """(F, F_t) for the implicit correction; ``problem.correction_terms`` when it has one.

    A problem's own ``correction_terms(t, subset=None, mask=None)`` may record
    gradients for F alone (F_t enters detached).
    """
    if hasattr(problem, "correction_terms"):
        return problem.correction_terms(t, subset=subset)
    F, F_t, _ = problem.evaluate(t, subset=subset)
    return F, F_t
