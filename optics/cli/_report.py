"""The shared body of the analysis commands (seidel, field-curvature, distortion, colour).

Each such command computes one result of an analysis function, optionally
writes figures of it, and prints either its JSON record or a text table.
The order is fixed: figure paths are checked before any work, the lens is
loaded and analysed inside the command's backend, figures are written, then
the report is printed.
"""

from __future__ import annotations

from ..plot import check_image_path, save_figure
from ._common import UsageError, backend_context, lens_from_args, print_json
from ._guards import check_outputs


def add_report_options(parser, plot_help):
    """LENS, ``--json`` and ``--plot OUT.png`` (``plot_help``: what the figure shows)."""
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", metavar="OUT.png", help=plot_help)


def add_wavelength_filter_option(parser):
    """``--wavelength W``: only that wavelength (µm) instead of every wavelength of the lens."""
    parser.add_argument(
        "--wavelength",
        type=float,
        default=None,
        help="µm: only this wavelength (default: every wavelength of the lens)",
    )


def check_wavelength_option(args):
    """UsageError unless ``--wavelength`` is absent or positive."""
    if args.wavelength is not None and not args.wavelength > 0:
        raise UsageError(f"--wavelength must be positive (µm), not {args.wavelength:g}")


def run_report(args, compute, figures, print_text):
    """Run an analysis command; returns its exit status.

    Parameters
    ----------
    args : argparse.Namespace
        With ``json`` and the figure path attributes named in ``figures``.
    compute : callable
        ``compute(optic) -> result``, a result with ``as_dict()``.
    figures : dict
        Path attribute of ``args`` -> ``make(result, optic) -> matplotlib figure``.
    print_text : callable
        ``print_text(result, record)`` prints the text report.
    """
    paths = {name: getattr(args, name) for name in figures if getattr(args, name, None)}
    for path in paths.values():
        check_image_path(path)
    # two figures to one file (--plot X --grid X) or a figure over an input: refused before work
    inputs = [getattr(args, "lens", None), *(getattr(args, "glass_catalog", None) or [])]
    check_outputs({f"--{name.replace('_', '-')}": path for name, path in paths.items()}, inputs)
    with backend_context(args):
        optic = lens_from_args(args)
        result = compute(optic)
        record = result.as_dict()
        for name, path in paths.items():
            save_figure(figures[name](result, optic), path)
    if args.json:
        print_json(record)
        return 0
    print_text(result, record)
    for path in paths.values():
        print(f"wrote {path}")
    return 0
