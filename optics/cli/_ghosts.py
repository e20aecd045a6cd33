"""``optics ghosts``: every two-reflection ghost of a lens, ranked by its image irradiance."""

from __future__ import annotations

from ._common import (
    UsageError,
    add_backend_options,
    add_lens_options,
    add_wavelength_option,
    nonnegative_int,
    rings_option,
    table,
)
from ._report import run_report

EXAMPLE = "example: optics ghosts double_gauss --top 5 -o ghosts.png"


def register(subparsers):
    parser = subparsers.add_parser(
        "ghosts",
        help="two-reflection ghosts (every surface pair) ranked by their irradiance on the image",
        description="Trace every two-reflection ghost of LENS (reflected back at surface i, "
        "forward again at surface j < i, then to the image) and rank them by the irradiance "
        "they bring to the image relative to the primary image: the pupil mean over the traced "
        "rays of the product of the two reflectances and the transmittances crossed, each at "
        "the ray's own incidence angle (bare Fresnel or the surface's coating, s and p "
        "averaged; lost rays 0), times the ratio of the primary spot area to the ghost's. "
        "Prints each ghost's paraxial focus (mm from the image plane) and its RMS spot "
        "radius on the image (docs/ghosts.md).",
        epilog=EXAMPLE,
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "-o", "--plot", metavar="OUT.png", help="write the ghost irradiance bars and spots"
    )
    parser.add_argument(
        "--top",
        type=nonnegative_int,
        default=10,
        metavar="N",
        help="report the N brightest ghosts (0: all; default 10)",
    )
    parser.add_argument(
        "--field",
        type=_field_choice,
        default=0,
        metavar="I|all",
        help="field index of the source, 0-based (default 0: the first field), or 'all': "
        "every field of the lens, the JSON then carrying one record per field under 'fields'",
    )
    parser.add_argument(
        "--rings", type=rings_option, default=6, help="hexapolar rings traced per ghost (6)"
    )
    add_wavelength_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def _field_choice(text):
    """``--field``: a 0-based field index or ``all``."""
    if text == "all":
        return text
    return nonnegative_int(text)


class _Shown:
    """The reports (one per field) cut to ``--top`` for the record and the figure."""

    def __init__(self, reports, top, every):
        self.reports, self.count, self.every = reports, top or None, every
        self.report = reports[0]

    def as_dict(self):
        if not self.every:
            return self.report.as_dict(self.count)
        return {"fields": [r.as_dict(self.count) for r in self.reports]}


def run(args):
    from ..ghosts import ghosts
    from ..plot_ghosts import ghosts_figure

    def compute(optic):
        fields = optic.fields.normalized()
        every = args.field == "all"
        if not every and args.field >= len(fields):
            raise UsageError(f"--field must be 0..{len(fields) - 1} or all, not {args.field}")
        chosen = fields if every else [fields[args.field]]
        reports = [
            ghosts(optic, field=field, rings=args.rings, wavelength=args.wavelength)
            for field in chosen
        ]
        return _Shown(reports, args.top, every)

    def figure(shown, optic):
        return ghosts_figure(shown.report, optic, top=shown.count or len(shown.report.ghosts))

    def text(shown, record):
        for report, one in zip(shown.reports, record.get("fields", [record]), strict=True):
            _text(report, one)

    def _text(report, record):
        print(
            f"{record['ghost_count']} ghosts at {report.wavelength:g} µm, field {report.field}; "
            f"primary spot radius {report.primary_radius:.4g} mm, primary transmission "
            f"{report.primary_transmission:.4g}"
        )
        rows = [
            [
                f"{g['surfaces'][0]}-{g['surfaces'][1]}",
                g["irradiance"],
                g["energy"],
                g["reflectances"][0],
                g["reflectances"][1],
                g["focus"],
                g["rms_radius"],
                g["passed"],
            ]
            for g in record["ghosts"]
        ]
        headers = ["ghost", "irradiance", "energy", "R_i", "R_j", "focus_mm", "rms_mm", "passed"]
        print(table(headers, rows))

    return run_report(args, compute, {"plot": figure}, text)
