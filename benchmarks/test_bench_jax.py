"""The jitted JAX trace (issue 16) next to the compiled Torch trace and eager NumPy, in one run.

For the Cooke triplet and its Chebyshev variant (``_systems.py``) at 1e6 rays
(and a quick 1e4): ray·surfaces per second without gradients and with
forward+backward (the spot loss of ``_cases.spot_loss``, differentiated with
respect to the six lens radii), for

- ``jax_jit``: ``trace_rays(..., compiled=True)`` on JAX (``jax.jit`` of the
  launch and every surface; forward+backward by ``jax.grad`` through it);
- ``torch_compiled``: the same on Torch (``torch.compile``, Inductor);
- ``numpy``: our eager NumPy trace (no gradients).

The three are timed alternately in the same test (medians of three), so load
on the machine hits all alike; the ratios are from one run.  Target (issue
16): the jitted JAX trace at least 3x our eager NumPy rate at 1e6 rays.
Run: ``python -m pytest benchmarks/test_bench_jax.py --benchmark-only -s``
(``-k 1e4`` for the quick size).
"""

from __future__ import annotations

import statistics
import time

import pytest
from _cases import spot_loss, trace_case
from _systems import FIELD, build, pupil, ray_surfaces

from optics import backend as be
from optics.trace import trace_rays

TARGET_RATIO = 3.0
SIZES = [pytest.param(10_000, id="1e4"), pytest.param(1_000_000, id="1e6")]


def jax_case(system, n, backward):
    """(work, callable) of the jitted JAX trace, forward only or forward+backward."""
    jax = pytest.importorskip("jax")
    with be.using("jax", precision="float64", device="cpu"):
        optic = build(system)
        px, py = (be.asarray(a) for a in pupil(n))
        radii = be.asarray([s.geometry.radius for s in optic.surfaces[1:-1]])

    def loss(values):
        for surface, value in zip(optic.surfaces[1:-1], values):
            surface.geometry.radius = value
        return spot_loss(trace_rays(optic, *FIELD, px, py, compiled=True))

    gradient = jax.grad(lambda values: loss([values[i] for i in range(values.shape[0])]))

    def run():
        with be.using("jax", precision="float64", device="cpu"):
            if backward:
                jax.block_until_ready(gradient(radii))
            else:
                with be.no_grad():
                    rays = trace_rays(optic, *FIELD, px, py, compiled=True)
                jax.block_until_ready(rays.x)

    return ray_surfaces(optic, n), run


def _seconds(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


@pytest.mark.parametrize("backward", [False, True], ids=["no_grad", "fb"])
@pytest.mark.parametrize("system", ["cooke", "cooke_chebyshev"])
@pytest.mark.parametrize("n", SIZES)
def test_jitted_jax_trace_against_compiled_torch_and_numpy(benchmark, report, n, system, backward):
    pytest.importorskip("torch")
    work, jitted = jax_case(system, n, backward)
    _, torch_compiled = trace_case(system, n, "compiled_fb" if backward else "compiled_no_grad")
    _, numpy_eager = trace_case(system, n, "numpy")
    first = {"jax": _seconds(jitted), "torch": _seconds(torch_compiled)}  # both compile here
    benchmark.pedantic(jitted, rounds=3, warmup_rounds=1)
    runs = [(_seconds(jitted), _seconds(torch_compiled), _seconds(numpy_eager)) for _ in range(3)]
    jax_m, torch_m, numpy_m = (work / statistics.median(r[k] for r in runs) / 1e6 for k in range(3))
    mode = "fb" if backward else "no_grad"
    benchmark.extra_info.update(
        jax_M_ray_surfaces_per_s=round(jax_m, 2),
        torch_compiled_M_ray_surfaces_per_s=round(torch_m, 2),
        numpy_eager_M_ray_surfaces_per_s=round(numpy_m, 2),
        jax_to_numpy=round(jax_m / numpy_m, 2),
        jax_to_torch=round(jax_m / torch_m, 2),
        first_call_s={k: round(v, 1) for k, v in first.items()},
        target_ratio=TARGET_RATIO,
    )
    report(
        f"jax {mode} {system} n={n:.0e}: jax jit {jax_m:.1f}, torch compiled {torch_m:.1f}, "
        f"numpy eager {numpy_m:.1f} M ray·surf/s; jax/numpy {jax_m / numpy_m:.2f}x, "
        f"jax/torch {jax_m / torch_m:.2f}x; first calls jax {first['jax']:.0f} s, "
        f"torch {first['torch']:.0f} s (target jax >= {TARGET_RATIO:g}x numpy at 1e6)"
    )
