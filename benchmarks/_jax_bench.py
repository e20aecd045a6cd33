"""The jitted JAX trace next to compiled Torch and eager NumPy: one measured row.

Shared by ``test_bench_jax.py`` (pytest-benchmark) and ``jax_table.py`` (the
table of docs/performance.md).  The three are timed alternately (medians of
``rounds``), so load on the shared machine hits all alike; ratios come from
one run.
"""

from __future__ import annotations

import statistics
import time

from _cases import spot_loss, trace_case
from _systems import FIELD, build, pupil, ray_surfaces

from optics import backend as be
from optics.trace import prepare, trace_rays

TARGET_RATIO = 3.0


def jax_case(system, n, backward):
    """(work, callable) of the jitted JAX trace, forward only or forward+backward.

    Forward only traces a prepared system (``optics.prepare``, built once and
    reused by every call, as a user tracing one lens many times would);
    forward+backward is ``jax.grad`` of the spot loss with respect to the six
    lens radii through ``trace_rays(..., method="compiled")``, which prepares
    the changed lens inside each call.
    """
    import jax

    with be.using("jax", precision="float64", device="cpu"):
        optic = build(system)
        px, py = (be.asarray(a) for a in pupil(n))
        radii = be.asarray([s.geometry.radius for s in optic.surfaces[1:-1]])
        prepared = prepare(optic)

    def loss(values):
        for surface, value in zip(optic.surfaces[1:-1], values):
            surface.geometry.radius = value
        return spot_loss(trace_rays(optic, FIELD, (px, py), method="compiled"))

    gradient = jax.grad(lambda values: loss([values[i] for i in range(values.shape[0])]))

    def run():
        with be.using("jax", precision="float64", device="cpu"):
            if backward:
                jax.block_until_ready(gradient(radii))
            else:
                with be.no_grad():
                    rays = trace_rays(prepared, FIELD, (px, py), method="compiled")
                jax.block_until_ready(rays.x)

    return ray_surfaces(optic, n), run


def seconds(run):
    """Wall time of one call."""
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def measure(system, n, backward, rounds=3):
    """One row: M ray·surfaces/s of jax jit, torch compiled and numpy eager, and first calls.

    NumPy has no backward pass: with ``backward`` its column is still the
    forward-only trace (the issue's comparison).
    """
    work, jitted = jax_case(system, n, backward)
    _, torch_compiled = trace_case(system, n, "compiled_fb" if backward else "compiled_no_grad")
    _, numpy_eager = trace_case(system, n, "numpy")
    first = {"jax": seconds(jitted), "torch": seconds(torch_compiled)}  # both compile here
    seconds(jitted), seconds(torch_compiled), seconds(numpy_eager)  # warm-up
    runs = [(seconds(jitted), seconds(torch_compiled), seconds(numpy_eager)) for _ in range(rounds)]
    rates = [work / statistics.median(r[k] for r in runs) / 1e6 for k in range(3)]
    return {
        "system": system,
        "mode": "fb" if backward else "no_grad",
        "n": n,
        "jax": rates[0],
        "torch": rates[1],
        "numpy": rates[2],
        "first": first,
    }
