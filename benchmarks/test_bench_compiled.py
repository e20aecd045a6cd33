"""The compiled trace (``trace_rays(..., method="compiled")``, issue 7), next to eager NumPy.

For the Cooke triplet and its Chebyshev variant (``_systems.py``): ray·surfaces
per second of the compiled Torch trace without grad and with forward+backward
(six radii requiring grad, the spot loss), the one-off compile time, and the
ratio to our eager NumPy rate timed alternately in the same test.

Target (issue 7): at 1e6 rays at least 3x our NumPy eager rate, above 45 M
ray·surfaces/s, with gradients through it.  Every (system, size, mode)
compiles once (tens of seconds on 2 cores).
Run: ``python -m pytest benchmarks/test_bench_compiled.py --benchmark-only``.
"""

from __future__ import annotations

import statistics
import time

import pytest
from _cases import trace_case

TARGET_M = 45.0
TARGET_RATIO = 3.0
CASES = [
    ("cooke", 10_000, "compiled_no_grad"),
    ("cooke", 10_000, "compiled_fb"),
    ("cooke", 1_000_000, "compiled_no_grad"),
    ("cooke", 1_000_000, "compiled_fb"),
    ("cooke_chebyshev", 1_000_000, "compiled_no_grad"),
    ("cooke_chebyshev", 1_000_000, "compiled_fb"),
]


def _seconds(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


@pytest.mark.parametrize(("system", "n", "mode"), CASES)
def test_compiled_trace(benchmark, report, system, n, mode):
    pytest.importorskip("torch")
    work, run = trace_case(system, n, mode)
    _, eager = trace_case(system, n, "numpy")
    compile_s = _seconds(run)
    benchmark.pedantic(run, rounds=5, warmup_rounds=1)
    # Alternate the two so that load on the machine hits both alike.
    pairs = [(_seconds(run), _seconds(eager)) for _ in range(3)]
    compiled_m = work / statistics.median(p[0] for p in pairs) / 1e6
    numpy_m = work / statistics.median(p[1] for p in pairs) / 1e6
    benchmark.extra_info.update(
        M_ray_surfaces_per_s=round(work / benchmark.stats.stats.median / 1e6, 2),
        interleaved_M_ray_surfaces_per_s=round(compiled_m, 2),
        numpy_eager_M_ray_surfaces_per_s=round(numpy_m, 2),
        ratio_to_numpy=round(compiled_m / numpy_m, 2),
        first_call_s=round(compile_s, 1),
        target_M=TARGET_M,
        target_ratio=TARGET_RATIO,
    )
    report(
        f"compiled {mode} {system} n={n:.0e}: {compiled_m:.1f} M ray·surf/s, "
        f"{compiled_m / numpy_m:.1f}x our NumPy ({numpy_m:.1f} M); first call {compile_s:.0f} s "
        f"(target > {TARGET_M:.0f} M and {TARGET_RATIO:g}x at 1e6)"
    )
