"""``optics chromatic-focal-shift``: paraxial back focus vs wavelength minus the primary's."""

from __future__ import annotations

from ._common import (
    add_backend_options,
    add_lens_options,
    positive_int,
    table,
)
from ._report import add_report_options, run_report


def register(subparsers):
    parser = subparsers.add_parser(
        "chromatic-focal-shift",
        help="paraxial back focus at each wavelength minus the primary's (mm)",
        description="Print the paraxial image distance of the axial object point behind the "
        "last surface of LENS at wavelengths from --from to --to, minus that at the primary "
        "wavelength (docs/analyses.md).",
    )
    add_report_options(parser, "write the focal-shift plot")
    parser.add_argument(
        "--from",
        dest="start",
        type=float,
        default=None,
        help="µm (default: the shortest wavelength of the lens)",
    )
    parser.add_argument(
        "--to",
        dest="stop",
        type=float,
        default=None,
        help="µm (default: the longest wavelength of the lens)",
    )
    parser.add_argument("--points", type=positive_int, default=21, help="default 21")
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._colour import chromatic_focal_shift
    from ..plot_analyses import focal_shift_figure

    def text(result, record):
        print(f"paraxial focal shift in mm against {result.primary:g} µm")
        print(table(["wavelength", "shift"], list(zip(record["wavelengths"], record["shift"]))))

    def compute(optic):
        return chromatic_focal_shift(optic, start=args.start, stop=args.stop, points=args.points)

    return run_report(args, compute, {"plot": focal_shift_figure}, text)
