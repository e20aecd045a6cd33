"""``optics gradcheck``: autograd derivatives of a lens metric next to finite differences."""

from __future__ import annotations

from .. import backend as be
from ._common import add_lens_options, lens_from_args, print_json, table


def register(subparsers):
    parser = subparsers.add_parser(
        "gradcheck",
        help="check autograd derivatives against finite differences",
        description="Differentiate a metric of LENS with respect to lens parameters by automatic "
        "differentiation (torch autograd or jax.grad, float64) and by central finite differences "
        "at two steps h and h/2, and print their relative difference. Newton surfaces are solved "
        "to round-off for the check.",
        epilog="PATH examples: surfaces[3].radius, surfaces[3].conic, surfaces[2].thickness, "
        "surfaces[3].coefficients[2], surfaces[6].coefficients[1][2], surfaces[1].terms[0], "
        "surfaces[2].material.index (see docs/surfaces.md).",
    )
    parser.add_argument(
        "lens", metavar="LENS", help="lens file (.toml/.json) or built-in sample name"
    )
    parser.add_argument(
        "--param",
        dest="params",
        metavar="PATH",
        action="append",
        required=True,
        help="parameter path to differentiate with respect to (repeatable)",
    )
    parser.add_argument(
        "--metric",
        choices=["rms_spot", "efl"],
        default="rms_spot",
        help="rms_spot: mean RMS spot radius about the centroid over the fields at the primary "
        "wavelength (hexapolar, 6 rings); efl: paraxial focal length (default rms_spot)",
    )
    parser.add_argument(
        "--backend",
        choices=[n for n in be.backend_names() if be.autodiff_kind(n)],
        default=None,
        help="the differentiating backend (default: torch when installed, else jax)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    from ..gradcheck import check_gradients

    optic = lens_from_args(args)
    report = check_gradients(optic, args.params, args.metric, backend=args.backend)
    if args.json:
        print_json(report)
        return 0
    print(f"{report['metric']} = {report['value']:.12g}")
    rows = [
        (p["path"], p["autograd"], p["fd"], p["fd_half_step"], f"{p['rel_err']:.2e}")
        for p in report["params"]
    ]
    print(table(["path", "autograd", "fd(h)", "fd(h/2)", "rel_err"], rows))
    return 0
