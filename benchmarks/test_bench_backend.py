"""Benchmarks of the array layer's two performance targets.

- ``python -c "import optics"`` takes at most 0.2 s with NumPy only (torch is
  never imported); the slowest imports from ``python -X importtime`` are kept
  in ``extra_info``.
- A ``be`` elementwise call on a 3-element array costs at most 2 µs more than
  the raw NumPy / torch call; the overhead is kept in ``extra_info``.

These are measurements, not tests: nothing here fails on a slow machine.
Run with ``pytest benchmarks/ --benchmark-only`` (or ``tox -e bench``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import timeit

import numpy as np
import pytest

from optics import backend as be

IMPORT_TARGET_S = 0.2
OVERHEAD_TARGET_US = 2.0
CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("OPTICS_")}


def _python(*args):
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=CLEAN_ENV, check=True
    )


def slowest_imports(stderr, count=10):
    """The ``count`` largest cumulative times of ``-X importtime`` output, as (µs, module)."""
    rows = []
    for line in stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].strip()))
    return sorted(rows, reverse=True)[:count]


def test_import_optics_wall_time(benchmark, report):
    benchmark.pedantic(_python, args=("-c", "import optics"), rounds=10, warmup_rounds=1)
    profile = _python("-X", "importtime", "-c", "import optics").stderr
    modules = [name for _, name in slowest_imports(profile, count=10**6)]
    assert not any(m.split(".")[0] == "torch" for m in modules), "import optics imported torch"
    numpy_only = min(_wall(("-c", "import numpy")) for _ in range(5))
    optics_s = min(_wall(("-c", "import optics")) for _ in range(5))
    benchmark.extra_info.update(
        target_s=IMPORT_TARGET_S,
        best_s=optics_s,
        numpy_import_best_s=numpy_only,
        importtime_top_us=[f"{us} {name}" for us, name in slowest_imports(profile)],
    )
    report(
        f"import optics: {optics_s:.3f} s (numpy alone {numpy_only:.3f} s; "
        f"target {IMPORT_TARGET_S} s)"
    )


def _wall(args):
    start = time.perf_counter()
    _python(*args)
    return time.perf_counter() - start


def best_microseconds(call, number=20000, repeat=7):
    """Fastest mean time of one ``call()`` over ``repeat`` runs of ``number`` calls, in µs."""
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1e6


def _numpy_case(op):
    x, y = np.array([1.0, 2.0, 3.0]), np.array([3.0, 0.5, -1.0])
    cond = x > 1.5
    return {
        "sqrt": (lambda: be.sqrt(x), lambda: np.sqrt(x)),
        "where": (lambda: be.where(cond, x, y), lambda: np.where(cond, x, y)),
        "where-scalar": (lambda: be.where(cond, x, 0.0), lambda: np.where(cond, x, 0.0)),
        "hypot": (lambda: be.hypot(x, y), lambda: np.hypot(x, y)),
        "sum": (lambda: be.sum(x), lambda: np.sum(x)),
    }[op]


def _torch_case(op):
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    y = torch.tensor([3.0, 0.5, -1.0], dtype=torch.float64)
    cond = x > 1.5
    return {
        "sqrt": (lambda: be.sqrt(x), lambda: torch.sqrt(x)),
        "where": (lambda: be.where(cond, x, y), lambda: torch.where(cond, x, y)),
        "where-scalar": (lambda: be.where(cond, x, 0.0), lambda: torch.where(cond, x, 0.0)),
        "hypot": (lambda: be.hypot(x, y), lambda: torch.hypot(x, y)),
        "sum": (lambda: be.sum(x), lambda: torch.sum(x)),
    }[op]


@pytest.mark.parametrize("library", ["numpy", "torch"])
@pytest.mark.parametrize("op", ["sqrt", "where", "where-scalar", "hypot", "sum"])
def test_per_call_overhead(benchmark, report, library, op):
    be_call, raw_call = (_numpy_case if library == "numpy" else _torch_case)(op)
    benchmark(be_call)
    # Interleave the two timings so that machine noise hits both alike.
    be_us = min(best_microseconds(be_call) for _ in range(3))
    raw_us = min(best_microseconds(raw_call) for _ in range(3))
    overhead = be_us - raw_us
    benchmark.extra_info.update(
        be_us=round(be_us, 3),
        raw_us=round(raw_us, 3),
        overhead_us=round(overhead, 3),
        target_us=OVERHEAD_TARGET_US,
    )
    report(
        f"be.{op:<12} {library:<5}: {be_us:6.3f} µs vs raw {raw_us:6.3f} µs -> overhead "
        f"{overhead:6.3f} µs (target {OVERHEAD_TARGET_US} µs)"
    )
