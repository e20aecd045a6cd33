"""optics' ``dls`` against Optiland 0.6.3's optimizers on the design problems of benchmarks/dls/.

Each problem is a lens file with its ``[optimize]`` section (variables,
bounds, merit): a singlet at F/4, an achromatic doublet, a Cooke triplet from
a perturbed start and from flat surfaces, a double Gauss from a perturbed
start and a retrofocus wide angle from a patent (US 3,583,791).  The
benchmark runs ``dls`` on NumPy to convergence and, in a full run, asserts
that its final merit is at most the best of Optiland's and its time at most
a third of each of Optiland's.

The Optiland literals below were measured with benchmarks/_optiland_design.py
(Optiland's interpreter; it reads the same lens file and builds the same
merit: both codes give the same start merit to 13-16 digits, except for
cooke_perturbed, whose SK16 Optiland resolves to N-SK16): ``LeastSquares``
(``method_choice="trf"``, ``tol=1e-12``) and ``DifferentialEvolution``
(``workers=1``, SciPy's defaults: popsize 15; with a CPU budget, without
the L-BFGS-B polish, ``--no-polish``, so that the budget ends the run),
NumPy backend, ``OMP_NUM_THREADS=1``.  Times are CPU seconds of the process
(``time.process_time``).  A run its CPU budget (``--cpu-seconds``) or
SciPy's evaluation limit stopped reports the merit where it stopped, with
``finished`` False: its time is a lower bound on its time to converge, and,
when its merit is above ours, on its time to reach our merit.  The singlet,
doublet and cooke_perturbed LeastSquares rows are from an earlier, quieter
run (wall seconds, scratch script with the same merit; docs/optimization.md).

Quick mode (``OPTICS_BENCH_QUICK=1``) runs 3 steps per problem and asserts
only that the start merits match and the merit falls.
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest
from conftest import QUICK, expect_target

from optics import backend as be
from optics.io import load
from optics.optimize import optimize, problem_from_lens

HERE = Path(__file__).resolve().parent / "dls"

#: Optiland 0.6.3 per problem: its start merit, then per optimizer (final merit,
#: seconds, finished: False when its CPU budget stopped it); None: not measured
#: (DifferentialEvolution on the larger problems did not finish in the session).
OPTILAND = {
    "singlet_f4": {
        "start": 0.2647064641668307,
        "ls": (0.0037242086947654567, 35.4, True),  # wall s, earlier run, 549 evaluations
        # SciPy's DE to its own end, then its L-BFGS-B polish; 9233 evaluations.
        "de": (0.003724433606257638, 170.9, True),
    },
    "doublet": {
        "start": 1528.766006475144,
        "ls": (0.0001689392079826813, 89.7, True),  # wall s, earlier run, 249 evaluations
        "de": (0.010187553137169457, 123.3, False),  # budget 120 CPU s, no polish; 1980 ev.
    },
    "cooke_perturbed": {
        # Optiland resolves SK16 to N-SK16 (its start merit is 130.39899, ours 130.39212).
        "start": 130.39211593446035,
        "ls": (0.00015957165296190753, 954.7, False),  # wall s, stopped at 1000 evaluations
        "de": (0.08677284300725448, 124.9, False),  # budget 120, no polish; 1050 evaluations
    },
    "cooke_flat": {
        "start": 14.728998774108229,
        "ls": (0.002950570106075953, 120.5, False),  # budget 120; 128 evaluations
        "de": (0.14973709355476567, 120.2, False),  # budget 120, no polish; 945 evaluations
    },
    "double_gauss_perturbed": {
        "start": 64.88461611923339,
        # SciPy's limit of 1000 evaluations (max_nfev), no CPU budget: 1522 CPU s.
        "ls": (0.0011159860028001273, 1522.2, False),
        "de": (0.7211998926146164, 240.2, False),  # budget 240, no polish; 1650 evaluations
    },
    "wide_angle_us3583791": {
        "start": 0.029736952850919023,
        "ls": (0.012523621687239021, 602.3, False),  # budget 600; 209 evaluations
        # Budget 240, no polish: no point better than the start; 1350 evaluations.
        "de": (0.029736952850929504, 256.6, False),
    },
}

#: dls steps of a full run (each problem converges before; quick mode: 3).
STEPS = 1000


def run_dls(name, steps):
    """One ``dls`` run on NumPy from the lens file.

    Returns the result, its wall and CPU seconds and the CPU seconds at each
    accepted step, as (merit, seconds) pairs.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    trace = []

    def record(entry):
        trace.append((entry.merit, time.process_time() - cpu))
        return False

    lens = load(HERE / f"{name}.toml")
    with be.using("numpy"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        problem, _ = problem_from_lens(lens)
        result = optimize(
            problem, "dls", steps=steps, merit_tol=1e-12, grad_tol=1e-12, callback=record
        )
    return result, time.perf_counter() - wall, time.process_time() - cpu, trace


def seconds_to_reach(trace, merit):
    """CPU seconds at the first step whose merit is at most ``merit`` (None: never)."""
    return next((s for m, s in trace if m <= merit * (1 + 1e-6)), None)


@pytest.mark.parametrize("name", list(OPTILAND))
def test_dls_design_problem(benchmark, name, report):
    out = {}

    def run():
        out["run"] = run_dls(name, 3 if QUICK else STEPS)

    benchmark.pedantic(run, rounds=1, iterations=1)
    result, wall, cpu, trace = out["run"]
    reference = OPTILAND[name]
    # Our start merit: equal to Optiland's (N-SK16 against SK16 on cooke_perturbed).
    rel = 1e-4 if name == "cooke_perturbed" else 1e-12
    assert result.merit_before == pytest.approx(reference["start"], rel=rel)
    assert result.merit_after < result.merit_before
    report(
        f"dls {name}: merit {result.merit_after:.10g} in {result.steps} steps, "
        f"{cpu:.1f} CPU s ({wall:.1f} s wall)"
    )
    for driver in ("ls", "de"):
        if reference[driver] is None:
            continue
        merit, seconds, finished = reference[driver]
        reached = seconds_to_reach(trace, merit)
        report(f"  {name}: dls reaches Optiland {driver}'s merit {merit:.6g} at {reached} CPU s")
        expect_target(
            result.merit_after <= merit * (1 + 1e-6),
            f"{name}: dls merit {result.merit_after:.10g} <= Optiland {driver}'s {merit:.10g}",
        )
        # Our whole run against Optiland's time.  For a run its CPU budget or SciPy's
        # evaluation limit stopped, that time is a lower bound on its time to converge,
        # and on its time to reach our final merit (not reached: asserted above).
        expect_target(
            cpu <= seconds / 3,
            f"{name}: dls {cpu:.1f} s <= a third of Optiland {driver}'s {seconds:.1f} s"
            + ("" if finished else " (Optiland stopped there: a lower bound)"),
        )
