"""``optics through-focus``: MTF at one frequency against image-surface defocus, best focus."""

from __future__ import annotations

import math

from ._common import (
    UsageError,
    add_aiming_option,
    add_backend_options,
    add_lens_options,
    positive_int,
    samples_option,
    table,
)
from ._report import add_report_options, run_report
from ._spectrum import add_polychromatic_option, polychromatic_of, spectrum_line
from ._wavefront import add_wavelength_option


def register(subparsers):
    parser = subparsers.add_parser(
        "through-focus",
        help="MTF at one frequency against defocus per field, and the best focus",
        description="Move the image surface of LENS along z by each defocus from A to B mm "
        "(positive away from the lens) and print the tangential and sagittal MTF at "
        "--frequency per field (polychromatic when the lens has several wavelengths), and "
        "the best focus: the defocus of the highest field-weighted mean (T + S) / 2 "
        "(docs/wavefront.md).",
    )
    add_report_options(parser, "write the through-focus curves to an image file")
    parser.add_argument("--frequency", type=float, required=True, metavar="F", help="cycles/mm")
    parser.add_argument(
        "--defocus",
        default="0.1",
        metavar="A,B",
        help="first and last defocus in mm, or D for -D,D (default 0.1; a negative A "
        "needs the = form: --defocus=-0.2,0.1)",
    )
    parser.add_argument(
        "--steps", type=positive_int, default=11, help="defocus values (default 11)"
    )
    add_wavelength_option(parser)
    add_polychromatic_option(parser)
    parser.add_argument(
        "--samples", type=samples_option, default=None, help="pupil samples N (8-1024)"
    )
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
