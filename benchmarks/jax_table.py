"""Print the jitted-JAX table of docs/performance.md (one run, all rows).

Run from the repository root::

    PYTHONPATH=$PWD:$PWD/benchmarks python benchmarks/jax_table.py [n]

n: rays per trace (default 1e6).  Each row times jax jit, torch compiled and
numpy eager alternately (``_jax_bench.measure``); first calls include
compilation.
"""

from __future__ import annotations

import os
import sys

from _jax_bench import TARGET_RATIO, measure
from _systems import SYSTEMS


def main(n):
    load = os.getloadavg()[0]
    print(f"n = {n:.0e} rays, float64, load average at start {load:.1f}\n")
    print("| system | mode | jax jit | torch compiled | numpy eager | jax / numpy | jax / torch |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    firsts = []
    for system in SYSTEMS:
        for backward in (False, True):
            row = measure(system, n, backward)
            mode = "forward+backward" if backward else "no grad"
            numpy = f"{row['numpy']:.1f}" + (" (forward only)" if backward else "")
            print(
                f"| {system} | {mode} | {row['jax']:.1f} | {row['torch']:.1f} | {numpy} | "
                f"{row['jax'] / row['numpy']:.2f}x | {row['jax'] / row['torch']:.2f}x |",
                flush=True,
            )
            firsts.append(
                f"{system} {mode}: jax {row['first']['jax']:.1f} s, "
                f"torch {row['first']['torch']:.1f} s"
            )
    print(
        f"\nM ray·surfaces/s, medians of three alternated runs; target jax >= "
        f"{TARGET_RATIO:g}x numpy.  First calls (compilation included):"
    )
    for line in firsts:
        print(f"- {line}")
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main(int(float(sys.argv[1])) if len(sys.argv) > 1 else 1_000_000)
