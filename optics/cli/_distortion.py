"""``optics distortion``: real chief-ray distortion in percent vs field (and a grid plot)."""

from __future__ import annotations

from ._common import (
    add_aiming_option,
    add_backend_options,
    add_lens_options,
    positive_int,
    table,
)
from ._report import (
    add_report_options,
    add_wavelength_filter_option,
    check_wavelength_option,
    run_report,
)


def register(subparsers):
    parser = subparsers.add_parser(
        "distortion",
        help="distortion (percent) of the real chief ray vs field, f-tan or f-theta",
        description="Print, per wavelength of LENS and normalized field 0..1, "
        "100 (y_real - y_ref) / y_ref: y_real the real chief ray's image height, y_ref = f tan "
        "theta (or f theta with --reference f-theta; the paraxial image height for a finite "
        "object); positive is pincushion (docs/analyses.md).",
    )
    add_report_options(parser, "write the distortion plot")
    parser.add_argument("--points", type=positive_int, default=11, help="fields (default 11)")
    parser.add_argument(
        "--reference", choices=["f-tan", "f-theta"], default="f-tan", help="default f-tan"
    )
    add_wavelength_filter_option(parser)
    parser.add_argument(
        "--grid", metavar="OUT.png", help="write a grid-distortion plot (primary wavelength)"
    )
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._distortion import distortion, grid_distortion
    from ..plot_analyses import distortion_figure, grid_distortion_figure

    check_wavelength_option(args)

    def text(result, record):
        headers = ["field", *(f"{w:g} µm" for w in record["wavelengths"])]
        rows = [
            [field, *(p[k] for p in record["percent"])] for k, field in enumerate(record["fields"])
        ]
        print(f"distortion in percent against {args.reference} (positive: pincushion)")
        print(table(headers, rows))

    def compute(optic):
        wavelengths = _wavelengths(args)
        return distortion(
            optic, wavelengths=wavelengths, points=args.points, reference=args.reference
        )

    def grid(result, optic):
        return grid_distortion_figure(grid_distortion(optic, reference=args.reference), optic)

    figures = {"plot": distortion_figure, "grid": grid}
    return run_report(args, compute, figures, text)


def _wavelengths(args):
    return None if args.wavelength is None else [args.wavelength]
