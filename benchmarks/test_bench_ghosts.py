"""A full ghost analysis of the double Gauss sample: all 55 surface pairs (NumPy, float64).

Each ghost is an unfolded sequential system traced with the hexapolar grid of the CLI
default (6 rings, 127 rays) plus its paraxial focus; the case times one
:func:`optics.ghosts.ghosts` call (``optics ghosts double_gauss``).  Beside it, one trace
of the same rays through the primary system, so that the per-ghost cost reads as a ratio
(printed in the summary).  In quick mode (``OPTICS_BENCH_QUICK=1``) two rings.

Run: ``python -m pytest benchmarks/test_bench_ghosts.py --benchmark-only``.
"""

from __future__ import annotations

import time

import pytest
from conftest import QUICK

from optics import backend as be
from optics.ghosts import ghost_pairs, ghost_rays, ghosts
from optics.io import load
from optics.trace import propagate

RINGS = 2 if QUICK else 6


@pytest.fixture(scope="module")
def double_gauss():
    with be.using("numpy", precision="float64"):
        yield load("double_gauss")


def test_full_ghost_analysis_of_the_double_gauss(benchmark, double_gauss, report):
    with be.using("numpy", precision="float64"):
        result = benchmark(ghosts, double_gauss, rings=RINGS)
        assert len(result.ghosts) == len(ghost_pairs(double_gauss)) == 55
        rays = ghost_rays(double_gauss, rings=RINGS)
        start = time.perf_counter()
        for _ in range(20):
            propagate(double_gauss, rays)
        primary = (time.perf_counter() - start) / 20
        start = time.perf_counter()
        ghosts(double_gauss, rings=RINGS)
        full = time.perf_counter() - start
    report(
        f"ghosts double_gauss ({RINGS} rings): full analysis {full:.3f} s = "
        f"{full / primary:.0f} x one primary trace ({full / primary / 55:.1f} x per ghost)"
    )
