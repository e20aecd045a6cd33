"""optics next to Optiland 0.6.3 on the same systems, in one run: one table of ratios.

Usage (from the repository root)::

    python benchmarks/compare_optiland.py --optiland-python /tmp/optiland-venv/bin/python

Optiland is never a dependency of optics: it lives in its own virtual
environment (``pip install optiland==0.6.3`` there), and
``_optiland_helper.py`` runs under that interpreter as a subprocess that
builds the same lenses from the prescription sent to it.  Every case is
timed once per repeat on each side, alternately (optics, Optiland, the next
case ...), so that load on the machine hits both alike; the table shows the
medians.  The first repeat is a warm-up and is dropped; the compiled cases
compile before the first repeat and report the time that took.

Rates are ray·surfaces per second (rays × 7 surfaces: 6 lens surfaces and the
image) for the Cooke triplet and its Chebyshev variant (``_systems.py``).
The last rows time the analyses on the trace, wavefront/PSF/MTF and Monte
Carlo tolerancing, with the cases of their own benchmark files
(``_analysis_rows.py``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _analysis_rows  # noqa: E402
import _extra_rows  # noqa: E402
from _cases import saved_bytes, trace_case  # noqa: E402
from _optiland_driver import Helper, prescription  # noqa: E402
from _systems import FIELD, SYSTEMS, build, pupil  # noqa: E402

from optics import backend as be  # noqa: E402
from optics.optimize import Adam  # noqa: E402
from optics.trace import trace_rays  # noqa: E402

# (label, system, rays, our mode, Optiland case, target ratio)
THROUGHPUT = [
    ("NumPy, Cooke", "cooke", 10**6, "numpy", "numpy", 3.0),
    ("NumPy, Chebyshev", "cooke_chebyshev", 10**6, "numpy", "numpy", 3.0),
    ("Torch no-grad, Cooke", "cooke", 10**6, "torch_no_grad", "torch_nograd", 2.0),
    ("Torch no-grad, Chebyshev", "cooke_chebyshev", 10**6, "torch_no_grad", "torch_nograd", 2.0),
    ("Torch fwd+bwd, Cooke", "cooke", 10**5, "torch_fb", "torch_fb", 3.0),
    ("Torch fwd+bwd, Chebyshev", "cooke_chebyshev", 10**5, "torch_fb", "torch_fb", 3.0),
]
#: Modes repeated under a competing memory-bound job, with their targets (ratio to Optiland).
COMPETING_TARGETS = {"numpy": 2.5, "torch_no_grad": 2.0}
# (label, our mode, Optiland case): milliseconds per call for one ray (fixed overhead).
OVERHEAD = [
    ("Per call, 1 ray, NumPy", "numpy", "numpy"),
    ("Per call, 1 ray, Torch", "torch_no_grad", "torch_nograd"),
]
# (label, system, rays, mode): ours only, compared with our own NumPy eager rate.
COMPILED = [
    ("Compiled no-grad, Cooke", "cooke", 10**6, "compiled_no_grad"),
    ("Compiled fwd+bwd, Cooke", "cooke", 10**6, "compiled_fb"),
    ("Compiled no-grad, Chebyshev", "cooke_chebyshev", 10**6, "compiled_no_grad"),
    ("Compiled fwd+bwd, Chebyshev", "cooke_chebyshev", 10**6, "compiled_fb"),
]
SAVED_BYTES_RAYS = 10**5
SAVED_BYTES_TARGET = 170.0


class Optiland(Helper):
    """The trace helper (``_optiland_helper.py``) with both benchmark systems."""

    def __init__(self, python):
        setup = {"systems": {name: prescription(name) for name in SYSTEMS}, "field": FIELD}
        super().__init__("_optiland_helper.py", setup, python)


def _timed(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def same_system_check(optiland, system, n=1000):
    """Largest |Δ| (mm) between the image x, y of optics and Optiland for n rays."""
    reply = optiland.ask({"case": "image_xy", "system": system, "n": n})
    with be.using("numpy"):
        rays = trace_rays(build(system), FIELD, pupil(n))
    dx = max(abs(a - b) for a, b in zip(be.to_numpy(rays.x), reply["x"]))
    dy = max(abs(a - b) for a, b in zip(be.to_numpy(rays.y), reply["y"]))
    return max(dx, dy)


def measure(optiland, repeats, with_compiled):
    """Medians of every case; rates in M ray·surfaces/s."""
    ours, theirs, compile_seconds = {}, {}, {}
    cases = {label: trace_case(system, n, mode) for label, system, n, mode, _, _ in THROUGHPUT}
    overhead = {label: trace_case("cooke", 1, mode)[1] for label, mode, _ in OVERHEAD}
    compiled = {}
    if with_compiled:
        for label, system, n, mode in COMPILED:
            compiled[label] = trace_case(system, n, mode)
            compile_seconds[label] = _timed(compiled[label][1])
    times = {label: [] for label in [*cases, *compiled, *overhead]}
    their_times = {label: [] for label in [*cases, *overhead]}
    for repeat in range(repeats + 1):
        for label, system, n, _, case, _ in THROUGHPUT:
            times[label].append(_timed(cases[label][1]))
            their_times[label].append(_ask_seconds(optiland, case, system, n))
        for label, _, case in OVERHEAD:
            times[label].append(min(_timed(overhead[label]) for _ in range(10)))
            best = min(_ask_seconds(optiland, case, "cooke", 1) for _ in range(10))
            their_times[label].append(best)
        for label, (_, run) in compiled.items():
            times[label].append(_timed(run))
        print(f"  repeat {repeat} done{' (warm-up)' if repeat == 0 else ''}", file=sys.stderr)
    for label, (work, _) in {**cases, **compiled}.items():
        ours[label] = work / statistics.median(times[label][1:]) / 1e6
        if label in their_times:
            theirs[label] = work / statistics.median(their_times[label][1:]) / 1e6
    for label in overhead:  # milliseconds, best of 10 per repeat
        ours[label] = statistics.median(times[label][1:]) * 1e3
        theirs[label] = statistics.median(their_times[label][1:]) * 1e3
    return ours, theirs, compile_seconds


def measure_competing(optiland, repeats):
    """The NumPy and Torch no-grad rows again with a memory-bound job on the other core.

    Targets: NumPy 2.5×, Torch no-grad 2× (issue 23: Torch must hold its
    quiet-machine margin when the other core is busy).
    """
    rows = [row for row in THROUGHPUT if row[3] in COMPETING_TARGETS]
    cases = {label: trace_case(system, n, mode) for label, system, n, mode, _, _ in rows}
    times = {label: [] for label in cases}
    their_times = {label: [] for label in cases}
    with _extra_rows.competing_job():
        for _ in range(repeats + 1):
            for label, system, n, _, case, _ in rows:
                times[label].append(_timed(cases[label][1]))
                their_times[label].append(_ask_seconds(optiland, case, system, n))
    out = {}
    for label, _, _, mode, _, _ in rows:
        work = cases[label][0]
        ours = work / statistics.median(times[label][1:]) / 1e6
        theirs = work / statistics.median(their_times[label][1:]) / 1e6
        out[label] = (ours, theirs, COMPETING_TARGETS[mode])
    return out


def extra_table(competing, chunked, rss, reads, sync_free_reads=None):
    """The rows of issue 17 that are not in :func:`table`."""
    lines = []
    for label, (ours, theirs, target) in competing.items():
        lines.append(
            f"| {label}, competing memory-bound job | 1e+06 | {ours:.1f} M | {theirs:.1f} M | "
            f"{ours / theirs:.1f}× | ≥ {target:g}× |"
        )
    if chunked is not None:
        one, streamed, ratio = chunked
        lines.append(
            f"| Chunked trace_bundle (2^18 rays a chunk), Cooke, rays/s | 1e+06 | "
            f"{streamed / 1e6:.2f} M | (one batch {one / 1e6:.2f} M) | {ratio:.2f}× one batch | "
            "≥ 0.9× one batch |"
        )
    if rss is not None:
        peak, seconds, rays = rss
        lines.append(
            f"| Chunked spot diagram, Cooke, peak RSS ({seconds:.0f} s) | {rays:.0e} | "
            f"{peak:.0f} MiB | - | - | < 2 GB at 1e8 |"
        )
    for system, count in reads.items():
        lines.append(
            f"| Host reads in a Torch trace, {system} | 1e+03 | {count} | - | - | "
            "1 (after the trace) |"
        )
    for system, count in (sync_free_reads or {}).items():
        lines.append(
            f"| Host reads in a Torch trace, {system}, sync-free Newton (the GPU default) | "
            f"1e+03 | {count} | - | - | 1 (after the trace) |"
        )
    return lines


def _ask_seconds(optiland, case, system, n):
    return optiland.ask({"case": case, "system": system, "n": n})["seconds"]


def measure_adam(optiland_python, repeats):
    """(ours, Optiland) seconds per Adam step of benchmarks/test_bench_optimize.py's problem."""
    try:
        import test_bench_optimize as adam_bench
    except ImportError:  # the optimization benchmark is not there
        return None
    adam_bench.OPTILAND_PYTHON = optiland_python
    problem = adam_bench.build_problem()
    with be.using("torch"):
        optimizer = Adam(problem.start(), 1e-3)

        def step():
            optimizer.step(problem.merit_value)

        step()
        before = [_timed(step) for _ in range(20)]
        theirs = adam_bench.optiland_step_seconds(repeats)
        after = [_timed(step) for _ in range(20)]
    return statistics.median(before + after), theirs


