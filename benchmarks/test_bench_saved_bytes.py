"""Bytes autograd keeps for the backward pass, per ray·surface (issues 4 and 7).

One grad-recording trace of the Cooke triplet and of its Chebyshev variant
(six radii requiring grad, the spot loss), eager and compiled, counted with
``saved_tensors_hooks``: ``packed`` counts every tensor each time a node saves
it, ``distinct`` each storage once (the memory the graph keeps alive until
``backward``; the number compared with Optiland in compare_optiland.py).
For Newton solves forced to 10/100/1000 iterations see test_bench_newton.py.

Target: at most 170 bytes per ray·surface (Optiland 0.6.3: about 414 on the
Cooke triplet, 457-482 on the Chebyshev variant).  A measurement, not a test.
Run: ``python -m pytest benchmarks/test_bench_saved_bytes.py --benchmark-only``.
"""

from __future__ import annotations

import pytest
from _cases import saved_bytes

TARGET_BYTES = 170.0
RAYS = 10_000


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "compiled"])
@pytest.mark.parametrize("system", ["cooke", "cooke_chebyshev"])
def test_saved_bytes_per_ray_surface(benchmark, report, system, compiled):
    pytest.importorskip("torch")
    if compiled:
        saved_bytes(system, RAYS, compiled=True)  # compile outside the measurement
    packed, distinct = benchmark.pedantic(saved_bytes, (system, RAYS, compiled), rounds=1)
    benchmark.extra_info.update(
        saved_bytes_per_ray_surface=round(packed, 1),
        distinct_saved_bytes_per_ray_surface=round(distinct, 1),
        target_bytes=TARGET_BYTES,
    )
    kind = "compiled" if compiled else "eager"
    report(
        f"saved autograd bytes, {system} {kind}: {distinct:.0f} B/ray·surf distinct "
        f"({packed:.0f} packed; target {TARGET_BYTES:.0f})"
    )
