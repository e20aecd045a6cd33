"""``optics spots``: spot sizes per field and wavelength, and the report spot diagram."""

from __future__ import annotations

from ._common import (
    add_aiming_option,
    add_backend_options,
    add_field_option,
    add_lens_options,
    add_wavelength_option,
    rings_option,
    selected_fields,
    table,
)
from ._report import add_report_options, run_report


class _Spots:
    def __init__(self, optic, results, panels, airy, args):
        self.optic, self.results, self.panels, self.airy, self.args = (
            optic,
            results,
            panels,
            airy,
            args,
        )

    def as_dict(self):
        top = float(self.optic.fields.max_magnitude)
        return {
            "airy_radius": self.airy,
            "field_type": self.optic.fields.type,
            "spots": [
                dict(r.as_dict(), field_units=[v * top for v in r.field]) for r in self.results
            ],
            "fields": [
                {
                    "field": list(p["field"]),
                    "rms_radius": p["rms"] * 1e-3,
                    "geo_radius": p["geo"] * 1e-3,
                }
                for p in self.panels
            ],
        }


def register(subparsers):
    parser = subparsers.add_parser(
        "spots",
        help="spot sizes (RMS, GEO) per field and wavelength, and the spot diagram",
        description="Trace a hexapolar pupil per field and wavelength of LENS and print the "
        "RMS radius about the primary wavelength's chief ray and about the centroid, the GEO "
        "radius and the Airy radius (mm); --plot draws the spot diagram with the Airy disc "
        "(docs/analyses.md).",
    )
    add_report_options(parser, "write the spot diagram")
    parser.add_argument("--rings", type=rings_option, default=6, help="pupil rings (default 6)")
    parser.add_argument(
        "--common-scale", action="store_true", help="one scale for every panel of the plot"
    )
    add_field_option(parser)
    add_wavelength_option(parser, help="µm: only this wavelength (default: every wavelength)")
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..analysis.spot import spot_diagram
    from ..plot_spots import airy_radius, spot_figure, spot_panels

    def compute(optic):
        fields = selected_fields(args, optic)
        waves = None if args.wavelength is None else [args.wavelength]
        results = spot_diagram(optic, fields, waves, pupil=args.rings)
        panels, _ = spot_panels(optic, fields, waves, args.rings)
        return _Spots(optic, results, panels, airy_radius(optic), args)

    def figure(result, optic):
        waves = None if args.wavelength is None else [args.wavelength]
        fields = selected_fields(args, optic)
        return spot_figure(optic, fields, waves, args.rings, common_scale=args.common_scale)

    def text(result, record):
        top = float(result.optic.fields.max_magnitude)
        unit = "°" if record["field_type"] == "angle" else " mm"
        rows = []
        for r in record["spots"]:
            rows.append(
                [
                    f"({r['field'][0]:g}, {r['field'][1]:g}) = {r['field'][1] * top:g}{unit}",
                    r["wavelength"],
                    r["rms_radius_chief"],
                    r["rms_radius_centroid"],
                    r["geo_radius"],
                    f"{r['n_rays'] - r['n_invalid']}/{r['n_rays']}",
                ]
            )
        headers = ["field", "µm", "RMS chief", "RMS centroid", "GEO", "rays"]
        print(f"spot radii in mm; Airy radius {record['airy_radius']:.6g} mm")
        print(table(headers, rows))

    return run_report(args, compute, {"plot": figure}, text)
