"""``optics seidel``: Seidel third-order sums per surface and in total (Welford's convention)."""

from __future__ import annotations

from ._common import (
    add_backend_options,
    add_lens_options,
    table,
)
from ._report import add_report_options, check_wavelength_option, run_report


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
    add_report_options(parser, "write a bar chart per surface")
    parser.add_argument(
        "--wavelength",
        type=float,
        default=None,
        help="µm of the marginal and chief rays (default: the primary)",
    )
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from .. import backend as be
    from ..analysis._seidel import SEIDEL_TERMS, seidel, wavefront_coefficients
    from ..plot_analyses import seidel_figure

    check_wavelength_option(args)

    def text(result, record):
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

    def compute(optic):
        return seidel(optic, args.wavelength)

    return run_report(args, compute, {"plot": seidel_figure}, text)
