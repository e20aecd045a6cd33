"""``optics optimize``: run a lens file's ``[optimize]`` section and write the optimized lens."""

from __future__ import annotations

import sys

from .. import backend as be
from ..plot import check_image_path, save_figure
from ._common import (
    UsageError,
    add_aiming_option,
    add_lens_options,
    load_lens,
    nonnegative_int,
    print_json,
    table,
)
from ._guards import interrupt_on_signals
from ._optimize_args import add_section_options, apply_section_options
from ._optimize_search import add_search_options, print_search, run_search

EXIT_INTERRUPTED = 130
DRIVER_CHOICES = ("dls", "adam", "lbfgs", "least_squares", "minimize", "global")


def register(subparsers):
    parser = subparsers.add_parser(
        "optimize",
        help="optimize a lens with the [optimize] section of its lens file",
        description="Vary the variables of LENS's [optimize] section to lower its merit function "
        "(the weighted sum of squared operand residuals), print the merit before and after and a "
        "per-operand table, and write the optimized lens to OUT (atomically; LENS itself is only "
        "replaced when -o names it). Without a section (an imported .zmx), --vary and --operand "
        "give the variables and operands, e.g. --vary radius:1-6 --operand rms_spot "
        "--operand efl=50. See docs/optimization.md.",
    )
    parser.add_argument(
        "lens", metavar="LENS", help="lens file (.toml/.json/.zmx) or built-in sample name"
    )
    parser.add_argument(
        "--backend",
        choices=be.backend_names(),
        default=None,
        help="torch or jax: exact gradients (autograd, jax.grad); numpy: finite differences "
        "(default: torch when installed, else jax, else numpy)",
    )
    parser.add_argument(
        "--driver",
        choices=DRIVER_CHOICES,
        default=None,
        help="optimizer (default: the section's 'driver', else dls, damped least squares); "
        "adam and lbfgs need --backend torch or jax; global: many starts "
        "within the bounds, each refined by --local-driver",
    )
    parser.add_argument(
        "--steps",
        type=nonnegative_int,
        default=None,
        metavar="N",
        help="most optimizer steps (default: the section's 'steps', else 100)",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT.toml",
        help="where to write the optimized lens (.toml or .json; checked before the first step). "
        "Ctrl-C writes the best lens so far there and exits with status 130",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (merit_before, merit_after, steps, operands, "
        "variables) instead of tables",
    )
    parser.add_argument(
        "--plot",
        metavar="history.png",
        default=None,
        help="write the merit history as a figure (needs matplotlib)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_section_options(parser)
    add_search_options(parser)
    add_aiming_option(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..io.lensfile import check_output_path
    from ..optimize import default_driver, optimize, problem_from_lens

    check_output_path(args.output)  # refuse a bad output before the first step
    if args.plot:
        check_image_path(args.plot)
    backend = args.backend or (be.autodiff_backends() or ["numpy"])[0]
    with be.using(backend), interrupt_on_signals():
        optic = load_lens(args.lens, glass_fallback=getattr(args, "glass_fallback", None))
        saved_mode = optic.aiming  # the output keeps the file's own mode
        if args.aiming is not None:
            optic.aiming = args.aiming
        apply_section_options(optic, args)
        problem, section = problem_from_lens(optic, f"{args.lens}: [optimize]")
        driver = args.driver or section.driver or default_driver()
        steps = section.steps if args.steps is None else args.steps
        local = args.local_driver if driver == "global" else driver
        searched = run_search(problem, args, driver, steps, section.run_options(local))
        extra = {} if searched is None else searched[1]
        if searched is not None:
            result = searched[0]
        else:
            result = optimize(
                problem,
                driver,
                steps=steps,
                merit_tol=section.merit_tol,
                grad_tol=section.grad_tol,
                progress=not args.quiet and not args.json and sys.stderr.isatty(),
                **section.run_options(driver),
            )
    optic.aiming = saved_mode
    _save_or_report(optic, args.output, result)
    if result.interrupted:
        print(
            f"optics optimize: interrupted after step {result.steps}: "
            f"merit {result.merit_after:.6g} (start {result.merit_before:.6g}); "
            f"wrote the best lens so far to {args.output}",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    if args.plot:
        save_history_figure(result.history, args.plot, f"{optic.name or args.lens}: {driver}")
    report = result.as_dict()
    report.update(extra)
    report["backend"] = backend
    if args.json:
        print_json(report)
        return 0
    _print_report(report, args)
    return 0


def _save_or_report(optic, path, result):
    """Save the optimized lens; if that fails (a full disk), the error line carries its values."""
    from ..errors import LensFileError
    from ..io import save

    try:
        save(optic, path)
    except LensFileError as exc:
        values = ", ".join(
            f"{p} = {float(v):.17g}" for p, v in zip(result.paths, result.values_after)
        )
        raise LensFileError(f"{exc}; the optimized values, not lost: {values}") from exc


def _print_report(report, args):
    print(
        f"{args.lens}: {report['driver']} on {report['backend']}, {report['steps']} steps "
        f"({report['message']})"
    )
    print(f"merit before {report['merit_before']:.6g}, after {report['merit_after']:.6g}")
    print_search(report)
    _print_diagnostics(report)
    print()
    rows = [
        (
            op["label"],
            op["kind"],
            op["target"],
            op["weight"],
            op["value_before"],
            op["value_after"],
            op["contribution_after"],
        )
        for op in report["operands"]
    ]
    print(table(["operand", "kind", "target", "weight", "before", "after", "contribution"], rows))
    print()
    print(
        table(
            ["variable", "before", "after"],
            [(v["path"], v["before"], v["after"]) for v in report["variables"]],
        )
    )
    print()
    print(f"wrote {args.output}" + (f" and {args.plot}" if args.plot else ""))


def _print_diagnostics(report):
    """The run's warnings (diverged, invalid steps) and the constraints, in the summary."""
    for note in report.get("warnings", []):
        print(f"warning: {note}")
    for row in report.get("constraints", []):
        state = "met" if row["satisfied"] else "NOT MET"
        print(f"constraint {row['label']}: {row['value']:.6g} ({state})")


def save_history_figure(history, path, title=""):
    """Write the merit per step (log scale) to ``path`` (matplotlib imported here)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise UsageError("--plot needs matplotlib: pip install 'optics[plot]'") from exc
    fig = Figure(figsize=(6.0, 4.0), layout="constrained")
    ax = fig.subplots()
    ax.semilogy(history.steps, history.merits, marker=".")
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("merit (Σ weight · deviation², operand units²)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    save_figure(fig, path)
