"""Chunked tracing (issue 17): trace_bundle in pupil slices against one batch.

Records rays per second of ``iter_bundle(method=Streamed(...))`` and of one
``trace_bundle`` batch (target: the chunked rate within 10 % of one batch at
1e6 rays), and of ``spot_diagram`` both ways.  The peak memory of a 1e8-ray
spot diagram is measured by ``python benchmarks/chunked_spot.py --rss --rays 1e8``
(a fresh process; minutes).  A measurement, not a test.
"""

from __future__ import annotations

import pytest
from chunked_spot import _rings_for

import optics
from optics.analysis.spot import spot_diagram
from optics.trace import Streamed, iter_bundle, trace_bundle

CHUNK = 1 << 18


def _optic_and_rings(n):
    optic = optics.load("cooke_triplet")
    combinations = len(optic.fields.normalized()) * len(optic.wavelengths.values)
    return optic, _rings_for(n, combinations)


@pytest.mark.parametrize("n", [10_000, 1_000_000])
@pytest.mark.parametrize("way", ["one batch", "chunked"])
def test_trace_bundle_rate(benchmark, report, n, way):
    optic, rings = _optic_and_rings(n)
    chunk = max(n // 4, 1000)

    def run():
        if way == "chunked":
            for _ in iter_bundle(optic, pupil=rings, method=Streamed(chunk, progress=False)):
                pass
        else:
            trace_bundle(optic, pupil=rings)

    benchmark.pedantic(run, rounds=3, warmup_rounds=1)
    rate = n / benchmark.stats.stats.median
    benchmark.extra_info["M_rays_per_s"] = round(rate / 1e6, 3)
    report(f"trace_bundle {way}, n={n:.0e} (chunks of {chunk}): {rate / 1e6:.2f} M rays/s")


@pytest.mark.parametrize("n", [10_000, 1_000_000])
def test_chunked_spot_diagram_rate(benchmark, report, n):
    optic, rings = _optic_and_rings(n)
    chunk = max(n // 4, 1000)
    benchmark.pedantic(
        spot_diagram,
        (optic,),
        {"pupil": rings, "method": Streamed(chunk, progress=False)},
        rounds=3,
        warmup_rounds=1,
    )
    rate = n / benchmark.stats.stats.median
    benchmark.extra_info["M_rays_per_s"] = round(rate / 1e6, 3)
    report(f"spot_diagram chunked, n={n:.0e}: {rate / 1e6:.2f} M rays/s")
