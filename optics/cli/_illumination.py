"""``optics illumination``: relative illumination and vignetting vs field (real aimed rays)."""

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
        "illumination",
        help="relative illumination and vignetting vs field (real aimed rays)",
        description="Print, per wavelength of LENS and normalized field 0..1 (with the field "
        "in degrees or mm), the relative illumination (the illuminance at the image point over "
        "the on-axis one: the projected solid angle of the real image-space ray cone) and the "
        "vignetting (the fraction of the uniformly sampled pupil whose rays are lost); "
        "docs/analyses.md.",
    )
    add_report_options(parser, "write the relative-illumination and vignetting plot")
    parser.add_argument("--points", type=positive_int, default=11, help="fields (default 11)")
    add_wavelength_filter_option(parser)
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._illumination import relative_illumination
    from ..plot_illumination import illumination_figure

    check_wavelength_option(args)

    def text(result, record):
        unit = "°" if result.field_type == "angle" else " mm"
        headers = ["field", f"field{unit}"]
        for w in record["wavelengths"]:
            headers += [f"RI {w:g} µm", f"vign. {w:g} µm"]
        rows = []
        for k, field in enumerate(record["fields"]):
            row = [field, record["field_units"][k]]
            for ri, lost in zip(record["relative_illumination"], record["vignetting"]):
                row += [ri[k], lost[k]]
            rows.append(row)
        print("relative illumination (1 on axis) and vignetting (fraction of the pupil lost)")
        print(table(headers, rows))

    def compute(optic):
        wavelengths = None if args.wavelength is None else [args.wavelength]
        points = max(args.points, 2)
        return relative_illumination(optic, wavelengths=wavelengths, points=points)

    return run_report(args, compute, {"plot": illumination_figure}, text)
