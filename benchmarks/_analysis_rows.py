"""Rows of compare_optiland.py for the analyses built on the trace: wavefront/PSF/MTF, tolerancing.

Both reuse their benchmark files' cases, so the table and the benchmarks time
the same work:

- wavefront + 37-term Zernike fit, FFT PSF + Strehl, FFT MTF for the three
  fields of the Cooke triplet (benchmarks/test_bench_wavefront.py), NumPy
  against Optiland on NumPy and Torch (one thread on both sides) against
  Optiland on Torch, interleaved call by call with Optiland's helper;
- Monte Carlo tolerancing, one worker on NumPy, trials per second
  (benchmarks/test_bench_tolerance.py), measured before and after Optiland's
  run (a subprocess of its own), the median of both blocks.
"""

from __future__ import annotations

import json
import statistics
import time

import test_bench_tolerance as tolerance_bench
import test_bench_wavefront as wavefront_bench
from _optiland_driver import run_helper

BACKENDS = ("numpy", "torch")
TOLERANCE_TRIALS = 60


def _timed(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def wavefront_times(python, repeats):
    """{(backend, case): (ours, Optiland)} median seconds per call (3 fields)."""
    helper = wavefront_bench.optiland_helper(python)
    out = {}
    try:
        for backend in BACKENDS:
            runs = {case: wavefront_bench.our_case(case, backend) for case in wavefront_bench.CASES}
            ours = {case: [] for case in runs}
            theirs = {case: [] for case in runs}
            with wavefront_bench.one_torch_thread(backend):
                for _ in range(repeats + 1):  # the first repeat is a warm-up
                    for case, run in runs.items():
                        ours[case].append(_timed(run))
                        request = {"case": case, "backend": backend, "repeat": 1}
                        theirs[case].append(helper.ask(request)["seconds"][0])
            for case in runs:
                out[(backend, case)] = (
                    statistics.median(ours[case][1:]),
                    statistics.median(theirs[case][1:]),
                )
    finally:
        helper.close()
    return out


def tolerance_rates(python, repeats):
    """(ours, Optiland) Monte Carlo trials per second, one worker, NumPy."""
    rounds = max(1, repeats // 2)
    before = tolerance_bench.one_worker_rates(TOLERANCE_TRIALS, rounds)
    problem = json.dumps(tolerance_bench.PROBLEM)
    reply = run_helper(
        "_optiland_tolerance.py", problem, tolerance_bench.OPTILAND_TRIALS, python=python
    )
    after = tolerance_bench.one_worker_rates(TOLERANCE_TRIALS, rounds)
    return statistics.median(before + after), 1.0 / reply["per_trial_s"]


def rows(wavefront, tolerance):
    """Markdown rows (the columns of compare_optiland.py's table)."""
    lines = []
    names = {"wavefront": "wavefront + Zernike fit", "psf": "FFT PSF + Strehl", "mtf": "FFT MTF"}
    for (backend, case), (ours, theirs) in wavefront.items():
        label = f"{names[case]}, 3 fields, {'NumPy' if backend == 'numpy' else 'Torch'}"
        sampling = "~1e3 a field" if case == "wavefront" else "N = 64, G = 128"
        lines.append(
            f"| {label} | {sampling} | {ours * 1e3:.1f} ms | {theirs * 1e3:.1f} ms | "
            f"{theirs / ours:.1f}× | - |"
        )
    if tolerance is not None:
        ours, theirs = tolerance
        lines.append(
            f"| Monte Carlo tolerancing, Cooke, 26 components, 1 worker, trials/s | 3 × 127 | "
            f"{ours:.1f} | {theirs:.2f} | {ours / theirs:.1f}× | ≥ 3× |"
        )
    return lines
