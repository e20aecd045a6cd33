"""Pieces shared by the subcommands: backend options, lens loading, output."""

from __future__ import annotations

import json
import math
import sys

from .. import backend as be
from ..errors import OpticsError


def add_backend_options(parser, *, precision=True):
    """Add --backend (and --precision) to a subcommand parser."""
    parser.add_argument(
        "--backend",
        choices=["numpy", "torch"],
        default=None,
        help="array backend (default: OPTICS_BACKEND or numpy)",
    )
    if precision:
        parser.add_argument(
            "--precision",
            choices=["float64", "float32"],
            default=None,
            help="float precision (default: OPTICS_PRECISION or float64)",
        )


def backend_context(args):
    """``be.using(...)`` for the parsed --backend/--precision options."""
    return be.using(getattr(args, "backend", None), precision=getattr(args, "precision", None))


def add_aiming_option(parser):
    """Add --aiming paraxial|real (overrides the lens file's ``[aiming] mode``)."""
    parser.add_argument(
        "--aiming",
        choices=["paraxial", "real"],
        default=None,
        help="ray aiming: 'paraxial' (pupil points on the paraxial entrance pupil) or 'real' "
        "(on the stop); default: the lens file's [aiming] mode",
    )


def load_lens(path, aiming=None):
    """Load a lens file or sample (errors are OpticsError); ``aiming`` overrides its mode."""
    from ..io import load

    optic = load(path)
    if aiming is not None:
        optic.aiming = aiming
    return optic


def json_number(value):
    """A float for JSON, or None where it is not finite (JSON has no NaN/inf)."""
    if value is None:  # already "not a number" (SpotResult.as_dict writes NaN as None)
        return None
    value = float(be.item(value))
    return value if math.isfinite(value) else None


def print_json(obj):
    """Print exactly one JSON object on stdout."""
    json.dump(obj, sys.stdout, indent=1, allow_nan=False)
    sys.stdout.write("\n")


def table(headers, rows) -> str:
    """A plain text table with right-aligned columns."""
    cells = [[str(h) for h in headers]] + [[_cell(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _cell(value):
    if isinstance(value, float):
        return f"{value:.6g}" if value == value else "nan"
    return str(value)


class UsageError(OpticsError):
    """A command-line value that cannot be used (exit status 2)."""
