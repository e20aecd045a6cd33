"""``optics lateral-color``: real chief-ray height at the shortest minus the longest wavelength."""

from __future__ import annotations

from ..plot import check_image_path, save_figure
from ._common import (
    add_aiming_option,
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
        "lateral-color",
        help="chief-ray image height at the shortest minus the longest wavelength (mm)",
        description="Print, per normalized field 0..1 of LENS, the real chief ray's image "
        "height at the shortest wavelength minus that at the longest (docs/analyses.md).",
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument("--points", type=positive_int, default=11, help="fields (default 11)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", metavar="OUT.png", help="write the lateral-colour plot")
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._colour import lateral_color

    if args.plot:
        check_image_path(args.plot)
    with backend_context(args):
        optic = lens_from_args(args)
        result = lateral_color(optic, points=args.points)
        record = result.as_dict()
        if args.plot:
            from ..plot_analyses import lateral_color_figure

            save_figure(lateral_color_figure(result, optic), args.plot)
    if args.json:
        print_json(record)
        return 0
    print(f"chief-ray height at {result.short:g} µm minus at {result.long:g} µm, in mm")
    print(table(["field", "difference"], list(zip(record["fields"], record["difference"]))))
    if args.plot:
        print(f"wrote {args.plot}")
    return 0
