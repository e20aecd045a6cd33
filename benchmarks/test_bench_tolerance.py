"""Monte Carlo tolerancing throughput (trials per second) on the Cooke triplet, next to Optiland.

The problem: the Cooke triplet of ../shared/reference (constant indices at
0.55 µm), 20 tolerance items — the 6 radii (±0.2%), the 5 thicknesses in
front of the back focus (±0.05 mm), the 3 indices (±0.001), surfaces 1, 3, 5
decentered (±0.02 mm) and surfaces 2, 4, 6 tilted (±0.05°), all uniform, a
decenter or tilt drawn in x and in y: 26 random components — the back focus
re-optimized in every trial, criterion the RMS spot over the 3 fields
(0, 14, 20°, 127 hexapolar rays each).  Each surface's decenter and tilt is
about its own vertex, the form Optiland's tolerancing expresses.

Ours: ``monte_carlo`` with one worker (in this process) and with two Dask
workers (a LocalCluster started before the clock runs), alternately, five
rounds, the best and the median rates reported, on NumPy, the
backend ``optics tolerance`` runs trials on by default; the one-worker rate
on Torch (compensators with exact gradients) is reported too.  Optiland
0.6.3: ``MonteCarlo.run`` on the same lens with 26 ``DistributionSampler``
perturbations, a ``thickness`` compensator and three ``rms_spot_size``
operands, through a subprocess (``OPTILAND_PYTHON``, default
/work/optiland-venv/bin/python; Optiland is never a dependency of optics).
Targets: one worker at least 3x Optiland's rate, two workers at least 1.6x
one worker.  The nominal RMS of each field is printed for both programs, to
show they trace the same lens.

A measurement, not a test: nothing here fails on a slow machine.
Run with ``pytest benchmarks/test_bench_tolerance.py --benchmark-only -s``.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import statistics
import time
from pathlib import Path

import pytest
from _optiland_driver import OPTILAND_PYTHON, run_helper

from optics import backend as be
from optics.io import optic_from_dict
from optics.optimize import MeritContext, Operand
from optics.tolerance import ToleranceModel, monte_carlo

ROWS = [  # radius, thickness, index (None: air), stop
    (22.01359, 3.25896, 1.6226085614386923, False),
    (-435.76044, 6.00755, None, False),
    (-22.21328, 0.99997, 1.6236551229276037, False),
    (20.29192, 4.75041, None, True),
    (79.6836, 2.95208, 1.6226085614386923, False),
    (-18.39533, 42.20778, None, False),
]
ITEMS = (
    [
        {"kind": "radius", "surface": i, "plus_minus": 0.002 * abs(ROWS[i - 1][0])}
        for i in range(1, 7)
    ]
    + [{"kind": "thickness", "surface": i, "plus_minus": 0.05} for i in range(1, 6)]
    + [{"kind": "index", "surface": i, "plus_minus": 0.001} for i in (1, 3, 5)]
    + [{"kind": "decenter", "surface": i, "plus_minus": 0.02} for i in (1, 3, 5)]
    + [{"kind": "tilt", "surface": i, "plus_minus": 0.05} for i in (2, 4, 6)]
)
PROBLEM = {
    "rows": ROWS,
    "epd": 10.0,
    "fields": [0.0, 14.0, 20.0],
    "wavelength": 0.55,
    "rings": 6,
    "items": ITEMS,
}
TARGET_VS_OPTILAND = 3.0
TARGET_TWO_WORKERS = 1.6
OPTILAND_TRIALS = int(os.environ.get("OPTICS_BENCH_OPTILAND_TRIALS", "20"))
_QUICK = os.environ.get("OPTICS_BENCH_QUICK") == "1"  # CI's check that the benchmark runs
TRIALS = int(os.environ.get("OPTICS_BENCH_TOLERANCE_TRIALS", "12" if _QUICK else "120"))
ROUNDS = 1 if _QUICK else 5


def _item(entry):
    kind, surface, width = entry["kind"], entry["surface"], entry["plus_minus"]
    item = {"plus_minus": width, "distribution": "uniform"}
    if kind in ("radius", "thickness"):
        return {"path": f"surfaces[{surface}].{kind}", **item}
    if kind == "index":
        return {"kind": "index", "surface": surface, **item}
    return {"kind": kind, "surfaces": [surface], **item}


def build_lens():
    """The benchmark lens with its [tolerance] section (optics side)."""
    surfaces = [{"thickness": math.inf}]
    for radius, thickness, index, stop in ROWS:
        surface = {"radius": radius, "thickness": thickness, "stop": stop}
        if index:
            surface["material"] = {"index": index}
        surfaces.append(surface)
    return optic_from_dict(
        {
            "aperture": {"type": "epd", "value": PROBLEM["epd"]},
            "fields": {"type": "angle", "values": PROBLEM["fields"]},
            "wavelengths": {"values": [PROBLEM["wavelength"]]},
            "surfaces": [*surfaces, {}],
            "tolerance": {
                "criterion": {"type": "rms_spot", "fields": [0, 1, 2], "rings": PROBLEM["rings"]},
                "compensators": [f"surfaces[{len(ROWS)}].thickness"],
                "items": [_item(entry) for entry in ITEMS],
            },
        }
    )


def optiland_run(trials):
    """Optiland's seconds per trial and nominal per-field RMS, or None without Optiland."""
    if not Path(OPTILAND_PYTHON).exists():
        return None
    return run_helper("_optiland_tolerance.py", json.dumps(PROBLEM), trials)


