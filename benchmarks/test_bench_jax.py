"""The jitted JAX trace (issue 16) next to the compiled Torch trace and eager NumPy, in one run.

For the Cooke triplet and its Chebyshev variant (``_systems.py``) at 1e6 rays
(and a quick 1e4): ray·surfaces per second without gradients and with
forward+backward (the spot loss of ``_cases.spot_loss``, differentiated with
respect to the six lens radii), for

- ``jax_jit``: ``trace_rays(..., method="compiled")`` on JAX (``jax.jit`` of the
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

import pytest
from _jax_bench import TARGET_RATIO, jax_case, measure

SIZES = [pytest.param(10_000, id="1e4"), pytest.param(1_000_000, id="1e6")]


@pytest.mark.parametrize("backward", [False, True], ids=["no_grad", "fb"])
@pytest.mark.parametrize("system", ["cooke", "cooke_chebyshev"])
@pytest.mark.parametrize("n", SIZES)
def test_jitted_jax_trace_against_compiled_torch_and_numpy(benchmark, report, n, system, backward):
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    row = measure(system, n, backward)
    _, jitted = jax_case(system, n, backward)
    benchmark.pedantic(jitted, rounds=3, warmup_rounds=1)
    jax_m, torch_m, numpy_m = row["jax"], row["torch"], row["numpy"]
    benchmark.extra_info.update(
        jax_M_ray_surfaces_per_s=round(jax_m, 2),
        torch_compiled_M_ray_surfaces_per_s=round(torch_m, 2),
        numpy_eager_M_ray_surfaces_per_s=round(numpy_m, 2),
        jax_to_numpy=round(jax_m / numpy_m, 2),
        jax_to_torch=round(jax_m / torch_m, 2),
        first_call_s={k: round(v, 1) for k, v in row["first"].items()},
        target_ratio=TARGET_RATIO,
    )
    first = row["first"]
    report(
        f"jax {row['mode']} {system} n={n:.0e}: jax jit {jax_m:.1f}, torch compiled "
        f"{torch_m:.1f}, numpy eager {numpy_m:.1f} M ray·surf/s; jax/numpy "
        f"{jax_m / numpy_m:.2f}x, jax/torch {jax_m / torch_m:.2f}x; first calls jax "
        f"{first['jax']:.0f} s, torch {first['torch']:.0f} s (target jax >= "
        f"{TARGET_RATIO:g}x numpy at 1e6)"
    )
