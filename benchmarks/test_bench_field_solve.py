"""Cost of the real-image-height field solve (issue 5, performance).

- the full solve of 3 fields (6, 12, 18 mm) on the Cooke triplet, NumPy and
  Torch (no grad, and with grad: the implicit correction included); target
  at most 10 ms per field solve on NumPy;
- forward + backward of the RMS-spot merit (3 fields × 3 wavelengths ×
  127 rays) with real-image-height fields and six radii requiring grad.

``extra_info`` records ms per field solve and the Newton iterations.
Run: ``python -m pytest benchmarks/test_bench_field_solve.py --benchmark-only``.
"""

from __future__ import annotations

import pytest
from conftest import expect_target

from optics import backend as be
from optics.io import load
from optics.optimize.merit import Merit, Operand
from optics.system import Fields
from optics.trace.real_image_height import solve_fields

HEIGHTS = (6.0, 12.0, 18.0)  # mm
NUMPY_TARGET_MS_PER_FIELD = 10.0


def cooke_real_image_height():
    """The sample Cooke triplet (SK16/F2, 3 wavelengths) with real-image-height fields."""
    optic = load("cooke_triplet")
    optic.fields = Fields("real_image_height", [(0.0, h) for h in HEIGHTS])
    return optic


def _targets():
    return be.asarray([[0.0, h] for h in HEIGHTS])


def _record(benchmark, result):
    per_field = benchmark.stats.stats.median * 1e3 / len(HEIGHTS)
    benchmark.extra_info["ms_per_field_solve"] = round(per_field, 4)
    benchmark.extra_info["newton_iterations"] = result.n_iter
    return per_field


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
def test_field_solve_three_fields(benchmark, backend_name):
    if backend_name == "torch":
        pytest.importorskip("torch")
    with be.using(backend_name):
        optic, targets = cooke_real_image_height(), _targets()

        def run():
            with be.no_grad():
                return solve_fields(optic, targets)

        result = benchmark(run)
    per_field = _record(benchmark, result)
    if backend_name == "numpy":
        expect_target(
            per_field <= NUMPY_TARGET_MS_PER_FIELD,
            f"field solve {per_field:.3f} ms per field > {NUMPY_TARGET_MS_PER_FIELD} ms",
        )


def test_field_solve_three_fields_torch_with_implicit_correction(benchmark):
    pytest.importorskip("torch")
    with be.using("torch"):
        optic, targets = cooke_real_image_height(), _targets()
        for surface in optic.surfaces[1:-1]:
            surface.geometry.radius = be.parameter(surface.geometry.radius)
        result = benchmark(solve_fields, optic, targets)
    _record(benchmark, result)


def test_rms_spot_merit_numpy_forward(benchmark):
    with be.using("numpy"):
        optic = cooke_real_image_height()
        merit = Merit([Operand("rms_spot")])
        benchmark(merit, optic)


def test_rms_spot_merit_torch_forward_backward(benchmark):
    pytest.importorskip("torch")
    with be.using("torch"):
        optic = cooke_real_image_height()
        radii = []
        for surface in optic.surfaces[1:-1]:
            surface.geometry.radius = be.parameter(surface.geometry.radius)
            radii.append(surface.geometry.radius)
        merit = Merit([Operand("rms_spot")])

        def run():
            for radius in radii:
                radius.grad = None
            value = merit(optic)
            value.backward()
            return value

        benchmark(run)
    benchmark.extra_info["ms_forward_backward"] = round(benchmark.stats.stats.median * 1e3, 3)
