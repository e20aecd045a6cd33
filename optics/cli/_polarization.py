"""``optics polarization``: transmission vs field and wavelength, retardance and diattenuation."""

from __future__ import annotations

from ._common import (
    add_aiming_option,
    add_backend_options,
    add_lens_options,
    add_wavelength_option,
    backend_context,
    lens_from_args,
    positive_int,
    print_json,
    table,
)

EXAMPLE = """example:
  optics polarization cooke_triplet --field 1 -o polarization.png
  optics polarization singlet --json"""


def register(subparsers):
    import argparse

    parser = subparsers.add_parser(
        "polarization",
        help="polarization ray trace: transmission, diattenuation, retardance",
        description="Trace LENS with 3x3 polarization ray-tracing matrices (bare Fresnel "
        "interfaces, perfect mirrors, surface coatings where set) and print the mean "
        "transmittance over the pupil per wavelength and normalized field, unpolarized and "
        "for x and y input polarization, and the pupil's diattenuation and retardance at one "
        "field; docs/polarization.md.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("-o", "--plot", metavar="OUT.png", help="write the polarization figure")
    parser.add_argument("--points", type=positive_int, default=5, help="fields 0..1 (default 5)")
    parser.add_argument(
        "--field", type=float, default=1.0, help="normalized y field of the pupil maps (default 1)"
    )
    parser.add_argument("--samples", type=positive_int, default=21, help="pupil grid (default 21)")
    add_wavelength_option(parser, help="micrometres of the pupil maps (default: the primary)")
    add_aiming_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


class _Report:
    def __init__(self, table, maps, strehl):
        self.table, self.maps, self.strehl = table, maps, strehl

    def as_dict(self):
        return {
            "transmission": self.table.as_dict(),
            "pupil": self.maps.as_dict(),
            "strehl": self.strehl.as_dict(),
        }


def run(args):
    import math

    from ..errors import ConfigurationError
    from ..plot import check_image_path, save_figure
    from ..plot_polarization import polarization_figure
    from ..polarization import polarization_pupil, polarization_strehl, transmission_vs_field

    if not math.isfinite(args.field) or abs(args.field) > 1.0:
        raise ConfigurationError(f"--field must be a normalized field in [-1, 1], not {args.field}")
    if args.plot:
        check_image_path(args.plot)
    with backend_context(args):
        optic = lens_from_args(args)
        samples = max(args.samples, 2)
        report = _Report(
            transmission_vs_field(optic, points=args.points, samples=min(samples, 15)),
            polarization_pupil(optic, (0.0, args.field), args.wavelength, samples=samples),
            polarization_strehl(optic, (0.0, args.field), args.wavelength, samples=32),
        )
        record = report.as_dict()
        if args.plot:
            save_figure(polarization_figure(report, optic), args.plot)
    if args.json:
        print_json(record)
        return 0
    t = report.table
    headers = ["field"] + [f"{k} {w:g} µm" for w in t.wavelengths for k in ("T", "Tx", "Ty")]
    rows = []
    for f, field in enumerate(t.fields):
        row = [field]
        for w in range(len(t.wavelengths)):
            row += [t.unpolarized[w, f], t.x[w, f], t.y[w, f]]
        rows.append(row)
    print("mean transmittance over the pupil (T unpolarized, Tx / Ty x / y polarized input)")
    print(table(headers, rows))
    summary = record["pupil"]["summary"]
    m = report.maps
    print(
        f"pupil at field (0, {m.field[1]:g}), {m.wavelength:g} µm: diattenuation mean "
        f"{_num(summary['diattenuation']['mean'])} max {_num(summary['diattenuation']['max'])}; "
        f"retardance mean {_num(summary['retardance_rad']['mean'])} rad max "
        f"{_num(summary['retardance_rad']['max'])} rad"
    )
    st = report.strehl
    print(
        f"Strehl ratio there: x {st.x:.4g}, y {st.y:.4g}, unpolarized {st.unpolarized:.4g} "
        f"(scalar, no polarization: {st.scalar:.4g})"
    )
    if args.plot:
        print(f"wrote {args.plot}")
    return 0


def _num(value):
    return "n/a" if value is None else f"{value:.4g}"
