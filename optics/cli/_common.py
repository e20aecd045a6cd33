"""Pieces shared by the subcommands: backend options, lens loading, output."""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings

import numpy as np

from .. import backend as be
from ..errors import OpticsError
from ..limits import MAX_GRID, MAX_PUPIL_SAMPLES, MAX_RINGS, MAX_TRIALS


def add_backend_options(parser, *, precision=True):
    """Add --backend (and --precision) to a subcommand parser."""
    parser.add_argument(
        "--backend",
        choices=be.backend_names(),
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


def add_wavelength_option(parser, help="micrometres (default: the primary)"):
    """--wavelength W in micrometres (checked finite and positive while parsing)."""
    parser.add_argument("--wavelength", type=wavelength_option, default=None, help=help)


def add_field_option(parser):
    """--field I (repeatable): lens field indices, 0-based (default: every field)."""
    parser.add_argument(
        "--field",
        type=nonnegative_int,
        action="append",
        default=None,
        metavar="I",
        help="field index of the lens, 0-based (repeatable; default: every field)",
    )


def selected_fields(args, optic):
    """The normalized (hx, hy) of the ``--field`` indices (every field when absent)."""
    fields = optic.fields.normalized()
    chosen = getattr(args, "field", None)
    if chosen is None:
        return fields
    for index in chosen:
        if not 0 <= index < len(fields):
            raise UsageError(f"--field must be 0..{len(fields) - 1}, not {index}")
    return [fields[index] for index in chosen]


def field_text(optic, field) -> str:
    """'(0, 0.7) = 14°': a normalized field with its value in the lens's units."""
    hx, hy = float(field[0]), float(field[1])
    top = float(optic.fields.max_magnitude)
    unit = "°" if optic.fields.type == "angle" else " mm"
    where = f"{hy * top:.4g}{unit}" if hx == 0 else f"({hx * top:.4g}, {hy * top:.4g}){unit}"
    return f"({hx:g}, {hy:g}) = {where}"


def add_lens_options(parser):
    """Add --glass-fallback (how a .zmx file's unknown glass is read) to a subcommand parser."""
    parser.add_argument(
        "--glass-fallback",
        choices=["model"],
        default=None,
        help=".zmx files: a glass missing from the glass database becomes the model glass "
        "(nd, vd) written on its GLAS line, with a warning (default: an error)",
    )
    parser.add_argument(
        "--glass-catalog",
        action="append",
        default=[],
        type=_glass_catalog_option,
        metavar="FILE",
        help="a Zemax AGF glass catalog searched first, as the catalog named by its file name "
        "(repeatable; also OPTICS_GLASS_CATALOGS, paths separated by the path separator)",
    )
    parser.add_argument(
        "--glass",
        action="append",
        default=[],
        type=_model_glass_option,
        metavar="NAME=nd,vd",
        help="supply a glass that no catalog has as a model glass, e.g. MY-GLASS=1.5168,64.17 "
        "(repeatable)",
    )

    parser.add_argument(
        "--config",
        type=config_option,
        default=None,
        metavar="N|all",
        help="a lens with configurations (zoom positions ...): analyse configuration N "
        "(1-based), or each one in turn with 'all' (default: the base prescription; "
        "docs/configurations.md)",
    )


def config_option(text):
    """argparse type of --config: a configuration number >= 1, or 'all'."""
    if text.strip().lower() == "all":
        return "all"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a configuration number or 'all', not {text!r}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"configurations are numbered from 1, not {value}")
    return value


_WHOLE_LENS_COMMANDS = ("optimize", "convert", "tolerance")
"""Commands that work on the lens with all its configurations (--config is refused)."""


