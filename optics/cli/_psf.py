"""``optics psf``: FFT point spread function and Strehl ratio of one field."""

from __future__ import annotations

from ..plot import check_image_path, save_figure
from ..trace import Streamed
from ._common import (
    UsageError,
    add_aiming_option,
    add_backend_options,
    add_lens_options,
    backend_context,
    field_text,
    finite_float,
    grid_option,
    lens_from_args,
    print_json,
    samples_option,
    table,
)
from ._spectrum import add_polychromatic_option, polychromatic_of, spectrum_line
from ._wavefront import add_wavelength_option


def register(subparsers):
    parser = subparsers.add_parser(
        "psf",
        help="FFT point spread function and Strehl ratio of one field",
        description="Compute the FFT PSF of field I of LENS (normalized so the unaberrated "
        "peak is 1, so its peak is the Strehl ratio), print the Strehl ratio, the sampling "
        "and the encircled energy, and optionally plot the image.",
    )
    parser.add_argument(
        "lens", metavar="LENS", help="lens file (.toml/.json) or built-in sample name"
    )
    parser.add_argument("--field", type=int, default=0, metavar="I", help="field index (default 0)")
    add_wavelength_option(parser)
    add_polychromatic_option(parser)
    parser.add_argument(
        "--samples",
        type=samples_option,
        default=None,
        help="pupil samples N (8-1024; default: doubled until the Strehl ratio changes by < 0.005)",
    )
    parser.add_argument(
        "--grid",
        type=grid_option,
        default=None,
        help="image pixels across (default: a quarter Airy radius each; at most 4096)",
    )
    parser.add_argument("--log", action="store_true", help="plot on a logarithmic scale")
    parser.add_argument(
        "--width",
        type=finite_float,
        default=None,
        metavar="UM",
        help="displayed width of the PSF plot in µm (default: 1.5 x the 95 %% energy "
        "diameter, at least 5 Airy radii)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", metavar="OUT.png", help="write the PSF image to a file")
    add_chunk_options(parser)
    add_backend_options(parser)
    add_aiming_option(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def add_chunk_options(parser):
    """--chunk-rays N and --progress: stream the pupil trace in slices, with a progress bar."""
    parser.add_argument(
        "--chunk-rays",
        type=int,
        default=None,
        metavar="N",
        help="trace at most N pupil rays at a time (bounded memory, the same numbers)",
    )
    parser.add_argument(
        "--progress",
        action="store_true",
        help="with --chunk-rays: show a progress bar on stderr even when it is not a terminal "
        "(on a terminal it shows anyway)",
    )


def chunk_options(args) -> dict:
    """The ``method`` keyword argument from the parsed options (streamed with --chunk-rays)."""
    if args.chunk_rays is None:
        return {}
    if args.chunk_rays < 1:
        raise UsageError(f"--chunk-rays must be at least 1, not {args.chunk_rays}")
    return {"method": Streamed(args.chunk_rays, progress=True if args.progress else None)}


def run(args):
    from .. import backend as be
    from ..analysis._psf import psf
    from ..analysis.encircled_energy import psf_encircled_energy

    if args.plot:
        check_image_path(args.plot)  # before the work, not after it
    with backend_context(args):
        optic = lens_from_args(args)
        fields = optic.fields.normalized()
        if not 0 <= args.field < len(fields):
            raise UsageError(f"--field must be 0..{len(fields) - 1}, not {args.field}")
        if args.samples is not None and args.samples < 8:
            raise UsageError(f"--samples must be at least 8, not {args.samples}")
        if args.width is not None and not args.width > 0:
            raise UsageError(f"--width must be positive (µm), not {args.width:g}")
        if args.grid is not None and args.grid < 8:
            raise UsageError(f"--grid must be at least 8 pixels, not {args.grid}")
        result = psf(
            optic,
            fields[args.field],
            args.wavelength,
            samples=args.samples,
            grid=args.grid,
            polychromatic=polychromatic_of(args),
            **chunk_options(args),
        )
        pixel = min(float(be.item(result.dx)), float(be.item(result.dy)))
        radii = [pixel * k for k in (1, 2, 4, 8, 16)]
        energy = psf_encircled_energy(result, radii)
        if args.plot:
            from ..plot_wavefront import psf_figure

            width = None if args.width is None else args.width * 1e-3
            figure = psf_figure(
                result, log=args.log, width=width, name=optic.name or args.lens, optic=optic
            )
            save_figure(figure, args.plot)
    report = {
        "field": list(result.field),
        "wavelength": result.wavelength,
        "wavelengths": list(result.wavelengths),
        "weights": list(result.weights),
        "polychromatic": result.polychromatic,
        "strehl": float(be.item(result.strehl)),
        "accuracy": {"strehl": result.accuracy, "tolerance": 0.005},
        "peak_mm": [float(v) for v in result.peak],
        "samples": result.samples,
        "grid": result.grid,
        "pixel_mm": [float(be.item(result.dx)), float(be.item(result.dy))],
        "encircled_energy": {
            "radius_mm": radii,
            "fraction": [float(v) for v in be.to_numpy(energy.encircled)],
        },
    }
    if args.json:
        print_json(report)
        return 0
    print(f"field {field_text(optic, report['field'])}, {spectrum_line(report)}")
    print(
        f"Strehl ratio {report['strehl']:.6g} +- {result.accuracy:.2g}  "
        f"(N = {result.samples} pupil samples, {result.grid} x {result.grid} pixels)"
    )
    print()
    rows = zip((r * 1000 for r in radii), report["encircled_energy"]["fraction"])
    print(table(["radius um", "encircled energy"], rows))
    if args.plot:
        print(f"wrote {args.plot}")
    return 0
