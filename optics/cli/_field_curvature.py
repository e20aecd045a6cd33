"""``optics field-curvature``: tangential and sagittal focus of the real chief ray vs field."""

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
        "field-curvature",
        help="tangential and sagittal focus shifts (mm) of the real chief ray vs field",
        description="Print, per wavelength of LENS and normalized field 0..1, the z distance "
        "from the image surface to the tangential and sagittal foci of the real chief ray "
        "(parabasal real rays; positive: beyond the image surface; docs/analyses.md).",
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument("--points", type=positive_int, default=11, help="fields (default 11)")
    parser.add_argument(
        "--wavelength",
        type=float,
        default=None,
        help="µm: only this wavelength (default: every wavelength of the lens)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", metavar="OUT.png", help="write the field-curvature plot")
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._field_curvature import field_curvature

    if args.plot:
        check_image_path(args.plot)
    if args.wavelength is not None and not args.wavelength > 0:
        raise UsageError(f"--wavelength must be positive (µm), not {args.wavelength:g}")
    with backend_context(args):
        optic = lens_from_args(args)
        result = field_curvature(optic, wavelengths=_wavelengths(args), points=args.points)
        record = result.as_dict()
        if args.plot:
            from ..plot_analyses import field_curvature_figure

            save_figure(field_curvature_figure(result, optic), args.plot)
    if args.json:
        print_json(record)
        return 0
    headers = ["field"]
    for w in record["wavelengths"]:
        headers += [f"T {w:g} µm", f"S {w:g} µm"]
    rows = []
    for k, field in enumerate(record["fields"]):
        row = [field]
        for t, s in zip(record["tangential"], record["sagittal"]):
            row += [t[k], s[k]]
        rows.append(row)
    print("focus minus image surface z in mm (T tangential, S sagittal)")
    print(table(headers, rows))
    if args.plot:
        print(f"wrote {args.plot}")
    return 0


def _wavelengths(args):
    return None if args.wavelength is None else [args.wavelength]
