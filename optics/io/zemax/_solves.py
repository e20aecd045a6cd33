"""Zemax solves and pickups: the CURV solve codes, PZUP and MAZH, read and written.

OpticStudio keeps a curvature solve in the CURV line itself (``CURV c type
p1 p2 p3 ""``), a thickness pickup in a PZUP line (``PZUP from scale offset
column``) and a marginal-ray-height thickness solve in a MAZH line (``MAZH
height zone``) of the surface block.  The solves optics has
(:mod:`optics.optimize.solves`) become the surface's ``solve`` and ``pickup``
tables; any other solve is a ZemaxWarning naming the surface and the line,
and the value in the file is kept as a fixed number.
"""

from __future__ import annotations

import warnings

from ._glass import ZemaxWarning

#: CURV solve codes read and written: code -> (optics solve type, its value key).
CURVATURE_CODES = {2: "marginal_ray_angle", 3: "chief_ray_angle", 4: "pickup", 11: "fno"}
#: Codes that are no solve: fixed and variable.
NO_SOLVE = (0, 1)
_CURVATURE_NAMES = {
    5: "marginal ray normal",
    6: "chief ray normal",
    7: "aplanatic",
    8: "element power",
    9: "concentric with surface",
    10: "concentric with radius",
}


def read_solves(block, where, entry, scale):
    """Add ``solve`` / ``pickup`` tables to the surface table ``entry`` from ``block``."""
    record = block.get("CURV")
    if record is not None and len(record.args) > 1:
        _curvature(record, where, entry, scale)
    record = block.get("PZUP")
    if record is not None:
        column = int(record.number(3, where, default=0.0))
        if column not in (0, 2):
            _warn(where, record, f"a thickness pickup from column {column} is not read")
        else:
            spec = {"surface": int(record.number(0, where))}
            _scale_offset(spec, record.number(1, where, 1.0), record.number(2, where, 0.0) * scale)
            entry.setdefault("pickup", {})["thickness"] = spec
    record = block.get("MAZH")
    if record is not None:
        height = record.number(0, where, 0.0) * scale
        zone = record.number(1, where, 0.0)
        if zone != 0.0:
            _warn(
                where,
                record,
                f"a marginal-ray-height solve at pupil zone {zone:g} (a real ray) is not read; "
                "only zone 0 (paraxial) is",
            )
        elif height == 0.0:
            entry.setdefault("solve", {})["thickness"] = {"type": "paraxial_focus"}
        else:
            entry.setdefault("solve", {})["thickness"] = {
                "type": "marginal_ray_height",
                "height": height,
            }


def _curvature(record, where, entry, scale):
    try:
        code = int(float(record.args[1]))
    except ValueError:
        _warn(where, record, f"solve type {record.args[1]!r} is not a number; not read")
        return
    if code in NO_SOLVE:
        return
    kind = CURVATURE_CODES.get(code)
    if kind is None:
        name = _CURVATURE_NAMES.get(code, f"code {code}")
        _warn(
            where,
            record,
            f"the curvature solve {name!r} is not supported; the curvature is "
            "kept as a fixed value",
        )
        return
    p1 = record.number(2, where, 0.0)
    if kind == "pickup":
        spec = {"surface": int(p1)}
        _scale_offset(spec, record.number(3, where, 1.0), record.number(4, where, 0.0) / scale)
        entry.setdefault("pickup", {})["curvature"] = spec
    elif kind == "fno":
        entry.setdefault("solve", {})["curvature"] = {"type": "fno", "fno": p1}
    else:
        spec = {"type": kind}
        if p1 != 0.0:
            spec["slope"] = p1
        entry.setdefault("solve", {})["curvature"] = spec


def _scale_offset(spec, scale, offset):
    if scale != 1.0:
        spec["scale"] = scale
    if offset != 0.0:
        spec["offset"] = offset


def _warn(where, record, message):
    warnings.warn(
        f"{where}: line {record.line}: {record.keyword}: {message}", ZemaxWarning, stacklevel=4
    )


def curvature_line(curvature_text, spec, numbers, where) -> str:
    """The CURV line of a surface table ``spec`` (with its solve), ``numbers`` our -> SURF."""
    solve = spec.get("solve", {}).get("curvature")
    pickup = spec.get("pickup", {}).get("curvature")
    if pickup is not None:
        return (
            f"CURV {curvature_text} 4 {numbers[pickup['surface']]} {pickup.get('scale', 1.0)!r} "
            f'{pickup.get("offset", 0.0)!r} ""'
        )
    if solve is not None:
        code = {v: k for k, v in CURVATURE_CODES.items()}[solve["type"]]
        value = solve["fno"] if solve["type"] == "fno" else solve.get("slope", 0.0)
        return f'CURV {curvature_text} {code} {value!r} 0 0 ""'
    return f'CURV {curvature_text} 0 0 0 0 ""'


def thickness_lines(spec, numbers, where) -> list:
    """PZUP / MAZH lines of a surface table's thickness pickup or solve (after its DISZ)."""
    pickup = spec.get("pickup", {}).get("thickness")
    if pickup is not None:
        return [
            f"PZUP {numbers[pickup['surface']]} {pickup.get('scale', 1.0)!r} "
            f"{pickup.get('offset', 0.0)!r} 0"
        ]
    solve = spec.get("solve", {}).get("thickness")
    if solve is None:
        return []
    if solve["type"] in ("paraxial_focus", "marginal_ray_height"):
        return [f"MAZH {solve.get('height', 0.0)!r} 0"]
    warnings.warn(
        f"{where}: a {solve['type']!r} thickness solve has no .zmx form here and is not "
        "written (the thickness is written as a fixed value)",
        ZemaxWarning,
        stacklevel=4,
    )
    return []