def measure_saved_bytes(optiland, with_compiled):
    """Distinct saved autograd bytes per ray·surface: ours eager (and compiled), Optiland."""
    rows = {}
    for system in SYSTEMS:
        work = SAVED_BYTES_RAYS * 7
        reply = optiland.ask({"case": "saved_bytes", "system": system, "n": SAVED_BYTES_RAYS})
        eager = saved_bytes(system, SAVED_BYTES_RAYS)[1]
        fused = saved_bytes(system, SAVED_BYTES_RAYS, compiled=True)[1] if with_compiled else None
        rows[system] = (eager, fused, reply["bytes"] / work)
    return rows


def table(ours, theirs, compile_seconds, saved, adam, version):
    """The Markdown table of the run."""
    lines = [
        f"| case | rays | optics | Optiland {version} | ratio | target |",
        "|---|---|---|---|---|---|",
    ]
    for label, _, n, _, _, target in THROUGHPUT:
        goal = f"≥ {target:g}×" if target else "-"
        lines.append(
            f"| {label} | {n:.0e} | {ours[label]:.1f} M | {theirs[label]:.1f} M | "
            f"{ours[label] / theirs[label]:.1f}× | {goal} |"
        )
    for label, _, _ in OVERHEAD:
        goal = "< 2 ms" if "NumPy" in label else "-"
        lines.append(
            f"| {label} | 1 | {ours[label]:.2f} ms | {theirs[label]:.2f} ms | "
            f"{theirs[label] / ours[label]:.1f}× | {goal} |"
        )
    for label, system, n, _ in COMPILED:
        if label not in ours:
            continue
        base = ours["NumPy, Cooke" if system == "cooke" else "NumPy, Chebyshev"]
        lines.append(
            f"| {label} (first call {compile_seconds[label]:.0f} s) | {n:.0e} | "
            f"{ours[label]:.1f} M | (our NumPy {base:.1f} M) | "
            f"{ours[label] / base:.1f}× ours | ≥ 3× our NumPy, > 45 M |"
        )
    for system, (eager, fused, their_bytes) in saved.items():
        fused_text = f" (compiled {fused:.0f} B)" if fused is not None else ""
        lines.append(
            f"| Saved autograd bytes / ray·surface, {system} | {SAVED_BYTES_RAYS:.0e} | "
            f"{eager:.0f} B{fused_text} | {their_bytes:.0f} B | "
            f"{their_bytes / eager:.1f}× less | ≤ {SAVED_BYTES_TARGET:.0f} B |"
        )
    if adam is not None and adam[1] is not None:
        lines.append(
            f"| Adam step, Cooke, 6 radii, 3 x 127 rays | 381 | {adam[0] * 1e3:.1f} ms | "
            f"{adam[1] * 1e3:.1f} ms | {adam[1] / adam[0]:.1f}× | ≥ 3× |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--optiland-python",
        required=True,
        help="python of a virtual environment with optiland==0.6.3",
    )
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats per case (median)")
    parser.add_argument(
        "--no-compiled",
        action="store_true",
        help="skip the compiled cases (each compiles for tens of seconds)",
    )
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    parser.add_argument(
        "--no-competing-job",
        action="store_true",
        help="skip the NumPy and Torch no-grad rows under a competing memory-bound job",
    )
    parser.add_argument(
        "--no-analyses",
        action="store_true",
        help="skip the wavefront/PSF/MTF and Monte Carlo tolerancing rows",
    )
    parser.add_argument(
        "--rss-rays",
        type=float,
        default=1e7,
        help="rays of the chunked spot diagram whose peak RSS is reported (0: skip; "
        "1e8 takes several minutes)",
    )
    args = parser.parse_args(argv)
    optiland = Optiland(args.optiland_python)
    try:
        for system in SYSTEMS:
            gap = same_system_check(optiland, system)
            print(f"same system check, {system}: image x, y agree to {gap:.1e} mm", file=sys.stderr)
        ours, theirs, compile_seconds = measure(optiland, args.repeats, not args.no_compiled)
        saved = measure_saved_bytes(optiland, not args.no_compiled)
        competing = {} if args.no_competing_job else measure_competing(optiland, args.repeats)
    finally:
        optiland.close()
    adam = measure_adam(args.optiland_python, args.repeats)
    chunked = _extra_rows.chunked_rates(repeats=args.repeats)
    rss = _extra_rows.chunked_peak_rss(int(args.rss_rays)) if args.rss_rays else None
    reads = {system: _extra_rows.host_reads(system) for system in SYSTEMS}
    sync_free = {"cooke_chebyshev": _extra_rows.host_reads("cooke_chebyshev", sync_free=True)}
    wavefront = tolerance = None
    if not args.no_analyses:
        wavefront = _analysis_rows.wavefront_times(args.optiland_python, args.repeats)
        tolerance = _analysis_rows.tolerance_rates(args.optiland_python, args.repeats)
    print(table(ours, theirs, compile_seconds, saved, adam, optiland.version))
    print("\n".join(extra_table(competing, chunked, rss, reads, sync_free)))
    if wavefront is not None:
        print("\n".join(_analysis_rows.rows(wavefront, tolerance)))
    if args.json:
        numbers = {
            "optics": ours,
            "optiland": theirs,
            "compile_seconds": compile_seconds,
            "saved_bytes": saved,
            "adam_step_s": adam,
            "competing_job": competing,
            "chunked_rates": chunked,
            "chunked_peak_rss": rss,
            "host_reads": reads,
            "host_reads_sync_free": sync_free,
            "wavefront_s": None
            if wavefront is None
            else {f"{backend} {case}": pair for (backend, case), pair in wavefront.items()},
            "tolerance_trials_per_s": tolerance,
        }
        args.json.write_text(json.dumps(numbers, indent=2))


if __name__ == "__main__":
    main()
