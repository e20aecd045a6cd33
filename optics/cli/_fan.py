"""``optics fan``: tangential and sagittal ray fans and OPD fans per field and wavelength."""

from __future__ import annotations

from ._common import (
    add_aiming_option,
    add_backend_options,
    add_field_option,
    add_lens_options,
    add_wavelength_option,
    positive_int,
    selected_fields,
    table,
)
from ._report import add_report_options, run_report


def register(subparsers):
    parser = subparsers.add_parser(
        "fan",
        help="tangential and sagittal ray fans (µm) and OPD fans (waves)",
        description="Trace the tangential (0, t) and sagittal (t, 0) pupil fans of each field "
        "and wavelength of LENS and print the transverse ray error against the primary "
        "wavelength's chief ray (e_y of the tangential fan, e_x of the sagittal one, µm) and, "
        "with --opd, the OPD in waves (docs/analyses.md).",
    )
    add_report_options(parser, "write the ray-fan plot (a row per field, T and S)")
    parser.add_argument("--opd-plot", metavar="OUT.png", help="write the OPD-fan plot")
    parser.add_argument("--opd", action="store_true", help="print the OPD fans too")
    parser.add_argument(
        "--points", type=positive_int, default=11, help="pupil points per fan (default 11)"
    )
    add_field_option(parser)
    add_wavelength_option(parser, help="µm: only this wavelength (default: every wavelength)")
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._fans import fans
    from ..plot_fans import opd_fan_figure, ray_fan_figure

    def text(result, record):
        waves = record["wavelengths"]
        for f, field in enumerate(record["fields"]):
            print(f"field ({field[0]:g}, {field[1]:g}){_units(result, field)}")
            headers = ["t"] + [f"T {w:g}" for w in waves] + [f"S {w:g}" for w in waves]
            rows = _rows(record, "tangential", "sagittal", f, 1e3)
            print("transverse ray error (µm) against the primary chief ray")
            print(table(headers, rows))
            if args.opd:
                print("OPD (waves)")
                print(table(headers, _rows(record, "opd_tangential", "opd_sagittal", f, 1.0)))
            print()

    def compute(optic):
        wavelengths = None if args.wavelength is None else [args.wavelength]
        result = fans(optic, selected_fields(args, optic), wavelengths, n=max(args.points, 2))
        object.__setattr__(result, "_optic", optic)  # for the field units of the text
        return result

    figures = {"plot": ray_fan_figure, "opd_plot": opd_fan_figure}
    return run_report(args, compute, figures, text)


def _units(result, field):
    optic = getattr(result, "_optic", None)
    if optic is None:
        return ""
    top = float(optic.fields.max_magnitude)
    unit = "°" if optic.fields.type == "angle" else " mm"
    return f" = ({field[0] * top:g}, {field[1] * top:g}){unit}"


def _rows(record, first, second, f, scale):
    rows = []
    for k, t in enumerate(record["pupil"]):
        row = [round(t, 6)]
        for name in (first, second):
            for per_wave in record[name]:
                value = per_wave[f][k]
                row.append(float("nan") if value is None else value * scale)
        rows.append(row)
    return rows
