"""``optics chromatic-focal-shift``: paraxial back focus vs wavelength minus the primary's."""

from __future__ import annotations

from ..plot import check_image_path, save_figure
from ._common import (
    add_backend_options,
    add_lens_options,
    backend_context,
    lens_from_args,
    positive_int,
    print_json,
    table,
)


def register(subparsers):
    parser = subparsers.add_parser(
        "chromatic-focal-shift",
        help="paraxial back focus at each wavelength minus the primary's (mm)",
        description="Print the paraxial image distance of the axial object point behind the "
        "last surface of LENS at wavelengths from --from to --to, minus that at the primary "
        "wavelength (docs/analyses.md).",
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
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
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", metavar="OUT.png", help="write the focal-shift plot")
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._colour import chromatic_focal_shift

    if args.plot:
        check_image_path(args.plot)
    with backend_context(args):
        optic = lens_from_args(args)
        result = chromatic_focal_shift(optic, start=args.start, stop=args.stop, points=args.points)
        record = result.as_dict()
        if args.plot:
            from ..plot_analyses import focal_shift_figure

            save_figure(focal_shift_figure(result, optic), args.plot)
    if args.json:
        print_json(record)
        return 0
    print(f"paraxial focal shift in mm against {result.primary:g} µm")
    print(table(["wavelength", "shift"], list(zip(record["wavelengths"], record["shift"]))))
    if args.plot:
        print(f"wrote {args.plot}")
    return 0
