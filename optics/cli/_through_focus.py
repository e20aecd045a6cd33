"""``optics through-focus``: MTF at one frequency (or, with ``--spot``, the RMS and GEO spot
radius) against image-surface defocus, and the best focus."""

from __future__ import annotations

import math

from ._common import (
    UsageError,
    add_aiming_option,
    add_backend_options,
    add_field_option,
    add_lens_options,
    positive_int,
    rings_option,
    samples_option,
    selected_fields,
    table,
)
from ._report import add_report_options, run_report
from ._spectrum import add_polychromatic_option, polychromatic_of, spectrum_line
from ._wavefront import add_wavelength_option


def register(subparsers):
    parser = subparsers.add_parser(
        "through-focus",
        help="MTF at one frequency, or the RMS spot radius (--spot), against defocus per "
        "field, and the best focus",
        description="Move the image surface of LENS along z by each defocus from A to B mm "
        "(positive away from the lens) and print the tangential and sagittal MTF at "
        "--frequency per field (polychromatic when the lens has several wavelengths), and "
        "the best focus: the defocus of the highest field-weighted mean (T + S) / 2 "
        "(docs/wavefront.md).  With --spot: the RMS and GEO spot radius per field instead, "
        "and the best focus of the least field-weighted mean square RMS radius "
        "(docs/analyses.md).",
    )
    add_report_options(parser, "write the through-focus curves to an image file")
    parser.add_argument(
        "--frequency", type=float, default=None, metavar="F", help="cycles/mm (MTF mode)"
    )
    parser.add_argument(
        "--spot",
        action="store_true",
        help="RMS and GEO spot radius against defocus instead of the MTF",
    )
    parser.add_argument(
        "--reference",
        choices=["centroid", "chief"],
        default="centroid",
        help="--spot: radii about the rays' centroid (default) or the primary chief ray",
    )
    parser.add_argument(
        "--rings",
        type=rings_option,
        default=None,
        help="--spot: hexapolar rings (default: converged to 1 %%, from 6)",
    )
    parser.add_argument(
        "--defocus",
        default="0.1",
        metavar="A,B",
        help="first and last defocus in mm, or D for -D,D (default 0.1; a negative A "
        "is typed as it is: --defocus -0.2,0.1)",
    )
    parser.add_argument(
        "--steps", type=positive_int, default=11, help="defocus values (default 11)"
    )
    add_wavelength_option(parser)
    add_polychromatic_option(parser)
    parser.add_argument(
        "--samples", type=samples_option, default=None, help="pupil samples N (8-1024)"
    )
    add_field_option(parser)
    add_backend_options(parser)
    add_aiming_option(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def parse_range(text):
    """ "A,B" -> (A, B) in mm, "D" -> (-D, D); UsageError on anything else."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise UsageError(f"--defocus must be A,B (two numbers of mm), not {text!r}") from None
    if len(values) == 1:
        values = [-abs(values[0]), abs(values[0])]
    if len(values) != 2 or not all(math.isfinite(v) for v in values):
        raise UsageError(f"--defocus must be A,B (two finite numbers of mm), not {text!r}")
    return values


def run(args):
    from ..analysis._through_focus import through_focus_mtf
    from ..plot_wavefront import through_focus_figure

    start, stop = parse_range(args.defocus)
    if args.spot:
        return _run_spot(args, start, stop)
    if args.frequency is None:
        raise UsageError("--frequency F (cycles/mm) is needed, or --spot for the spot radius")
    if args.rings is not None or args.reference != "centroid":
        raise UsageError("--rings and --reference belong to --spot")
    if not (math.isfinite(args.frequency) and args.frequency >= 0):
        raise UsageError(f"--frequency must be a non-negative number, not {args.frequency}")
    if args.steps > 201:
        raise UsageError(f"--steps must be at most 201, not {args.steps}")
    poly = polychromatic_of(args)
    steps = args.steps
    defocus = [start + (stop - start) * k / max(1, steps - 1) for k in range(steps)]

    def compute(optic):
        return through_focus_mtf(
            optic,
            args.frequency,
            defocus,
            fields=selected_fields(args, optic),
            wavelength=args.wavelength,
            polychromatic=poly,
            samples=args.samples,
        )

    def text(result, record):
        print(
            f"through-focus MTF at {record['frequency']:g} cycles/mm, {spectrum_line(record)}; "
            f"accuracy {record['accuracy']['mtf']:.2g}"
        )
        for field in record["fields"]:
            print()
            print(f"field ({field['field'][0]:g}, {field['field'][1]:g})")
            rows = zip(record["defocus"], field["tangential"], field["sagittal"])
            print(table(["defocus mm", "tangential", "sagittal"], rows))
        print()
        print(f"best focus {record['best_focus']:.6g} mm")

    return run_report(args, compute, {"plot": through_focus_figure}, text)


def _defocus_values(args, start, stop):
    if args.steps > 201:
        raise UsageError(f"--steps must be at most 201, not {args.steps}")
    steps = args.steps
    return [start + (stop - start) * k / max(1, steps - 1) for k in range(steps)]


def _run_spot(args, start, stop):
    from ..analysis import through_focus_spot
    from ..plot_spots import through_focus_spot_figure

    if args.frequency is not None:
        raise UsageError("--frequency belongs to the MTF mode, not --spot")
    if args.samples is not None:
        raise UsageError("--samples belongs to the MTF mode; --spot takes --rings")
    poly = polychromatic_of(args)
    defocus = _defocus_values(args, start, stop)

    def compute(optic):
        return through_focus_spot(
            optic,
            defocus,
            fields=selected_fields(args, optic),
            wavelength=args.wavelength,
            polychromatic=poly,
            rings=args.rings,
            reference=args.reference,
        )

    def text(result, record, optic=None):
        accuracy = record["accuracy"]["rms"]
        reached = "" if accuracy is None else f"; accuracy {accuracy:.2g}"
        print(
            f"through-focus spot (about the {record['reference']}), {spectrum_line(record)}; "
            f"{record['rings']} rings{reached}"
        )
        for field in record["fields"]:
            print()
            print(f"field ({field['field'][0]:g}, {field['field'][1]:g})")
            rows = [
                (d, _um(r), _um(g))
                for d, r, g in zip(record["defocus"], field["rms"], field["geo"])
            ]
            print(table(["defocus mm", "RMS um", "GEO um"], rows))
            if field["best_focus"] is not None:
                print(f"least RMS at {field['best_focus']:.6g} mm")
        print()
        print(f"best focus {record['best_focus']:.6g} mm (least field-weighted mean square RMS)")

    return run_report(args, compute, {"plot": through_focus_spot_figure}, text)


def _um(value):
    return None if value is None else 1000.0 * value
