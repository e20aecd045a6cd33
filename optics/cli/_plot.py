"""``optics plot``: layout with traced rays and spot diagrams, as an image file."""

from __future__ import annotations

from ._common import (
    add_aiming_option,
    add_backend_options,
    add_lens_options,
    backend_context,
    lens_from_args,
    rings_option,
)


def register(subparsers):
    parser = subparsers.add_parser(
        "plot",
        help="draw the layout and spot diagrams of a lens",
        description="Write a figure with the 2-D layout of LENS (surfaces and a ray fan per "
        "field) and a spot diagram per field (all wavelengths). Needs matplotlib.",
    )
    parser.add_argument(
        "lens", metavar="LENS", help="lens file (.toml/.json) or built-in sample name"
    )
    parser.add_argument(
        "-o", "--output", required=True, metavar="OUT.png", help="image file to write"
    )
    parser.add_argument(
        "--rings", type=rings_option, default=6, help="hexapolar rings for the spots (1-500)"
    )
    add_aiming_option(parser)
    add_backend_options(parser, precision=False)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..plot import check_image_path, layout_and_spots_figure, save_figure

    check_image_path(args.output)
    with backend_context(args):
        optic = lens_from_args(args)
        save_figure(layout_and_spots_figure(optic, rings=args.rings), args.output)
    print(f"wrote {args.output}")
    return 0
