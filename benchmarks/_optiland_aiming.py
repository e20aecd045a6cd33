"""Optiland side of benchmarks/test_bench_aiming.py; runs under Optiland's interpreter.

It never imports optics.  Argument 1 is a JSON object: the prescription
(``surfaces``: radius, thickness, constant index or null, stop), ``epd``,
``fields`` (y angles, degrees), ``wavelength`` (µm), the normalized pupil
points ``px``, ``py``, ``repeats`` and ``backend``: "numpy" (the trace alone)
or "torch" (float64, Optiland's grad mode: the trace, a spot loss and its
backward pass).  It traces every field × pupil point in
one ``trace_generic`` call with Optiland's iterative real-ray aiming (no
cache, so every call aims afresh) and prints one JSON line: the best and
median seconds per call, and the image coordinates of the last call (to
check that both programs trace the same rays).
"""

from __future__ import annotations

import importlib.metadata
import json
import statistics
import sys
import time

import numpy as np
import optiland.backend as obe
from _optiland_common import build, configure


def build_aimed(spec):
    """The lens with Optiland's iterative real-ray aiming, no cache (every call aims afresh)."""
    lens = build(spec)
    lens.ray_tracer.set_aiming("iterative", max_iter=50, tol=spec["tol"], cache=False)
    return lens


def main():
    spec = json.loads(sys.argv[1])
    torch = spec["backend"] == "torch"
    if torch:
        configure("torch", grad=True)
    lens = build_aimed(spec)
    top = max(spec["fields"])
    hy = np.repeat([f / top for f in spec["fields"]], len(spec["px"]))
    px = np.tile(spec["px"], len(spec["fields"]))
    py = np.tile(spec["py"], len(spec["fields"]))
    hx = np.zeros_like(hy)
    if torch:
        hx, hy, px, py = (obe.array(v) for v in (hx, hy, px, py))
    times = []
    for _ in range(spec["repeats"]):
        start = time.perf_counter()
        rays = lens.trace_generic(hx, hy, px, py, spec["wavelength"])
        if torch:
            import torch as th

            valid = rays.i > 0
            loss = th.sum(th.where(valid, rays.x * rays.x + rays.y * rays.y, 0.0))
            loss.backward()
        times.append(time.perf_counter() - start)
    print(
        json.dumps(
            {
                "version": importlib.metadata.version("optiland"),
                "best": min(times),
                "median": statistics.median(times),
                "x": obe.to_numpy(rays.x).tolist(),
                "y": obe.to_numpy(rays.y).tolist(),
            }
        )
    )


if __name__ == "__main__":
    main()
