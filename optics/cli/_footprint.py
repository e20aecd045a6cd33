"""``optics footprint``: where every field's rays cross one surface, with its clear aperture."""

from __future__ import annotations

from ._common import (
    add_aiming_option,
    add_backend_options,
    add_lens_options,
    rings_option,
    table,
)
from ._report import add_report_options, check_wavelength_option, run_report


def register(subparsers):
    parser = subparsers.add_parser(
        "footprint",
        help="footprint diagram: ray intersections of every field on one surface",
        description="Trace a hexapolar pupil per field of LENS and print, for surface "
        "--surface (the object is 0; negative counts from the image), the extent of each "
        "field's rays in the surface's local frame, the stated semi-diameter and the beam's "
        "largest radius; --plot draws the intersections with the clear aperture "
        "(docs/analyses.md).",
    )
    add_report_options(parser, "write the footprint diagram")
    parser.add_argument(
        "--surface", type=int, default=1, help="surface index (default 1; -1: the image)"
    )
    parser.add_argument("--rings", type=rings_option, default=8, help="pupil rings (default 8)")
    parser.add_argument(
        "--wavelength", type=float, default=None, help="µm (default: the primary wavelength)"
    )
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis._footprint import footprint
    from ..plot_illumination import footprint_figure

    check_wavelength_option(args)

    def text(result, record):
        semi = record["semi_diameter"]
        print(
            f"surface {record['surface']} at {record['wavelength']:g} µm: clear semi-diameter "
            f"{'none stated' if semi is None else f'{semi:g} mm'}, beam radius "
            f"{record['beam_radius']:.6g} mm"
        )
        rows = []
        for row in record["fields"]:
            xr, yr = row["x_range"] or [None, None], row["y_range"] or [None, None]
            rows.append(
                [
                    ", ".join(f"{v:g}" for v in row["field"]),
                    *xr,
                    *yr,
                    row["max_radius"],
                    f"{row['n_reached']}/{row['n_rays']}",
                    f"{row['n_passed']}/{row['n_rays']}",
                ]
            )
        headers = ["field (hx, hy)", "x min", "x max", "y min", "y max", "r max", "reach", "pass"]
        print(table(headers, rows))

    def compute(optic):
        return footprint(optic, args.surface, wavelength=args.wavelength, rings=args.rings)

    return run_report(args, compute, {"plot": footprint_figure}, text)
