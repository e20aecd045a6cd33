"""Trace throughput of the Cooke triplet (issue: tracing core, performance).

Reports ray·surfaces per second in ``extra_info`` for NumPy, Torch without
grad and Torch forward+backward (six radii requiring grad), plus the fixed
per-call overhead of ``trace_rays`` with a single ray.
Run: ``python -m pytest benchmarks/test_bench_trace.py --benchmark-only``.
"""

from __future__ import annotations

import numpy as np
import pytest

from optics import accel
from optics import backend as be
from optics.io import load
from optics.trace import trace_rays

SIZES = (10_000, 100_000, 1_000_000)


def _pupil(n):
    rng = np.random.default_rng(1)
    radius, angle = np.sqrt(rng.random(n)), 2 * np.pi * rng.random(n)
    return be.asarray(radius * np.cos(angle)), be.asarray(radius * np.sin(angle))


def _surfaces(optic):
    return len(optic.surfaces) - 1


def _record_rate(benchmark, n, optic):
    if benchmark.stats is None:  # --benchmark-disable: run once, nothing timed
        return
    rate = n * _surfaces(optic) / benchmark.stats.stats.median
    benchmark.extra_info["ray_surfaces_per_s"] = rate
    benchmark.extra_info["M_ray_surfaces_per_s"] = round(rate / 1e6, 2)


@pytest.mark.parametrize("n", SIZES)
def test_trace_numpy(benchmark, n):
    with be.using("numpy"):
        optic = load("cooke_triplet")
        px, py = _pupil(n)
        benchmark.pedantic(trace_rays, (optic, (0.0, 0.7), (px, py)), rounds=5, warmup_rounds=1)
    _record_rate(benchmark, n, optic)


@pytest.mark.parametrize("n", SIZES)
def test_trace_torch_no_grad(benchmark, n):
    pytest.importorskip("torch")
    with be.using("torch"):
        optic = load("cooke_triplet")
        px, py = _pupil(n)

        def run():
            with be.no_grad():
                return trace_rays(optic, (0.0, 0.7), (px, py))

        benchmark.pedantic(run, rounds=5, warmup_rounds=1)
    _record_rate(benchmark, n, optic)


@pytest.mark.parametrize("n", SIZES[:2])
def test_trace_torch_forward_backward(benchmark, n):
    pytest.importorskip("torch")
    with be.using("torch"):
        optic = load("cooke_triplet")
        for surface in optic.surfaces[1:-1]:
            surface.geometry.radius = be.parameter(surface.geometry.radius)
        px, py = _pupil(n)

        def run():
            rays = trace_rays(optic, (0.0, 0.7), (px, py))
            loss = be.sum(be.where(rays.valid, rays.x**2 + rays.y**2, 0.0))
            loss.backward()

        benchmark.pedantic(run, rounds=5, warmup_rounds=1)
    _record_rate(benchmark, n, optic)


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
def test_trace_fixed_overhead_one_ray(benchmark, backend_name):
    if backend_name == "torch":
        pytest.importorskip("torch")
    with be.using(backend_name):
        optic = load("cooke_triplet")
        benchmark(trace_rays, optic, (0.0, 0.7), (0.0, 0.0))
    if benchmark.stats is not None:
        benchmark.extra_info["overhead_ms"] = benchmark.stats.stats.median * 1e3


@pytest.mark.parametrize("blocked", [False, True], ids=["one_batch", "blocked"])
@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
@pytest.mark.parametrize("n", (10_000, 1_000_000))
def test_trace_cache_blocking(benchmark, n, backend_name, blocked):
    """One batch against cache-sized blocks (optics.trace.methods.blocked), Cooke and no gradients.

    Small batches fit one block (the two cases then trace alike); the 1e6-ray
    pair shows the blocking's gain.
    """
    if backend_name == "torch":
        pytest.importorskip("torch")
    with be.using(backend_name):
        optic = load("cooke_triplet")
        px, py = _pupil(n)

        def run():
            with be.no_grad():
                method = "blocked" if blocked else "eager"
                return trace_rays(optic, (0.0, 0.7), (px, py), method=method)

        benchmark.pedantic(run, rounds=5, warmup_rounds=1)
    _record_rate(benchmark, n, optic)
    benchmark.extra_info["ray_block"] = accel.ray_block_size(px) if blocked else None
