"""Polarized vs unpolarized trace of the Cooke triplet on NumPy (issue 38: polarization).

The two traces run interleaved in one process, the same rays and field, and the ratio
of their median times is reported (target: at most 2x, issue 38 at 10^6 rays); the
polarized trace is the timed benchmark.  Quick mode (``OPTICS_BENCH_QUICK=1``) uses
20 000 rays.
Run: ``python -m pytest benchmarks/test_bench_polarization.py --benchmark-only``.
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import pytest
from conftest import QUICK

from optics import backend as be
from optics.io import load
from optics.polarization import polarization_trace, transmission
from optics.trace import prepare, trace_rays

SIZES = (20_000,) if QUICK else (20_000, 200_000, 1_000_000)


def _pupil(n):
    rng = np.random.default_rng(1)
    radius, angle = np.sqrt(rng.random(n)), 2 * np.pi * rng.random(n)
    return radius * np.cos(angle), radius * np.sin(angle)


def _median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


@pytest.mark.parametrize("n", SIZES)
def test_polarized_over_unpolarized_trace(benchmark, report, n):
    with be.using("numpy"):
        system = prepare(load("cooke_triplet"))
        pupil = _pupil(n)

        def plain():
            return trace_rays(system, (0.0, 0.7), pupil)

        def polarized():
            return transmission(polarization_trace(system, (0.0, 0.7), pupil))

        plain(), polarized()  # warm caches (field solve, glass data)
        repeats = 3 if QUICK else 7
        pairs = [(_median_seconds(plain, 1), _median_seconds(polarized, 1)) for _ in range(repeats)]
        ratio = statistics.median(p / u for u, p in pairs)
        benchmark.extra_info["polarized_over_unpolarized"] = round(ratio, 2)
        report(
            f"polarization: {n} rays, Cooke triplet, NumPy: polarized trace + transmission "
            f"{ratio:.2f}x the unpolarized trace (target <= 2x)"
        )
        benchmark.pedantic(polarized, rounds=3, warmup_rounds=0)
