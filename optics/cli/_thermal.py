"""``optics thermal``: paraxial and best focus vs temperature, and the athermal summary."""

from __future__ import annotations

import argparse
import math

from ._common import (
    add_backend_options,
    add_lens_options,
    backend_context,
    finite_float,
    lens_from_args,
    positive_int,
    print_json,
    table,
    wavelength_option,
)

MAX_STEPS = 1000
"""Most temperature intervals of one ``optics thermal`` run (``optics.thermal._focus.MAX_STEPS``,
written out so that building the parser does not import the thermal package)."""


def _steps(text):
    value = positive_int(text)
    if value > MAX_STEPS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_STEPS}, not {value}")
    return value


def _temperature(text):
    from ..thermal import ABSOLUTE_ZERO, MAX_TEMPERATURE  # the bounds of Environment

    value = finite_float(text)
    if not ABSOLUTE_ZERO < value <= MAX_TEMPERATURE:
        raise argparse.ArgumentTypeError(
            f"must be above {ABSOLUTE_ZERO:g} °C and at most {MAX_TEMPERATURE:g} °C, not {text!r}"
        )
    return value


def _pressure(text):
    from ..thermal import MAX_PRESSURE

    value = finite_float(text)
    if not 0 <= value <= MAX_PRESSURE:
        raise argparse.ArgumentTypeError(f"must be 0 to {MAX_PRESSURE:g} atm, not {text!r}")
    return value


def register(subparsers):
    parser = subparsers.add_parser(
        "thermal",
        help="focus shift vs temperature and an athermal summary (mm, °C)",
        description="Print the paraxial focus shift (and the best-focus shift of the axial "
        "bundle) against the image surface of LENS at temperatures from --from to --to: the "
        "glasses' indices by Schott's dn/dT formula relative to the air at that temperature "
        "and pressure, the elements and spacers expanded (glass CTE from the catalog, air "
        "gaps by the lens file's [environment] mount_cte, default aluminium 23.6e-6/K), the "
        "shift measured from the lens's own temperature.  Then the athermal summary: focus "
        "drift rate, depth of focus, and dn/dT, CTE and thermo-optic coefficient per glass "
        "(docs/thermal.md).  --json prints one object with the keys temperatures, "
        "focus_shift, best_focus_shift, back_focus, image_distance, efl, "
        "reference_temperature, pressure, wavelength and athermal.",
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument(
        "--from",
        dest="start",
        metavar="T1",
        type=_temperature,
        default=-20.0,
        help="°C (default -20)",
    )
    parser.add_argument(
        "--to", dest="stop", metavar="T2", type=_temperature, default=60.0, help="°C (default 60)"
    )
    parser.add_argument(
        "--steps",
        metavar="N",
        type=_steps,
        default=8,
        help=f"temperature intervals: steps + 1 rows (default 8, at most {MAX_STEPS})",
    )
    parser.add_argument(
        "--pressure",
        metavar="ATM",
        type=_pressure,
        default=None,
        help="air pressure in atm at every temperature (default: the lens file's, else 1)",
    )
    parser.add_argument(
        "--wavelength",
        metavar="UM",
        type=wavelength_option,
        default=None,
        help="µm (default: the primary wavelength)",
    )
    parser.add_argument(
        "--no-best-focus",
        dest="best_focus",
        action="store_false",
        help="skip the traced best-focus column (paraxial only)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..thermal import thermal_focus_shift

    with backend_context(args):
        optic = lens_from_args(args)
        result = thermal_focus_shift(
            optic,
            args.start,
            args.stop,
            args.steps,
            pressure=args.pressure,
            wavelength=args.wavelength,
            best_focus=args.best_focus,
        )
    record = result.as_dict()
    if args.json:
        print_json(record)
        return 0
    _print_text(result)
    return 0


def _print_text(result):
    print(
        f"focus shift against the image surface in mm, from {result.reference_temperature:g} °C, "
        f"at {result.pressure:g} atm and {result.wavelength:g} µm"
    )
    headers = ["T (°C)", "efl", "back focus", "image dist", "focus shift"]
    columns = [result.temperatures, result.efl, result.back_focus, result.image_distance]
    columns.append(result.focus_shift)
    if result.best_focus_shift is not None:
        headers.append("best focus shift")
        columns.append(result.best_focus_shift)
    print(table(headers, list(zip(*columns))))
    summary = result.summary
    print()
    print(
        f"athermal summary at {summary.temperature:g} °C: focus drift "
        f"{summary.focus_rate * 1e3:.4g} µm/K (back focus {summary.back_focus_rate * 1e3:.4g}, "
        f"mount {summary.image_distance_rate * 1e3:.4g} µm/K), d(efl)/dT "
        f"{summary.efl_rate * 1e3:.4g} µm/K"
    )
    largest = max(map(abs, result.focus_shift))
    verdict = "within" if summary.athermal else "outside"
    depth = summary.depth_of_focus
    depth_text = f"±{depth * 1e3:.4g} µm" if math.isfinite(depth) else "unbounded"
    print(
        f"largest focus shift {largest * 1e3:.4g} µm: {verdict} the depth of focus "
        f"{depth_text} (±2 λ N²)"
    )
    if summary.elements:
        rows = [
            (
                e["surface"],
                e["material"],
                e["index"],
                e["dn_dt"] * 1e6,
                e["cte"] * 1e6,
                e["beta"] * 1e6,
            )
            for e in summary.elements
        ]
        print(
            table(["surface", "glass", "n", "dn/dT (1e-6/K)", "CTE (1e-6/K)", "β (1e-6/K)"], rows)
        )
