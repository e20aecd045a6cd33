"""``optics lateral-color``: real chief-ray height at the shortest minus the longest wavelength."""

from __future__ import annotations

from ._common import (
    add_aiming_option,
    add_backend_options,
    add_lens_options,
    positive_int,
    table,
)
from ._report import add_report_options, run_report


def register(subparsers):
    parser = subparsers.add_parser(
        "lateral-color",
        help="chief-ray image height at the shortest minus the longest wavelength (mm)",
        description="Print, per normalized field 0..1 of LENS, the real chief ray's image "
        "height at the shortest wavelength minus that at the longest (docs/analyses.md).",
    )
    add_report_options(parser, "write the lateral-colour plot")
    parser.add_argument("--points", type=positive_int, default=11, help="fields (default 11)")
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._colour import lateral_color
    from ..plot_analyses import lateral_color_figure

    def text(result, record):
        print(f"chief-ray height at {result.short:g} µm minus at {result.long:g} µm, in mm")
        print(table(["field", "difference"], list(zip(record["fields"], record["difference"]))))

    def compute(optic):
        return lateral_color(optic, points=args.points)

    return run_report(args, compute, {"plot": lateral_color_figure}, text)
