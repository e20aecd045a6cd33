"""Newton–Raphson surfaces: the Chebyshev Cooke triplet (issue 4, performance).

The Cooke triplet with its last lens surface replaced by a Chebyshev freeform
(``benchmarks/_systems.py``, shared with the Optiland comparison):

- trace throughput at 1e5 and 1e6 rays on NumPy, Torch without grad and
  Torch forward+backward (six radii requiring grad), in ray·surfaces per
  second: ``extra_info["M_ray_surfaces_per_s"]`` from the wall-clock median
  and ``extra_info["cpu_M_ray_surfaces_per_s"]`` from the process CPU time of
  the fastest round (steadier on a loaded machine);
- saved autograd bytes per ray·surface for Newton solves forced to 10, 100
  and 1000 iterations (``saved_tensors_hooks``: every tensor an autograd node
  saves, counted each time it is saved, and the distinct storages among them).

Targets (issue 4), against Optiland 0.6.3 measured side by side at 1e6 rays:
NumPy >= 12 M (Optiland 4.6 M), Torch without grad >= 12 M (6.4 M), at most
170 saved bytes per ray·surface (457), forward+backward at least 3x
Optiland's 3.0 M (issue 7's anchor at 1e5 rays).
Run: ``python -m pytest benchmarks/test_bench_newton.py --benchmark-only``.
"""

from __future__ import annotations

import time

import pytest
from _systems import FIELD, build, make_radii_trainable, pupil, ray_surfaces

from optics import backend as be
from optics.geometry.newton_types import forced_iterations
from optics.trace import trace_rays

SIZES = (100_000, 1_000_000)
SYSTEM = "cooke_chebyshev"
TARGET_M = {"numpy": 12.0, "torch_no_grad": 12.0, "torch_forward_backward": 3 * 3.0}
TARGET_SAVED_BYTES = 170.0
SAVED_BYTES_RAYS = 10_000


class _CpuClock:
    """Wraps a function and keeps the process CPU time of each call."""

    def __init__(self, fn):
        self.fn, self.seconds = fn, []

    def __call__(self):
        start = time.process_time()
        self.fn()
        self.seconds.append(time.process_time() - start)


def _record(benchmark, report, optic, n, clock, case):
    work = ray_surfaces(optic, n)
    wall = work / benchmark.stats.stats.median / 1e6
    cpu = work / min(clock.seconds) / 1e6
    benchmark.extra_info.update(
        M_ray_surfaces_per_s=round(wall, 2),
        cpu_M_ray_surfaces_per_s=round(cpu, 2),
        target_M_ray_surfaces_per_s=TARGET_M[case],
    )
    report(
        f"newton {case} n={n}: {wall:.1f} M ray·surf/s wall, {cpu:.1f} M cpu "
        f"(target {TARGET_M[case]:.0f} M)"
    )


def _inputs(n):
    optic = build(SYSTEM)
    px, py = (be.asarray(a) for a in pupil(n))
    return optic, px, py


@pytest.mark.parametrize("n", SIZES)
def test_newton_trace_numpy(benchmark, report, n):
    with be.using("numpy"):
        optic, px, py = _inputs(n)
        clock = _CpuClock(lambda: trace_rays(optic, FIELD, (px, py)))
        benchmark.pedantic(clock, rounds=5, warmup_rounds=1)
    _record(benchmark, report, optic, n, clock, "numpy")


@pytest.mark.parametrize("n", SIZES)
def test_newton_trace_torch_no_grad(benchmark, report, n):
    pytest.importorskip("torch")
    with be.using("torch"):
        optic, px, py = _inputs(n)

        def run():
            with be.no_grad():
                trace_rays(optic, FIELD, (px, py))

        clock = _CpuClock(run)
        benchmark.pedantic(clock, rounds=5, warmup_rounds=1)
    _record(benchmark, report, optic, n, clock, "torch_no_grad")


@pytest.mark.parametrize("n", SIZES)
def test_newton_trace_torch_forward_backward(benchmark, report, n):
    pytest.importorskip("torch")
    with be.using("torch"):
        optic, px, py = _inputs(n)
        make_radii_trainable(optic)

        def run():
            rays = trace_rays(optic, FIELD, (px, py))
            be.sum(be.where(rays.valid, rays.x**2 + rays.y**2, 0.0)).backward()

        clock = _CpuClock(run)
        benchmark.pedantic(clock, rounds=3 if n > SIZES[0] else 5, warmup_rounds=1)
    _record(benchmark, report, optic, n, clock, "torch_forward_backward")


def saved_bytes_per_ray_surface(iterations, n=SAVED_BYTES_RAYS):
    """(packed, distinct) autograd bytes per ray·surface of one grad-recording trace."""
    import torch

    with be.using("torch"):
        optic, px, py = _inputs(n)
        make_radii_trainable(optic)
        packed = []

        def pack(tensor):
            packed.append(
                (tensor.untyped_storage().data_ptr(), tensor.numel() * tensor.element_size())
            )
            return tensor

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
            with forced_iterations(iterations):
                rays = trace_rays(optic, FIELD, (px, py))
            be.sum(be.where(rays.valid, rays.x**2 + rays.y**2, 0.0))
    work = ray_surfaces(optic, n)
    return sum(size for _, size in packed) / work, sum(dict(packed).values()) / work


@pytest.mark.parametrize("iterations", [10, 100, 1000])
def test_newton_saved_bytes_per_ray_surface(benchmark, report, iterations):
    pytest.importorskip("torch")
    result = benchmark.pedantic(saved_bytes_per_ray_surface, (iterations,), rounds=1)
    packed, distinct = result
    benchmark.extra_info.update(
        saved_bytes_per_ray_surface=round(packed, 1),
        distinct_saved_bytes_per_ray_surface=round(distinct, 1),
        target_saved_bytes=TARGET_SAVED_BYTES,
        newton_iterations=iterations,
    )
    report(
        f"newton saved bytes, {iterations} forced iterations: {packed:.0f} B/ray·surf "
        f"({distinct:.0f} distinct; target {TARGET_SAVED_BYTES:.0f})"
    )
