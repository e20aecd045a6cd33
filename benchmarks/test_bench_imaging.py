"""Image simulation: a 1024 x 1024 RGB scene, a 9 x 9 PSF grid, 3 wavelengths per channel.

Times ``simulate_image`` of the Cooke triplet (3.5 µm pixels, 32 pupil samples
per PSF, 33 x 33 kernels) on NumPy and Torch (forward), and on Torch forward +
backward (the gradient of the image sum with respect to the first radius).
``extra_info`` holds the peak traced-Python memory (tracemalloc: NumPy's
arrays; torch's CPU allocator is not traced, so docs/imaging.md quotes peak
RSS from separate processes).  Quick mode (``OPTICS_BENCH_QUICK=1``) runs a
64 x 64 scene with a 3 x 3 grid and one wavelength per channel.  Run with
``OMP_NUM_THREADS=1`` on a shared machine (see test_bench_wavefront.py).

``test_as_deeplens`` times the case of the DeepLens comparison
(benchmarks/_deeplens_imaging.py renders it with deeplens-core 2.5.6): the
scene at 20 m (DeepLens's default object depth) and no relative illumination
(DeepLens's PSF-map rendering applies none).  Measured side by side on this
shared two-core machine (OMP_NUM_THREADS=1, load average 10-19, each case in
its own process, alternating; docs/imaging.md has the whole table):

| 1024 x 1024, 9 x 9 grid, 9 wavelengths (medians) | wall s | CPU s | peak RSS |
|---|---|---|---|
| optics NumPy forward | 31.6 | 5.1 | 0.80 GB |
| optics Torch forward | 37.2 | 5.6 | 1.41 GB |
| DeepLens forward (float32, 33 x 33 kernels, 8192 rays per PSF) | 431 | 68.5 | 3.49 GB |
| optics Torch forward + backward | 157 | 19.0 | 4.19 GB |
| DeepLens forward + backward | stopped at 11.6 GB resident after 9.5 min | | |
| the same on a 3 x 3 grid: optics Torch / DeepLens | 64.6 / 198 | 27.5 / 68.9 | 3.91 / 3.21 GB |

Run: ``python -m pytest benchmarks/test_bench_imaging.py --benchmark-only``.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from conftest import QUICK

import optics
from optics import backend as be
from optics.imaging import Scene, Sensor, simulate_image

SIZE, GRID, PER_CHANNEL = (64, 3, 1) if QUICK else (1024, 9, 3)
PITCH = 0.0035


def _scene():
    try:
        from skimage import data

        base = (data.astronaut() / 255.0) ** 2.2
    except ImportError:
        base = np.random.default_rng(0).random((512, 512, 3))
    reps = -(-SIZE // base.shape[0])
    return np.kron(base, np.ones((reps, reps, 1)))[:SIZE, :SIZE]


SCENE = _scene()


def _simulate(gradient, deeplens=False):
    lens = optics.load("cooke_triplet")
    if gradient:
        lens.surfaces[1].geometry.radius = be.parameter(lens.surfaces[1].geometry.radius)
    scene = be.asarray(SCENE)
    out = simulate_image(
        lens,
        Scene(scene, object_distance=20000.0) if deeplens else scene,
        sensor=Sensor(pitch=PITCH),
        psf_grid_size=GRID,
        wavelengths_per_channel=PER_CHANNEL,
        illumination=not deeplens,
    )
    if gradient:
        be.sum(out.image).backward()
        return lens.surfaces[1].geometry.radius.grad
    return out.image


@pytest.mark.parametrize("backend, gradient", [("numpy", False), ("torch", False), ("torch", True)])
def test_simulate_1024_rgb(benchmark, backend, gradient):
    if backend not in be.available_backends():
        pytest.skip(f"{backend} is not installed")
    with be.using(backend):
        tracemalloc.start()
        result = _simulate(gradient)
        benchmark.extra_info["peak_traced_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        assert np.all(np.isfinite(be.to_numpy(result)))
        benchmark.extra_info.update(size=SIZE, grid=GRID, wavelengths=3 * PER_CHANNEL)
        benchmark.pedantic(_simulate, args=(gradient,), rounds=1 if QUICK else 2, iterations=1)


@pytest.mark.parametrize("backend, gradient", [("numpy", False), ("torch", False), ("torch", True)])
def test_as_deeplens(benchmark, backend, gradient):
    if backend not in be.available_backends():
        pytest.skip(f"{backend} is not installed")
    with be.using(backend):
        result = benchmark.pedantic(
            _simulate, args=(gradient, True), rounds=1 if QUICK else 2, iterations=1
        )
        assert np.all(np.isfinite(be.to_numpy(result)))
