"""``optics tolerance``: sensitivity analysis and Monte Carlo of a lens file's ``[tolerance]``."""

from __future__ import annotations

import math
import sys

from ..limits import MAX_WORKERS
from ._common import (
    UsageError,
    add_aiming_option,
    finite_float,
    json_number,
    load_lens,
    print_json,
    table,
    trials_option,
)
from ._guards import check_outputs, interrupt_on_signals

EXIT_INTERRUPTED = 130


def register(subparsers):
    parser = subparsers.add_parser(
        "tolerance",
        help="sensitivity analysis and Monte Carlo of a lens's [tolerance] section",
        description="Tolerance LENS with the [tolerance] section of its lens file "
        "(docs/tolerancing.md). --sensitivity: the criterion at -tol and +tol of every "
        "item with the compensators re-optimized, its first-order derivative with respect "
        "to every tolerance, sorted by worst change, and the RSS estimate. --monte-carlo N: "
        "N perturbed lenses, each with compensators re-optimized, run on Dask (an embedded "
        "cluster with one worker per core by default). With neither option: the sensitivity "
        "analysis, and the Monte Carlo when the section sets 'trials'.",
    )
    parser.add_argument("lens", help="lens file (.toml or .json) or built-in sample name")
    parser.add_argument("--sensitivity", action="store_true", help="run the sensitivity analysis")
    parser.add_argument(
        "--monte-carlo",
        type=trials_option,
        metavar="N",
        default=None,
        help="run N Monte Carlo trials (default: the section's 'trials')",
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="S",
        default=None,
        help="Monte Carlo seed: trial i uses SeedSequence(seed).spawn(N)[i] "
        "(default: the section's 'seed', else 0)",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers",
        type=int,
        metavar="K",
        default=None,
        help="Dask workers of the embedded local cluster (default: one per core); "
        "1 runs every trial in this process",
    )
    where.add_argument(
        "--scheduler",
        metavar="ADDR",
        default=None,
        help="run on an existing Dask cluster, e.g. tcp://10.0.0.5:8786",
    )
    parser.add_argument(
        "--threshold",
        type=finite_float,
        metavar="X",
        default=None,
        help="yield threshold: a trial passes when its criterion is <= X "
        "(default: the section's 'threshold')",
    )
    parser.add_argument(
        "--backend",
        choices=["numpy", "torch"],
        default=None,
        help="array backend of everything (default: derivatives on torch when installed, by "
        "one backward pass, and every other evaluation on numpy, the faster for these ray "
        "counts; numpy alone: finite-difference derivatives)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object {"criterion", "nominal", "sensitivity", "monte_carlo"}',
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="trials.csv",
        default=None,
        help="write every Monte Carlo trial (draws and criterion) as CSV, or Parquet for "
        ".parquet (needs pyarrow)",
    )
    parser.add_argument(
        "--plot",
        metavar="mc.png",
        default=None,
        help="write the Monte Carlo histogram and cumulative probability (needs matplotlib)",
    )
    add_aiming_option(parser)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def run(args):
    from .. import backend as be
    from ..tolerance import ToleranceModel, monte_carlo, read_section, sensitivity

    where = f"{args.lens}: [tolerance]"
    _check_output_options(args)  # before any trial runs, not after them all
    if args.scheduler is not None:
        from ..tolerance._runner import check_scheduler_address

        check_scheduler_address(args.scheduler)
    backend = args.backend or "numpy"
    autodiff = "torch" if "torch" in be.available_backends() else "numpy"
    derivative_backend = args.backend or autodiff
    with be.using(backend), interrupt_on_signals():
        optic = load_lens(args.lens, aiming=args.aiming)
        section = read_section(optic.tolerance, where)
        trials, seed, threshold = _monte_carlo_settings(args, section)
        model = ToleranceModel(optic, section, where)
        run_sensitivity = args.sensitivity or args.monte_carlo is None
        table_ = (
            sensitivity(model, derivative_backend=derivative_backend) if run_sensitivity else None
        )
        result = None
        if trials is not None:
            result = monte_carlo(
                model,
                trials,
                seed,
                workers=args.workers,
                scheduler=args.scheduler,
                threshold=threshold,
                progress=not args.quiet and not args.json and sys.stderr.isatty(),
                backend=backend,
            )
    if result is not None and result.interrupted:
        _write_files(args, result, section.criterion.label)
        written = [p for p in (args.output, args.plot) if p]
        print(
            f"optics tolerance: interrupted after {result.trials} of {result.requested} trials"
            + (f"; wrote them to {' and '.join(written)}" if written else ""),
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    report = {
        "criterion": section.criterion.label,
        "nominal": json_number(model.nominal_value()),
        "sensitivity": None if table_ is None else _sensitivity_rows(table_),
        "monte_carlo": None if result is None else _json_safe(result.as_dict()),
    }
    # The results go to stdout first: a file that fails to write (a full disk) loses no run.
    if args.json:
        print_json(report)
    else:
        _print_report(
            args, f"{backend}; derivatives on {derivative_backend}", model, table_, result
        )
    sys.stdout.flush()
    _write_files(args, result, section.criterion.label)
    written = [p for p in (args.output, args.plot) if p and result is not None]
    if written and not args.json:
        print(f"wrote {' and '.join(written)}")
    return 0


def _check_output_options(args):
    """Refuse -o and --plot before the work: format, folder, and never the lens file itself."""
    from ..plot import check_image_path
    from ..tolerance._results import PARQUET_SUFFIXES

    check_outputs(
        {"-o/--output": args.output, "--plot": args.plot},
        [args.lens],
    )  # -o: Parquet for .parquet/.pq, CSV for any other name
    if args.output and args.output.lower().endswith(PARQUET_SUFFIXES):
        try:
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            raise UsageError(
                f"-o/--output {args.output}: writing Parquet needs pyarrow (pip install "
                "pyarrow), or write a .csv file"
            ) from None
    if args.plot:
        check_image_path(args.plot)


def _monte_carlo_settings(args, section):
    """(trials or None, seed, threshold) from the options, else the section.

    --sensitivity alone: no Monte Carlo; --monte-carlo N: N trials; neither:
    the section's ``trials`` (None: no Monte Carlo).
    """
    if args.monte_carlo is not None and args.monte_carlo < 1:
        raise UsageError(
            f"--monte-carlo must be a positive number of trials, not {args.monte_carlo}"
        )
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be >= 1, not {args.workers}")
    if args.workers is not None and args.workers > MAX_WORKERS:
        raise UsageError(
            f"--workers {args.workers} is more than the limit of {MAX_WORKERS} (docs/cli.md, "
            "size budget)"
        )
    if args.threshold is not None and not math.isfinite(args.threshold):
        raise UsageError(f"--threshold must be a finite number, not {args.threshold}")
    if args.seed is not None and args.seed < 0:
        raise UsageError(f"--seed must be >= 0, not {args.seed}")
    if args.sensitivity and args.monte_carlo is None:
        trials = None  # --sensitivity alone: no Monte Carlo
    else:
        trials = args.monte_carlo if args.monte_carlo is not None else section.trials
    if trials is None and (args.output or args.plot):
        raise UsageError("-o/--output and --plot need a Monte Carlo: give --monte-carlo N")
    seed = args.seed if args.seed is not None else (section.seed or 0)
    threshold = args.threshold if args.threshold is not None else section.threshold
    return trials, seed, threshold


def _write_files(args, result, title):
    from ..tolerance import save_monte_carlo_figure, write_trials

    if result is None:
        return
    if args.output:
        write_trials(result, args.output)
    if args.plot:
        save_monte_carlo_figure(result, args.plot, title)


def _sensitivity_rows(result):
    return [
        {
            "item": row["item"],
            "minus": json_number(row["minus"]),
            "plus": json_number(row["plus"]),
            "derivative": json_number(row["derivative"]),
        }
        for row in result.rows
    ]


def _json_safe(value):
    if isinstance(value, float):
        return json_number(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def _print_report(args, backend, model, sens, result):
    criterion = model.section.criterion.label
    compensators = ", ".join(v.path for v in model.section.compensators) or "none"
    print(f"{args.lens}: criterion {criterion}, compensators {compensators} ({backend})")
    print(f"nominal {model.nominal_value():.6g}")
    if sens is not None:
        print()
        headers = ["item", "tolerance", "minus", "plus", "worst change", "derivative"]
        widths = dict(zip(model.labels, model.half_widths))
        rows = [
            (
                r["item"],
                float(widths[r["item"]]),
                r["minus"],
                r["plus"],
                r["worst"],
                r["derivative"],
            )
            for r in sens.rows
        ]
        print(table(headers, rows))
        print(f"RSS of worst increases {sens.rss:.6g}: estimated criterion {sens.estimate:.6g}")
    if result is not None:
        stats = result.statistics()
        print()
        print(f"Monte Carlo: {result.trials} trials, seed {result.seed}, {result.failed} failed")
        names = ["mean", "std", "p50", "p90", "p98"]
        print(table(names, [tuple(stats[n] for n in names)]))
        if stats["yield"] is not None:
            print(f"yield {100 * stats['yield']:.1f}% with criterion <= {result.threshold:g}")
