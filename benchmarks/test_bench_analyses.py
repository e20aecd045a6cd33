"""Seidel sums, field curvature, distortion, chromatic focal shift, lateral colour and the
through-focus spot on the Cooke triplet (NumPy, float64).

Each case times one call of the analysis at its CLI defaults (field curvature and
distortion: 11 fields × the lens's 3 wavelengths; focal shift: 21 wavelengths;
lateral colour: 11 fields; through-focus spot: 3 fields × 3 wavelengths at 5 focus
positions with 6 hexapolar rings, Optiland's ThroughFocusSpotDiagram defaults).
Optiland 0.6.3's same analyses were timed side by side in a scratch script
(docs/analyses.md, "Performance"); this file keeps ours measurable.  In quick mode
(``OPTICS_BENCH_QUICK=1``) each case runs once.

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
    through_focus_spot,
)
from optics.io import load

CASES = {
    "seidel": lambda optic: seidel(optic),
    "field_curvature": lambda optic: field_curvature(optic, points=11),
    "distortion": lambda optic: distortion(optic, points=11),
    "chromatic_focal_shift": lambda optic: chromatic_focal_shift(optic, points=21),
    "lateral_color": lambda optic: lateral_color(optic, points=11),
    "through_focus_spot": lambda optic: through_focus_spot(
        optic, [-0.1, -0.05, 0.0, 0.05, 0.1], rings=6
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_analysis_on_the_cooke_triplet(benchmark, name):
    with be.using("numpy", precision="float64"):
        optic = load("cooke_triplet")
        CASES[name](optic)  # warm caches (glass data) outside the timing
        benchmark.extra_info["analysis"] = name
        result = benchmark(CASES[name], optic)
    assert result is not None
