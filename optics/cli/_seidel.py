"""``optics seidel``: Seidel third-order sums per surface and in total (Welford's convention)."""

from __future__ import annotations

from ..plot import check_image_path, save_figure
from ._common import (
    UsageError,
    add_backend_options,
    add_lens_options,
    backend_context,
    lens_from_args,
    print_json,
    table,
)


def register(subparsers):
    parser = subparsers.add_parser(
        "seidel",
        help="Seidel third-order sums S1..S5, CL, CT per surface (mm) and wavefront terms",
        description="Print the Seidel sums of LENS from its paraxial marginal and chief rays "
        "(Welford's convention, Zemax's 'Seidel coefficients'; docs/analyses.md): S1 spherical, "
        "S2 coma, S3 astigmatism, S4 Petzval, S5 distortion, CL axial and CT lateral colour "
        "(from the shortest and longest wavelength), per surface (the object is 0) and in total, "
        "in mm, and the wavefront coefficients W040 ... in waves.",
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument(
        "--wavelength",
        type=float,
        default=None,
        help="µm of the marginal and chief rays (default: the primary)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--plot", metavar="OUT.png", help="write a bar chart per surface")
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from .. import backend as be
    from ..analysis._seidel import SEIDEL_TERMS, seidel, wavefront_coefficients

    if args.plot:
        check_image_path(args.plot)
    if args.wavelength is not None and not args.wavelength > 0:
        raise UsageError(f"--wavelength must be positive (µm), not {args.wavelength:g}")
    with backend_context(args):
        optic = lens_from_args(args)
        result = seidel(optic, args.wavelength)
        record = result.as_dict()
        if args.plot:
            from ..plot_analyses import seidel_figure

            save_figure(seidel_figure(result, optic), args.plot)
    if args.json:
        print_json(record)
        return 0
    rows = [[r["surface"], *(r[k] for k in SEIDEL_TERMS)] for r in record["surfaces"]]
    rows.append(["sum", *(record["sums"][k] for k in SEIDEL_TERMS)])
    print(
        f"Seidel sums in mm at {record['wavelength']:g} µm (CL, CT: "
        f"{result.short:g} - {result.long:g} µm)"
    )
    print(table(["surface", *SEIDEL_TERMS], rows))
    waves = {k: float(be.item(v)) for k, v in wavefront_coefficients(result).items()}
    print("\nwavefront coefficients in waves")
    print(table(list(waves), [list(waves.values())]))
    if args.plot:
        print(f"wrote {args.plot}")
    return 0
