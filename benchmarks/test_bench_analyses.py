"""Seidel sums, field curvature, distortion, chromatic focal shift and lateral colour
on the Cooke triplet (NumPy, float64).

Each case times one call of the analysis at its CLI defaults (field curvature and
distortion: 11 fields × the lens's 3 wavelengths; focal shift: 21 wavelengths;
lateral colour: 11 fields).  Optiland 0.6.3's same analyses were timed side by
side in a scratch script (docs/analyses.md, "Performance"); this file keeps
ours measurable.  In quick mode (``OPTICS_BENCH_QUICK=1``) each case runs once.

Run: ``python -m pytest benchmarks/test_bench_analyses.py --benchmark-only``.
"""

from __future__ import annotations

import pytest

from optics import backend as be
from optics.analysis import (
    chromatic_focal_shift,
    distortion,
    field_curvature,
    lateral_color,
    seidel,
)
from optics.io import load

CASES = {
    "seidel": lambda optic: seidel(optic),
    "field_curvature": lambda optic: field_curvature(optic, points=11),
    "distortion": lambda optic: distortion(optic, points=11),
    "chromatic_focal_shift": lambda optic: chromatic_focal_shift(optic, points=21),
    "lateral_color": lambda optic: lateral_color(optic, points=11),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_analysis_on_the_cooke_triplet(benchmark, name):
    with be.using("numpy", precision="float64"):
        optic = load("cooke_triplet")
        CASES[name](optic)  # warm caches (glass data) outside the timing
        benchmark.extra_info["analysis"] = name
        result = benchmark(CASES[name], optic)
    assert result is not None
