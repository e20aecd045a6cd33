"""``optics mtf``: diffraction MTF per field (tangential, sagittal) with the diffraction limit."""

from __future__ import annotations

import math
import warnings

from ..limits import MAX_FREQUENCIES
from ..plot import check_image_path, save_figure
from ._common import (
    UsageError,
    add_aiming_option,
    add_backend_options,
    add_field_option,
    add_lens_options,
    backend_context,
    field_text,
    lens_from_args,
    print_json,
    samples_option,
    selected_fields,
    table,
)
from ._psf import add_chunk_options, chunk_options
from ._spectrum import add_polychromatic_option, polychromatic_of, spectrum_line
from ._wavefront import add_wavelength_option


def register(subparsers):
    parser = subparsers.add_parser(
        "mtf",
        help="diffraction MTF per field with the diffraction limit",
        description="Print the FFT (diffraction) MTF of LENS per field, tangential (along the "
        "field's y direction) and sagittal, at the given spatial frequencies in cycles/mm on "
        "the image surface, with the diffraction-limited curve and its cutoff "
        "1/(wavelength x working F/#). --geometric reports the geometric MTF (from the "
        "ray density of the spot) instead, for heavily aberrated systems.",
    )
    parser.add_argument(
        "lens", metavar="LENS", help="lens file (.toml/.json) or built-in sample name"
    )
    parser.add_argument(
        "--frequencies",
        metavar="F1,F2,...",
        help="cycles/mm (default: ten steps up to the on-axis cutoff)",
    )
    add_wavelength_option(parser)
    add_polychromatic_option(parser)
    parser.add_argument(
        "--max-frequency",
        type=float,
        default=None,
        metavar="F",
        help="cycles/mm: the default frequencies and the plot run up to F (default: the cutoff)",
    )
    parser.add_argument(
        "--samples",
        type=samples_option,
        default=None,
        help="pupil samples N, 8-1024 (default: doubled until the MTF changes by < 0.01)",
    )
    parser.add_argument(
        "--geometric",
        action="store_true",
        help="geometric MTF from the ray density instead of the diffraction MTF",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--plot", metavar="OUT.png", help="write the diffraction MTF curves to an image file"
    )
    add_chunk_options(parser)
    add_backend_options(parser)
    add_field_option(parser)
    add_aiming_option(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def parse_frequencies(text):
    """ "10,25,50" -> [10.0, 25.0, 50.0]; UsageError on anything else."""
    if text is None:
        return None
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise UsageError(
            f"--frequencies must be numbers separated by commas, not {text!r}"
        ) from None
    if not values or not all(math.isfinite(v) and v >= 0 for v in values):
        raise UsageError(f"--frequencies must be finite, non-negative cycles/mm, not {text!r}")
    if len(values) > MAX_FREQUENCIES:
        raise UsageError(
            f"--frequencies: {len(values)} frequencies, more than the limit of {MAX_FREQUENCIES}"
        )
    return values


def _replace_with_geometric(optic, report, wavelength):
    """Tangential and sagittal curves of ``report`` replaced by the geometric MTF."""
    from .. import backend as be
    from ..analysis._mtf import geometric_mtf

    for field in report["fields"]:
        curves = geometric_mtf(optic, tuple(field["field"]), field["frequencies"], wavelength)
        field["tangential"], field["sagittal"] = (
            [float(v) for v in be.to_numpy(c)] for c in curves
        )


def run(args):
    from .. import backend as be
    from ..analysis._mtf import mtf

    frequencies = parse_frequencies(args.frequencies)
    poly = polychromatic_of(args)
    top = args.max_frequency
    if top is not None and not (math.isfinite(top) and top > 0):
        raise UsageError(f"--max-frequency must be a positive number of cycles/mm, not {top}")
    if frequencies is None and top is not None:
        frequencies = [top * k / 10 for k in range(11)]
    if args.samples is not None and args.samples < 8:
        raise UsageError(f"--samples must be at least 8, not {args.samples}")
    chunks = chunk_options(args)
    if args.plot:
        check_image_path(args.plot)  # before the work, not after it
    with backend_context(args):
        optic = lens_from_args(args)
        options = dict(polychromatic=poly, **chunks)
        fields = selected_fields(args, optic)
        result = mtf(optic, fields, frequencies, args.wavelength, samples=args.samples, **options)
        if args.plot:
            from ..plot_wavefront import mtf_figure

            end = float(be.item(result.cutoff[0])) if top is None else top
            curve = [end * k / 100 for k in range(101)]
            with warnings.catch_warnings():  # the curves' accuracy is the table's
                warnings.simplefilter("ignore")
                dense = mtf(
                    optic, fields, curve, args.wavelength, samples=result.samples, **options
                )
            save_figure(mtf_figure(dense, name=optic.name, optic=optic), args.plot)
        report = result.as_dict()
        if args.geometric:
            _replace_with_geometric(optic, report, args.wavelength)
    for field in report["fields"]:
        if not all(v == v for v in field["tangential"]):  # NaN: no ray reached the image
            hx, hy = field["field"]
            warnings.warn(
                f"field ({hx:g}, {hy:g}) is fully vignetted: no pupil ray reaches the image, so "
                "it has no MTF (null in JSON, nan in the table)",
                stacklevel=1,
            )
    if args.json:
        print_json(report)
        return 0
    kind = "geometric" if args.geometric else "diffraction"
    print(f"{kind} MTF, {spectrum_line(report)}; cutoff {report['cutoff']:.6g} cycles/mm")
    if not args.geometric:
        accuracy = report["accuracy"]
        print(
            f"accuracy {accuracy['mtf']:.2g} (tolerance {accuracy['tolerance']:g}), "
            f"{report['samples']} pupil samples"
        )
    for field in report["fields"]:
        print()
        print(f"field {field_text(optic, field['field'])}")
        rows = zip(
            field["frequencies"],
            field["tangential"],
            field["sagittal"],
            field["diffraction_limit"],
        )
        print(table(["cycles/mm", "tangential", "sagittal", "diffraction limit"], rows))
    if args.plot:
        print(f"wrote {args.plot}")
    return 0