def run_command(args):
    """Run ``args.func(args)``; with ``--config all`` once per configuration.

    Text output gets a ``# configuration n of N (name)`` line before each run; JSON
    output (``--json``) becomes one object ``{"configurations": [{"config": n, "name":
    ..., "result": {...}}, ...]}``; a file named by ``--output``, ``--plot`` or ``--grid``
    gets ``_config{n}`` before its extension.
    """
    config = getattr(args, "config", None)
    if config is not None and getattr(args, "command", None) in _WHOLE_LENS_COMMANDS:
        raise UsageError(
            f"--config: 'optics {args.command}' works on every configuration of the lens "
            "at once (merit operands take a 'config' key); leave --config out"
        )
    if config != "all":
        return args.func(args)
    import contextlib
    import io
    import os

    lens = lens_from_args(_with_config(args, None))
    count = lens.configuration_count
    names = getattr(lens.configurations, "names", None) or [None] * count
    documents, status = [], 0
    for number in range(1, count + 1):
        one = _with_config(args, number)
        for name in _OUTPUT_OPTIONS:
            path = getattr(args, name, None)
            if isinstance(path, str) and path:
                stem, ext = os.path.splitext(path)
                setattr(one, name, f"{stem}_config{number}{ext}")
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            status = max(status, int(args.func(one) or 0))
        if getattr(args, "json", False):
            document = json.loads(buffer.getvalue() or "null")
            documents.append({"config": number, "name": names[number - 1], "result": document})
        else:
            name = f" ({names[number - 1]})" if names[number - 1] else ""
            sys.stdout.write(f"# configuration {number} of {count}{name}\n{buffer.getvalue()}")
    if getattr(args, "json", False):
        print_json({"configurations": documents})
    return status


_OUTPUT_OPTIONS = ("output", "plot", "grid")
"""Options naming a file a command writes: one file per configuration with --config all."""


def _with_config(args, number):
    copy = argparse.Namespace(**vars(args))
    copy.config = number
    return copy


def _glass_catalog_option(text):
    """argparse type of --glass-catalog: reads and registers the AGF file (every command that
    has the option gets its glasses, whatever loads the lens); the path."""
    from ..io import agf

    try:
        agf.add_glass_catalog(text)
    except OpticsError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    return text


def _model_glass_option(text):
    """argparse type of --glass: ``NAME=nd,vd`` -> (name, nd, vd), registered as it is read."""
    name, equals, numbers = text.partition("=")
    parts = numbers.split(",")
    if not equals or not name.strip() or len(parts) != 2:
        raise argparse.ArgumentTypeError(
            f"expected NAME=nd,vd (e.g. MY-GLASS=1.5168,64.17), not {text!r}"
        )
    try:
        nd, vd = (float(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"nd and vd must be numbers, not {numbers!r}") from None
    if not (math.isfinite(nd) and 1.0 < nd <= 100.0 and math.isfinite(vd) and 0.0 < vd <= 1e6):
        raise argparse.ArgumentTypeError(f"{text!r}: needs 1 < nd <= 100 and 0 < vd <= 1e6")
    from ..materials import add_model_glass

    add_model_glass(name.strip(), nd, vd)
    return name.strip(), nd, vd


def apply_glass_options(args):
    """Read OPTICS_GLASS_CATALOGS (OpticsError on a bad file); --glass-catalog and --glass
    are registered while the command line is parsed."""
    from ..io import agf

    agf.load_environment_catalogs()


def load_lens(path, *, aiming=None, glass_fallback=None):
    """Load a lens file or built-in sample (errors are OpticsError).

    ``aiming`` overrides the lens's ``[aiming] mode``; ``glass_fallback`` is
    passed to the .zmx reader.

    Warnings about a .zmx or .seq file (optics.io.zemax.ZemaxWarning,
    optics.io.codev.CodeVWarning) are printed to
    stderr as one line each: ``optics: warning: ...``.
    """
    from ..io import load
    from ..io.codev import CodeVWarning
    from ..io.zemax import ZemaxWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ZemaxWarning)
        warnings.simplefilter("always", CodeVWarning)
        optic = load(path, glass_fallback=glass_fallback)
    for warning in caught:
        if issubclass(warning.category, (ZemaxWarning, CodeVWarning)):
            print(f"optics: warning: {warning.message}", file=sys.stderr)
        else:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    if aiming is not None:
        optic.aiming = aiming
    return optic


