"""``optics wavefront``: RMS/P-V wavefront error, Strehl ratio and Fringe Zernikes per field."""

from __future__ import annotations

from ..plot import check_image_path, save_figure
from ._common import (
    UsageError,
    add_aiming_option,
    add_backend_options,
    add_field_option,
    add_lens_options,
    add_wavelength_option,
    backend_context,
    lens_from_args,
    print_json,
    rings_option,
    selected_fields,
    table,
)


def register(subparsers):
    parser = subparsers.add_parser(
        "wavefront",
        help="wavefront error (RMS, P-V), Strehl ratio and Zernike terms per field",
        description="Print, per field of LENS at one wavelength, the OPD against the reference "
        "sphere (docs/wavefront.md) as RMS to the chief ray, RMS with piston removed, RMS to "
        "the centroid (piston and tilt removed) and P-V, all in waves over a Gauss-Legendre "
        "pupil quadrature; the FFT Strehl ratio; and the 37 Fringe Zernike coefficients.",
    )
    parser.add_argument(
        "lens", metavar="LENS", help="lens file (.toml/.json) or built-in sample name"
    )
    add_wavelength_option(parser)
    parser.add_argument(
        "--rings",
        type=rings_option,
        default=16,
        help="Gauss-Legendre radial nodes (default 16; at most 500)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per field list")
    parser.add_argument("--plot", metavar="OUT.png", help="write the OPD maps to an image file")
    add_backend_options(parser)
    add_field_option(parser)
    add_aiming_option(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def wavefront_report(optic, wavelength, rings, fields=None):
    """Per-field records (the --json list) and the WavefrontResults for plots."""
    from ..analysis._psf import psf
    from ..analysis._wavefront import wavefront

    records, results = [], []
    for field in optic.fields.normalized() if fields is None else fields:
        result = wavefront(optic, field, wavelength, rings=rings)
        record = result.as_dict()
        record["strehl"] = float(psf(optic, field, wavelength, polychromatic=False).strehl)
        records.append(record)
        results.append(result)
    return records, results


def run(args):
    if args.rings < 1:
        raise UsageError(f"--rings must be at least 1, not {args.rings}")
    if args.plot:
        check_image_path(args.plot)  # before the work, not after it
    with backend_context(args):
        optic = lens_from_args(args)
        fields = selected_fields(args, optic)
        records, results = wavefront_report(optic, args.wavelength, args.rings, fields)
        if args.plot:
            from ..plot_wavefront import opd_map_figure

            save_figure(opd_map_figure(results, optic), args.plot)
    if args.json:
        print_json(records)
        return 0
    keys = ("rms_waves", "rms_piston_removed_waves", "rms_to_centroid_waves", "pv_waves", "strehl")
    headers = ["field", "wavelength", "rms", "rms piston", "rms centroid", "p-v", "strehl"]
    rows = [
        [f"({r['field'][0]:g}, {r['field'][1]:g})", r["wavelength"], *(r[k] for k in keys)]
        for r in records
    ]
    print("OPD in waves against the chief ray's reference sphere")
    print(table(headers, rows))
    if args.plot:
        print(f"wrote {args.plot}")
    return 0
