"""One Adam step (forward trace + backward + update) on the Cooke triplet, next to Optiland.

The problem: the Cooke triplet of ../shared/reference (constant indices at
0.55 µm), 6 radius variables, 3 fields (0, 14, 20 degrees) x 127 hexapolar
rays, merit = Σ_fields RMS spot² + (EFL − 50)².  In optics that is one
``rms_spot`` operand of weight 3 (it is the root mean square over fields) and
one ``efl`` operand; in Optiland 0.6.3, three ``rms_spot_size`` operands and
one ``f2``.

When an Optiland environment exists (``OPTILAND_PYTHON``, default
/tmp/optiland-venv/bin/python; ``pip install optiland==0.6.3`` there),
its ``TorchAdamOptimizer`` is timed on the same problem in the same run,
through a subprocess (Optiland is never a dependency of optics), and the
ratio is reported (target: optics at least 3x faster per step).

A measurement, not a test: nothing here fails on a slow machine.
Run with ``pytest benchmarks/test_bench_optimize.py --benchmark-only``.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from _optiland_driver import run_helper

from optics import backend as be
from optics.optimize import Adam

PROBLEM = {
    "rows": [  # radius, thickness, index (None: air), stop
        (22.01359, 3.25896, 1.6226085614386923, False),
        (-435.76044, 6.00755, None, False),
        (-22.21328, 0.99997, 1.6236551229276037, False),
        (20.29192, 4.75041, None, True),
        (79.6836, 2.95208, 1.6226085614386923, False),
        (-18.39533, 42.20778, None, False),
    ],
    "epd": 10.0,
    "fields": [0.0, 14.0, 20.0],
    "wavelength": 0.55,
    "rings": 6,
    "efl": 50.0,
}
TARGET_SPEEDUP = 3.0
OPTILAND_PYTHON = os.environ.get("OPTILAND_PYTHON", "/tmp/optiland-venv/bin/python")


def build_problem():
    """The benchmark :class:`~optics.optimize.Problem` (optics side)."""
    from optics.io import optic_from_dict
    from optics.optimize import Operand, Problem

    surfaces = [{"thickness": math.inf}]
    for radius, thickness, index, stop in PROBLEM["rows"]:
        surface = {"radius": radius, "thickness": thickness, "stop": stop}
        if index:
            surface["material"] = {"index": index}
        surfaces.append(surface)
    optic = optic_from_dict(
        {
            "aperture": {"type": "epd", "value": PROBLEM["epd"]},
            "fields": {"type": "angle", "values": PROBLEM["fields"]},
            "wavelengths": {"values": [PROBLEM["wavelength"]]},
            "surfaces": [*surfaces, {}],
        }
    )
    operands = [
        Operand("rms_spot", weight=len(PROBLEM["fields"]), rings=PROBLEM["rings"]),
        Operand("efl", target=PROBLEM["efl"]),
    ]
    return Problem(optic, [f"surfaces[{i}].radius" for i in range(1, 7)], operands)


def optiland_step_seconds(repeats=5):
    """Median seconds per TorchAdamOptimizer step in Optiland, or None without Optiland."""
    if not Path(OPTILAND_PYTHON).exists():
        return None
    reply = run_helper(
        "_optiland_adam.py", json.dumps(PROBLEM), repeats, python=OPTILAND_PYTHON, timeout=900
    )
    return reply["per_step_s"]


def test_adam_step_cooke_triplet(benchmark, report):
    pytest.importorskip("torch")
    problem = build_problem()
    with be.using("torch"):
        optimizer = Adam(problem.start(), 1e-3)

        def step():
            return optimizer.step(problem.merit_value)

        merit, _ = step()
        benchmark.pedantic(step, rounds=30, warmup_rounds=3)
    ours = benchmark.stats.stats.median
    benchmark.extra_info["step_ms"] = ours * 1e3
    benchmark.extra_info["merit"] = merit
    line = f"Adam step, Cooke triplet, 6 radii, 3 x 127 rays: optics {ours * 1e3:.1f} ms"
    theirs = optiland_step_seconds()
    if theirs is not None:
        benchmark.extra_info["optiland_step_ms"] = theirs * 1e3
        benchmark.extra_info["speedup"] = theirs / ours
        line += (
            f", Optiland 0.6.3 {theirs * 1e3:.1f} ms: {theirs / ours:.1f}x faster "
            f"(target {TARGET_SPEEDUP:g}x)"
        )
    report(line)


def test_benchmark_merit_matches_optilands_definition():
    """The weight-3 RMS operand equals the sum of the three per-field RMS² terms."""
    from optics.analysis import spot_diagram

    problem = build_problem()
    spots = spot_diagram(problem.optic, pupil=PROBLEM["rings"])
    per_field = sum(float(be.to_numpy(s.rms_radius_centroid)) ** 2 for s in spots)
    rows = problem.report(problem.start())
    assert rows[0]["contribution"] == pytest.approx(per_field, rel=1e-12)
