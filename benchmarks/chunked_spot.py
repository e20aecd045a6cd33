"""Chunked tracing: peak memory of a huge spot diagram, and throughput against one batch.

Two measurements of the Cooke triplet (3 fields × 3 wavelengths, hexapolar pupil):

- ``--rss``: a spot diagram of about ``--rays`` rays (1e8 for the issue's
  target) streamed with ``chunk_rays``, run in a fresh subprocess whose peak
  resident memory (``ru_maxrss``) is reported;
- default: the rate of ``trace_bundle`` in one batch against the same rays
  streamed by ``iter_bundle(method=Streamed(...))``, and of ``spot_diagram`` both
  ways, timed alternately (medians of ``--repeats``, first repeat dropped).

Usage::

    python benchmarks/chunked_spot.py --rays 1e6 --chunk 262144
    python benchmarks/chunked_spot.py --rss --rays 1e8
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import subprocess
import sys
import time


def _rings_for(rays, combinations):
    """Hexapolar rings whose pattern, times ``combinations``, is closest to ``rays``."""
    per = rays / combinations
    return max(1, round((-3 + math.sqrt(9 + 12 * (per - 1))) / 6))


def child(rays, chunk):
    """Run one chunked spot diagram; print seconds, rays and peak RSS as JSON."""
    import optics
    from optics.analysis.spot import spot_diagram
    from optics.sampling import hexapolar_count
    from optics.trace import Streamed

    optic = optics.load("cooke_triplet")
    combinations = len(optic.fields.normalized()) * len(optic.wavelengths.values)
    rings = _rings_for(rays, combinations)
    start = time.perf_counter()
    results = spot_diagram(optic, pupil=rings, method=Streamed(chunk))
    seconds = time.perf_counter() - start
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "rays": hexapolar_count(rings) * combinations,
                "chunk_rays": chunk,
                "seconds": seconds,
                "peak_rss_mib": peak_kib / 1024,
                "rms_radius_centroid_mm": [r.as_dict()["rms_radius_centroid"] for r in results],
            }
        )
    )


def rss(rays, chunk):
    """Peak RSS of a chunked spot diagram in a fresh process."""
    command = [sys.executable, __file__, "--child", "--rays", str(rays), "--chunk", str(chunk)]
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def throughput(rays, chunk, repeats):
    """Rates (rays per second) of one batch against chunks, timed alternately."""
    import optics
    from optics.analysis.spot import spot_diagram
    from optics.trace import Streamed, iter_bundle, trace_bundle

    optic = optics.load("cooke_triplet")
    combinations = len(optic.fields.normalized()) * len(optic.wavelengths.values)
    rings = _rings_for(rays, combinations)
    cases = {
        "trace_bundle, one batch": lambda: trace_bundle(optic, pupil=rings),
        "iter_bundle, chunked": lambda: [
            None for _ in iter_bundle(optic, pupil=rings, method=Streamed(chunk, progress=False))
        ],
        "spot_diagram, one batch": lambda: spot_diagram(optic, pupil=rings),
        "spot_diagram, chunked": lambda: spot_diagram(
            optic, pupil=rings, method=Streamed(chunk, progress=False)
        ),
    }
    times = {name: [] for name in cases}
    for repeat in range(repeats + 1):
        for name, case in cases.items():
            start = time.perf_counter()
            case()
            if repeat:  # the first repeat warms up
                times[name].append(time.perf_counter() - start)
    n = (1 + 3 * rings * (rings + 1)) * combinations
    return {name: n / statistics.median(t) for name, t in times.items()}, n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rays", type=float, default=1e6, help="rays in total (default 1e6)")
    parser.add_argument("--chunk", type=int, default=1 << 18, help="chunk_rays (default 2^18)")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats (default 5)")
    parser.add_argument("--rss", action="store_true", help="peak RSS of a chunked spot diagram")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    rays = int(args.rays)
    if args.child:
        child(rays, args.chunk)
    elif args.rss:
        result = rss(rays, args.chunk)
        print(
            f"spot diagram, {result['rays']:.3g} rays in chunks of {args.chunk}: "
            f"{result['seconds']:.1f} s, peak RSS {result['peak_rss_mib']:.0f} MiB"
        )
    else:
        rates, n = throughput(rays, args.chunk, args.repeats)
        print(f"Cooke triplet, {n:.3g} rays, chunk_rays={args.chunk}: rays per second")
        for name, rate in rates.items():
            print(f"  {name:<26} {rate / 1e6:7.2f} M")
        print(
            "  chunked / one batch: trace "
            f"{rates['iter_bundle, chunked'] / rates['trace_bundle, one batch']:.2f}, spot "
            f"{rates['spot_diagram, chunked'] / rates['spot_diagram, one batch']:.2f}"
        )


if __name__ == "__main__":
    main()