def one_worker_rates(trials=TRIALS, rounds=ROUNDS):
    """Trials per second of ``monte_carlo`` with one worker on NumPy, ``rounds`` times (warm)."""
    model = ToleranceModel(build_lens())
    monte_carlo(model, 4, seed=0, workers=1)  # warm caches
    return [_rate(model, trials, workers=1)[0] for _ in range(rounds)]


def _busy(_):
    total = 0
    for i in range(3_000_000):
        total += i * i
    return total


def parallel_headroom() -> float:
    """Throughput of 2 processes over 1 on a pure-Python loop: what a second worker can gain now.

    On a machine shared with other jobs the second core may be mostly taken;
    this control, measured next to the Monte Carlo, shows how much of it there was.
    """
    rates = {}
    for n in (1, 2, 1, 2):
        started = time.perf_counter()
        with multiprocessing.get_context("spawn").Pool(n) as pool:
            pool.map(_busy, range(2 * n))
        rates.setdefault(n, []).append(2 * n / (time.perf_counter() - started))
    return max(rates[2]) / max(rates[1])


def _rate(model, trials, backend="numpy", **where):
    started = time.perf_counter()
    result = monte_carlo(model, trials, seed=1, backend=backend, **where)
    return trials / (time.perf_counter() - started), result


def test_monte_carlo_trials_per_second(benchmark, report):
    distributed = pytest.importorskip("distributed")
    lens = build_lens()
    model = ToleranceModel(lens)
    per_field = [
        float(be.item(Operand("rms_spot", fields=[i], rings=6).value(MeritContext(lens))))
        for i in range(3)
    ]
    assert len(model) == 26
    monte_carlo(model, 4, seed=0, workers=1)  # warm caches
    ones, twos, cpus = [], [], []
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=None, env={"OMP_NUM_THREADS": "1"}
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        address = cluster.scheduler_address
        monte_carlo(model, 4, seed=0, scheduler=address)  # workers warm up

        def one_round():
            # one worker, then two, alternately: a load change on the shared machine hits both
            cpu = time.process_time()
            ones.append(_rate(model, TRIALS, workers=1))
            cpus.append((time.process_time() - cpu) / TRIALS)
            twos.append(_rate(model, 2 * TRIALS, scheduler=address))

        benchmark.pedantic(one_round, rounds=ROUNDS)
        client.close()
    # best of the rounds (the least disturbed by other load, as timeit takes the minimum)
    one, two = max(rate for rate, _ in ones), max(rate for rate, _ in twos)
    medians = statistics.median(r for r, _ in ones), statistics.median(r for r, _ in twos)
    cpu = min(cpus)
    result_one, result_two = ones[-1][1], twos[-1][1]
    assert (result_two.values[:TRIALS] == result_one.values).all()  # same seeds, same trials
    on_torch = None
    if "torch" in be.available_backends():
        monte_carlo(model, 2, seed=0, workers=1, backend="torch")
        on_torch, _ = _rate(model, max(4, TRIALS // 4), "torch", workers=1)
    headroom = parallel_headroom()
    line = (
        f"Monte Carlo, Cooke triplet, 20 items, back-focus compensator (numpy), best of "
        f"{ROUNDS} rounds: 1 worker {one:.1f} trials/s, 2 workers {two:.1f} trials/s "
        f"({two / one:.2f}x, target {TARGET_TWO_WORKERS:g}x; medians {medians[0]:.1f} and "
        f"{medians[1]:.1f}; a 2-process pure-Python control gains {headroom:.2f}x now)"
    )
    benchmark.extra_info["parallel_headroom"] = headroom
    benchmark.extra_info.update(one_worker=one, two_workers=two, two_vs_one=two / one)
    if on_torch is not None:
        line += f"; torch 1 worker {on_torch:.1f} trials/s"
        benchmark.extra_info["torch_one_worker"] = on_torch
    theirs = optiland_run(OPTILAND_TRIALS)
    if theirs is not None:
        rate = 1.0 / theirs["per_trial_s"]
        benchmark.extra_info.update(optiland=rate, vs_optiland=one / rate)
        line += (
            f"; Optiland 0.6.3 {rate:.2f} trials/s: {one / rate:.1f}x on one worker "
            f"(target {TARGET_VS_OPTILAND:g}x); CPU time per trial: optics {cpu * 1e3:.1f} ms, "
            f"Optiland {theirs['cpu_per_trial_s'] * 1e3:.0f} ms "
            f"({theirs['cpu_per_trial_s'] / cpu:.1f}x). Nominal RMS per field (mm): optics "
            + ", ".join(f"{v:.6f}" for v in per_field)
            + "; Optiland "
            + ", ".join(f"{v:.6f}" for v in theirs["nominal_rms"])
        )
    report(line)
    print(line)