def lens_from_args(args, path=None):
    """:func:`load_lens` of ``path`` (default ``args.lens``) with the command's
    ``--aiming``, ``--glass-fallback``, ``--glass-catalog`` and ``--glass`` options, where
    it has them; with ``--config N`` configuration N of the lens."""
    apply_glass_options(args)
    optic = load_lens(
        args.lens if path is None else path,
        aiming=getattr(args, "aiming", None),
        glass_fallback=getattr(args, "glass_fallback", None),
    )
    config = getattr(args, "config", None)
    if isinstance(config, int):
        aiming = optic.aiming
        optic = optic.configuration(config)
        optic.aiming = aiming
    return optic


def json_number(value):
    """A float for JSON, or None where it is not finite (JSON has no NaN/inf) or missing."""
    if value is None:
        return None
    value = float(be.item(value))
    return value if math.isfinite(value) else None


def json_safe(value):
    """``value`` with every non-finite float (NaN, ±inf) replaced by None, recursively."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if getattr(value, "dtype", None) is not None and getattr(value, "ndim", 0) == 0:
        kind = np.asarray(be.to_numpy(value)).dtype.kind
        if kind == "b":
            return bool(be.to_numpy(value))
        if kind in "iu":
            return int(be.to_numpy(value))
    return json_number(value)  # a float scalar of NumPy or the backend


def print_json(obj):
    """Print exactly one JSON object on stdout: built completely first, then written at once.

    A failure while building it (or a non-finite number, which becomes null)
    therefore never leaves half a document on stdout.
    """
    text = json.dumps(json_safe(obj), indent=1, allow_nan=False)
    sys.stdout.write(text + "\n")


MIN_PUPIL_SAMPLES = 8
"""Fewest pupil samples of an FFT PSF/MTF."""


def samples_option(text):
    """argparse type of --samples: pupil samples from 8 to ``optics.limits.MAX_PUPIL_SAMPLES``."""
    return _bounded_int(text, MIN_PUPIL_SAMPLES, MAX_PUPIL_SAMPLES)


def grid_option(text):
    """argparse type of --grid: an FFT size from 8 to ``optics.limits.MAX_GRID``."""
    return _bounded_int(text, MIN_PUPIL_SAMPLES, MAX_GRID)


def trials_option(text):
    """argparse type of --monte-carlo: 1 to ``optics.limits.MAX_TRIALS`` trials."""
    return _bounded_int(text, 1, MAX_TRIALS)


def wavelength_option(text):
    """argparse type of --wavelength: a finite, positive number of micrometres."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected micrometres, not {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(
            f"must be a finite, positive number of micrometres, not {text!r}"
        )
    return value


def finite_float(text):
    """argparse type: a finite number (no nan, inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, not {text!r}")
    return value


def positive_int(text):
    """argparse type: an integer >= 1."""
    return _bounded_int(text, 1)


def rings_option(text):
    """argparse type of --rings: an integer from 1 to :data:`MAX_RINGS`."""
    return _bounded_int(text, 1, MAX_RINGS)


def nonnegative_int(text):
    """argparse type: an integer >= 0 (e.g. --steps)."""
    return _bounded_int(text, 0)


def _bounded_int(text, lowest, highest=None):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, not {text!r}") from None
    if highest is not None and value > highest:
        raise argparse.ArgumentTypeError(
            f"{value} is more than the limit of {highest} (docs/cli.md, size budget)"
        )
    if value < lowest:
        raise argparse.ArgumentTypeError(f"must be at least {lowest}, not {value}")
    if highest is not None and value > highest:
        raise argparse.ArgumentTypeError(f"must be at most {highest}, not {value}")
    return value


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
