"""``optics trace``: real rays given in a CSV file, reported at the image surface."""

from __future__ import annotations

import csv

from ..errors import LensFileError
from ._common import (
    add_backend_options,
    add_lens_options,
    backend_context,
    json_number,
    load_lens,
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
        "x, y, z (mm), L, M, N and valid at the image surface for each.",
    )
    parser.add_argument(
        "lens", metavar="LENS", help="lens file (.toml/.json) or built-in sample name"
    )
    parser.add_argument("--rays", required=True, metavar="FILE.csv", help="rays to trace")
    add_backend_options(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON list of ray objects")
    add_lens_options(parser)
    parser.set_defaults(func=run)


def read_rays_csv(path):
    """Rows of the ray CSV as dicts of floats; LensFileError names the file and line."""
    try:
        with open(path, newline="") as handle:
            reader = csv.DictReader(handle)
            header = [h.strip() for h in (reader.fieldnames or [])]
            missing = [k for k in REQUIRED if k not in header]
            if missing:
                raise LensFileError(
                    f"{path}: header must have columns hx,hy,px,py; missing {missing}"
                )
            unknown = [h for h in header if h not in (*REQUIRED, "wavelength")]
            if unknown:
                raise LensFileError(f"{path}: unknown column(s) {unknown}")
            rows = []
            for line, row in enumerate(reader, start=2):
                row = {k.strip(): v for k, v in row.items() if k is not None}
                try:
                    rows.append({k: float(row[k]) for k in header if row.get(k) not in (None, "")})
                except ValueError as exc:
                    raise LensFileError(f"{path}: line {line}: {exc}") from None
                if len(rows[-1]) < 4:
                    raise LensFileError(f"{path}: line {line}: needs values for hx, hy, px, py")
    except OSError as exc:
        raise LensFileError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return rows


def trace_csv_rows(optic, rows):
    """Trace the CSV rows in one batch; result dicts (coordinates None for invalid rays)."""
    from .. import backend as be
    from ..trace import trace_rays

    if not rows:
        return []
    primary = float(optic.primary_wavelength)
    column = {k: be.asarray([float(r[k]) for r in rows]) for k in REQUIRED}
    wavelength = be.asarray([r.get("wavelength", primary) for r in rows])
    rays = trace_rays(optic, column["hx"], column["hy"], column["px"], column["py"], wavelength)
    values = {k: be.to_numpy(getattr(rays, k)) for k in KEYS}
    valid = be.to_numpy(rays.valid)
    results = []
    for i, row in enumerate(rows):
        result = {**row, "wavelength": row.get("wavelength", primary)}
        for key in KEYS:
            result[key] = json_number(values[key][i]) if valid[i] else None
        result["valid"] = bool(valid[i])
        results.append(result)
    return results


def run(args):
    rows = read_rays_csv(args.rays)
    with backend_context(args):
        optic = load_lens(args.lens, getattr(args, "glass_fallback", None))
        results = trace_csv_rows(optic, rows)
    if args.json:
        print_json(results)
        return 0
    headers = [*REQUIRED, "wavelength", *KEYS, "valid"]
    body = [[r[h] if r[h] is not None else float("nan") for h in headers] for r in results]
    print(table(headers, body))
    return 0
