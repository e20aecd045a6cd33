"""``optics field-curvature``: tangential and sagittal focus of the real chief ray vs field."""

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
        "field-curvature",
        help="tangential and sagittal focus shifts (mm) of the real chief ray vs field",
        description="Print, per wavelength of LENS and normalized field 0..1, the z distance "
        "from the image surface to the tangential and sagittal foci of the real chief ray "
        "(parabasal real rays; positive: beyond the image surface; docs/analyses.md).",
    )
    add_report_options(parser, "write the field-curvature plot")
    parser.add_argument("--points", type=positive_int, default=11, help="fields (default 11)")
    add_wavelength_filter_option(parser)
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._field_curvature import field_curvature
    from ..plot_analyses import field_curvature_figure

    check_wavelength_option(args)

    def text(result, record):
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

    def compute(optic):
        return field_curvature(optic, wavelengths=_wavelengths(args), points=args.points)

    return run_report(args, compute, {"plot": field_curvature_figure}, text)


def _wavelengths(args):
    return None if args.wavelength is None else [args.wavelength]
