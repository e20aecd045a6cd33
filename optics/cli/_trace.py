"""``optics trace``: real rays given in a CSV file, reported at the image surface."""

from __future__ import annotations

import csv
import math

from ..errors import LensFileError
from ..io._files import open_text
from ._common import (
    add_aiming_option,
    add_backend_options,
    add_lens_options,
    backend_context,
    json_number,
    lens_from_args,
    print_json,
    table,
)

REQUIRED = ("hx", "hy", "px", "py")
KEYS = ("x", "y", "z", "L", "M", "N")


def register(subparsers):
    parser = subparsers.add_parser(
        "trace",
        help="trace rays listed in a CSV file",
        description="Trace the rays of FILE.csv (header hx,hy,px,py and an optional wavelength "
        "column in micrometres; normalized field and pupil coordinates) through LENS and print "
        "x, y, z (mm), L, M, N and valid at the image surface for each; --json adds "
        "opd_waves, the OPD in waves against the field's chief ray and reference sphere.",
    )
    parser.add_argument(
        "lens", metavar="LENS", help="lens file (.toml/.json) or built-in sample name"
    )
    parser.add_argument("--rays", required=True, metavar="FILE.csv", help="rays to trace")
    add_aiming_option(parser)
    add_backend_options(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON list of ray objects")
    add_lens_options(parser)
    parser.set_defaults(func=run)


def read_rays_csv(path, *, with_lines=False):
    """Rows of the ray CSV as dicts of floats; LensFileError names the file and line.

    A UTF-8 byte-order mark (as spreadsheet programs write) is skipped.  Every
    value must be a finite number and a wavelength a positive one (µm).  With
    ``with_lines`` the file's line number of each row comes back too:
    ``(rows, lines)``.
    """
    try:
        with open_text(path, str(path), "ray file", newline="", encoding="utf-8-sig") as handle:
            rows, lines = _read_rows(csv.reader(handle), path)
            return (rows, lines) if with_lines else rows
    except OSError as exc:
        raise LensFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise LensFileError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except csv.Error as exc:
        raise LensFileError(f"{path}: not a readable CSV file: {exc}") from None


def _read_rows(reader, path):
    header = [h.strip() for h in next(reader, [])]
    missing = [k for k in REQUIRED if k not in header]
    if missing:
        raise LensFileError(f"{path}: header must have columns hx,hy,px,py; missing {missing}")
    unknown = [h for h in header if h not in (*REQUIRED, "wavelength")]
    if unknown:
        raise LensFileError(f"{path}: unknown column(s) {unknown}")
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise LensFileError(f"{path}: column(s) {repeated} appear more than once in the header")
    rows, lines = [], []
    for values in reader:
        line = reader.line_num
        if not any(v.strip() for v in values):
            continue  # a blank line
        if len(values) > len(header):
            raise LensFileError(
                f"{path}: line {line}: {len(values)} values for {len(header)} columns"
            )
        row = {}
        for key, text in zip(header, values):
            if text.strip():
                row[key] = _ray_value(text, key, path, line)
        absent = [k for k in REQUIRED if k not in row]
        if absent:
            raise LensFileError(f"{path}: line {line}: needs values for hx, hy, px, py")
        rows.append(row)
        lines.append(line)
    return rows, lines


def check_field_angles(optic, rows, lines, path):
    """Refuse rows whose normalized field is a field angle of 90° or more (angle fields only)."""
    if optic.fields.type != "angle":
        return
    largest = float(optic.fields.max_magnitude)
    for row, line in zip(rows, lines):
        worst = max(abs(row["hx"]), abs(row["hy"])) * largest
        if worst >= 90.0:
            raise LensFileError(
                f"{path}: line {line}: hx, hy = {row['hx']:g}, {row['hy']:g} is a field angle "
                f"of {worst:g}° (hx or hy = 1 is the largest field, {largest:g}°); field "
                "angles must be under 90°"
            )


def _ray_value(text, key, path, line):
    """One CSV value as a finite float (a positive one for the wavelength)."""
    try:
        value = float(text)
    except ValueError:
        raise LensFileError(
            f"{path}: line {line}: {key} = {text.strip()!r} is not a number"
        ) from None
    if not math.isfinite(value):
        raise LensFileError(f"{path}: line {line}: {key} = {text.strip()} must be a finite number")
    if key == "wavelength" and not value > 0:
        raise LensFileError(
            f"{path}: line {line}: wavelength = {text.strip()} must be positive (µm)"
        )
    return value


def trace_csv_rows(optic, rows):
    """Trace the CSV rows in one batch; result dicts (coordinates None for invalid rays)."""
    from .. import backend as be
    from ..analysis._opd import opd
    from ..trace import trace_rays

    if not rows:
        return []
    primary = float(optic.primary_wavelength)
    column = {k: be.asarray([float(r[k]) for r in rows]) for k in REQUIRED}
    wavelength = be.asarray([r.get("wavelength", primary) for r in rows])
    rays = trace_rays(optic, (column["hx"], column["hy"]), (column["px"], column["py"]), wavelength)
    values = {k: be.to_numpy(getattr(rays, k)) for k in KEYS}
    valid = be.to_numpy(rays.valid)
    waves, waves_valid = (
        be.to_numpy(a) for a in opd(optic, *(column[k] for k in REQUIRED), wavelength)
    )
    results = []
    for i, row in enumerate(rows):
        result = {**row, "wavelength": row.get("wavelength", primary)}
        for key in KEYS:
            result[key] = json_number(values[key][i]) if valid[i] else None
        result["valid"] = bool(valid[i])
        # OPD against the ray's field's chief ray and reference sphere (docs/wavefront.md).
        result["opd_waves"] = json_number(waves[i]) if waves_valid[i] else None
        results.append(result)
    return results


def run(args):
    rows, lines = read_rays_csv(args.rays, with_lines=True)
    with backend_context(args):
        optic = lens_from_args(args)
        check_field_angles(optic, rows, lines, args.rays)
        results = trace_csv_rows(optic, rows)
    if args.json:
        print_json(results)
        return 0
    headers = [*REQUIRED, "wavelength", *KEYS, "valid"]
    body = [[r[h] if r[h] is not None else float("nan") for h in headers] for r in results]
    print(table(headers, body))
    return 0
