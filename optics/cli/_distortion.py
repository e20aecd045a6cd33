"""``optics distortion``: real chief-ray distortion in percent vs field (and a grid plot)."""

from __future__ import annotations

from ..plot import check_image_path, save_figure
from ._common import (
    UsageError,
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
        "distortion",
        help="distortion (percent) of the real chief ray vs field, f-tan or f-theta",
        description="Print, per wavelength of LENS and normalized field 0..1, "
        "100 (y_real - y_ref) / y_ref: y_real the real chief ray's image height, y_ref = f tan "
        "theta (or f theta with --reference f-theta; the paraxial image height for a finite "
        "object); positive is pincushion (docs/analyses.md).",
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument("--points", type=positive_int, default=11, help="fields (default 11)")
    parser.add_argument(
        "--reference", choices=["f-tan", "f-theta"], default="f-tan", help="default f-tan"
    )
    parser.add_argument(
        "--wavelength",
        type=float,
        default=None,
        help="µm: only this wavelength (default: every wavelength of the lens)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", metavar="OUT.png", help="write the distortion plot")
    parser.add_argument(
        "--grid", metavar="OUT.png", help="write a grid-distortion plot (primary wavelength)"
    )
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._distortion import distortion, grid_distortion

    for path in (args.plot, args.grid):
        if path:
            check_image_path(path)
    if args.wavelength is not None and not args.wavelength > 0:
        raise UsageError(f"--wavelength must be positive (µm), not {args.wavelength:g}")
    with backend_context(args):
        optic = lens_from_args(args)
        result = distortion(
            optic, wavelengths=_wavelengths(args), points=args.points, reference=args.reference
        )
        record = result.as_dict()
        if args.plot or args.grid:
            from ..plot_analyses import distortion_figure, grid_distortion_figure

            if args.plot:
                save_figure(distortion_figure(result, optic), args.plot)
            if args.grid:
                grid = grid_distortion(optic, reference=args.reference)
                save_figure(grid_distortion_figure(grid, optic), args.grid)
    if args.json:
        print_json(record)
        return 0
    headers = ["field", *(f"{w:g} µm" for w in record["wavelengths"])]
    rows = [[field, *(p[k] for p in record["percent"])] for k, field in enumerate(record["fields"])]
    print(f"distortion in percent against {args.reference} (positive: pincushion)")
    print(table(headers, rows))
    for path in (args.plot, args.grid):
        if path:
            print(f"wrote {path}")
    return 0


def _wavelengths(args):
    return None if args.wavelength is None else [args.wavelength]
