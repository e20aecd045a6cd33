"""``optics beam``: a Gaussian beam through a lens, its waist after every surface."""

from __future__ import annotations

import argparse

from ._common import (
    add_backend_options,
    add_lens_options,
    add_wavelength_option,
    finite_float,
    table,
)
from ._report import run_report

EXAMPLE = "example: optics beam singlet --waist 0.5 --fibre 0.0052"
KEYS = ("surface", "radius", "waist", "waist_position", "rayleigh", "curvature_radius")


def _positive_mm(text):
    value = finite_float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of mm, not {text!r}")
    return value


def _beam_quality(text):
    value = finite_float(text)
    if not value >= 1:
        raise argparse.ArgumentTypeError(f"M² must be at least 1, not {text!r}")
    return value


def register(subparsers):
    parser = subparsers.add_parser(
        "beam",
        help="a Gaussian beam through the lens: waist size and position after every surface",
        description="Propagate a Gaussian beam of waist radius W (mm, 1/e² intensity) through "
        "LENS by its complex beam parameter and the lens's paraxial ABCD matrices, and print "
        "after every surface the beam radius on it, the waist radius, the waist position "
        "(mm from the surface vertex along z), the Rayleigh range and the wavefront radius of "
        "curvature; with --fibre, the coupling efficiency into a fibre mode at the image "
        "surface (docs/beams.md).",
        epilog=EXAMPLE,
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument(
        "--waist", type=_positive_mm, required=True, metavar="W", help="input waist radius, mm"
    )
    parser.add_argument(
        "--waist-position",
        type=finite_float,
        default=None,
        metavar="Z",
        help="z of the input waist from surface 1, mm (default: on the object; on surface 1 "
        "for an object at infinity)",
    )
    parser.add_argument(
        "--m2", type=_beam_quality, default=1.0, metavar="M2", help="beam quality M² (1)"
    )
    parser.add_argument(
        "--fibre",
        type=_positive_mm,
        default=None,
        metavar="MFR",
        help="mode field radius (mm) of a fibre at the image surface: print the coupling",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_wavelength_option(parser)
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


class _BeamResult:
    def __init__(self, beams, coupling, wavelength, args):
        self.beams, self.coupling, self.wavelength, self.args = beams, coupling, wavelength, args

    def as_dict(self):
        from .. import backend as be

        return {
            "wavelength": self.wavelength,
            "waist": self.args.waist,
            "waist_position": self.args.waist_position,
            "m2": self.args.m2,
            "surfaces": [
                {k: (b.surface if k == "surface" else float(be.item(getattr(b, k)))) for k in KEYS}
                for b in self.beams
            ],
            "mode_field_radius": self.args.fibre,
            "coupling": None if self.coupling is None else float(be.item(self.coupling)),
        }


def run(args):
    from ..beams import fibre_coupling, propagate_beam
    from ._common import UsageError

    def compute(optic):
        wavelength = optic.primary_wavelength if args.wavelength is None else args.wavelength
        options = dict(wavelength=wavelength, waist_position=args.waist_position)
        beams = propagate_beam(optic, args.waist, m2=args.m2, **options)
        coupling = None
        if args.fibre is not None:
            if args.m2 != 1:
                raise UsageError("--fibre couples a TEM00 beam: it needs --m2 1")
            coupling = fibre_coupling(optic, args.waist, args.fibre, **options)
        return _BeamResult(beams, coupling, wavelength, args)

    def text(result, record):
        print(
            f"Gaussian beam, waist {args.waist:g} mm, M² {args.m2:g}, at "
            f"{record['wavelength']:g} µm (mm; waist position from each surface vertex)"
        )
        rows = [[r[k] for k in KEYS] for r in record["surfaces"]]
        print(table(["surface", "w", "waist", "waist_at", "rayleigh", "R"], rows))
        if record["coupling"] is not None:
            print(
                f"\ncoupling into a fibre mode of radius {args.fibre:g} mm at the image: "
                f"{record['coupling']:.6g}"
            )

    return run_report(args, compute, {}, text)
