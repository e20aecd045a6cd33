"""Zemax multi-configuration data (MNUM and the operand records) <-> ``[configurations]``.

OpticStudio writes ``MNUM count current`` and then, operand by operand, one record per
configuration::

    THIC 5 1 10.0 0 0 0 1 1 1 0 0 "" 0     # operand, parameter, configuration, value, ...
    THIC 5 2 20.0 0 0 0 1 1 1 0 0 "" 0

Read and written: THIC, CRVT, CONN (surface), APER, XFIE/YFIE (field number), WAVE
(wavelength number), GLSS (surface; the value is a glass name), STPS (the stop
surface), TEMP, PRES.  MOFF (an empty row) is skipped; any other operand is skipped
with a :class:`ZemaxWarning` naming it and its line.  Surface numbers are the file's
(one optics surface per SURF block).  docs/configurations.md lists the mapping.
"""

from __future__ import annotations

import re
import warnings

from ...errors import LensFileError
from ...limits import MAX_CONFIGURATIONS
from ._glass import ZemaxWarning

__all__ = ["read_configurations", "configuration_lines"]

_SURFACE = {"THIC": "thickness", "CRVT": "curvature", "CONN": "conic"}
_SCALED = {"THIC": 1, "CRVT": -1}  # power of the unit scale each value carries
_KEY = re.compile(r"^surfaces\[(\d+)\]\.(thickness|curvature|radius|conic|material)$")
_FIELD_KEY = re.compile(r"^fields\.values\[(\d+)\]\[([01])\]$")
_WAVE_KEY = re.compile(r"^wavelengths\.values\[(\d+)\]$")
_TAIL = '0 0 0 1 1 1 0 0 "" 0'


def _is_row(record) -> bool:
    """An operand row has a parameter, a configuration number and a value (and comes
    after MNUM, as OpticStudio writes it: header lines such as FTYP come before)."""
    return len(record.args) >= 3 and record.args[1].lstrip("-").isdigit()


def read_configurations(zmx, source, scale, aperture_type, field_type="angle"):
    """The ``[configurations]`` table of a file's multi-configuration data, or None.

    Operand rows (the records after MNUM) are taken out of the header (so a TEMP row
    is not read as the system temperature).  LensFileError for a configuration number out of range.
    """
    mnum = zmx.get("MNUM")
    for block in zmx.surfaces:  # OpticStudio writes MNUM after the last SURF block
        mnum = mnum or block.get("MNUM")
    keywords = [k for k in zmx.header if k not in ("MNUM",)]
    rows, order = {}, []
    count = 1
    if mnum is not None and mnum.args:
        count = mnum.integer(0, source, lowest=1, highest=MAX_CONFIGURATIONS)
    for keyword in keywords:
        if keyword == "MOFF" or not keyword.isalpha() or len(keyword) != 4:
            continue
        records = zmx.header[keyword]
        after = [mnum is not None and r.line > mnum.line and _is_row(r) for r in records]
        kept = [r for r, row in zip(records, after) if not row]
        taken = [r for r, row in zip(records, after) if row]
        if not taken:
            continue
        zmx.header[keyword] = kept
        for record in taken:
            key = _key(record, source, aperture_type)
            if key is None:
                continue
            config = record.integer(1, source, lowest=1, highest=count)
            value = _value(record, source, scale, aperture_type, field_type)
            if key not in rows:
                rows[key] = [None] * count
                order.append(key)
            rows[key][config - 1] = value
    zmx.header.pop("MOFF", None)
    if count <= 1 or not rows:
        return None
    for key in order:
        missing = [i + 1 for i, v in enumerate(rows[key]) if v is None]
        if missing:
            raise LensFileError(
                f"{source}: multi-configuration operand for {key!r} has no value for "
                f"configuration(s) {missing}"
            )
    return {"count": count, "values": {key: rows[key] for key in order}}


def _key(record, source, aperture_type):
    kind = record.keyword
    where = f"{source}: line {record.line}"
    if kind in _SURFACE or kind == "GLSS":
        surface = record.integer(0, where, lowest=0)
        return f"surfaces[{surface}].{_SURFACE.get(kind, 'material')}"
    if kind in ("XFIE", "YFIE"):
        number = record.integer(0, where, lowest=1)
        return f"fields.values[{number - 1}][{0 if kind == 'XFIE' else 1}]"
    if kind == "WAVE":
        return f"wavelengths.values[{record.integer(0, where, lowest=1) - 1}]"
    if kind == "APER":
        return "aperture.value"
    if kind == "STPS":
        return "stop"
    if kind == "TEMP":
        return "temperature"
    if kind == "PRES":
        return "pressure"
    warnings.warn(
        f"{where}: multi-configuration operand {kind} is not supported and is skipped "
        "(supported: THIC, CRVT, CONN, GLSS, APER, XFIE, YFIE, WAVE, STPS, TEMP, PRES)",
        ZemaxWarning,
        stacklevel=4,
    )
    return None


def _value(record, source, scale, aperture_type, field_type):
    kind = record.keyword
    where = f"{source}: line {record.line}"
    if kind == "GLSS":
        name = record.args[2].strip('"')
        return name or "air"
    value = record.number(2, where)
    if kind == "STPS":
        return int(value)
    power = _SCALED.get(kind, 0)
    heights = kind in ("XFIE", "YFIE") and field_type != "angle"
    if heights or (kind == "APER" and aperture_type in ("epd", "stop_diameter")):
        power = 1  # heights and diameters in lens units (angles stay degrees)
    return value * scale**power


def configuration_lines(optic, source) -> list:
    """MNUM and the operand rows of ``optic.configurations`` (empty without them)."""
    configs = optic.configurations
    if configs is None:
        return []
    lines = [f"MNUM {configs.count} 1"]
    for row in configs.rows:
        operand = _operand(row.key, optic)
        if operand is None:
            warnings.warn(
                f"{source}: configuration key {row.key!r} has no Zemax multi-configuration "
                "operand here and is not written",
                ZemaxWarning,
                stacklevel=3,
            )
            continue
        name, parameter, convert = operand
        for number, value in enumerate(row.values, start=1):
            lines.append(f"{name} {parameter} {number} {convert(value)} {_TAIL}")
    return lines


def _operand(key, optic):
    """(operand, parameter, value -> text) of a configuration key, or None."""
    from ... import backend as be

    def num(value):
        return repr(float(be.item(value)))

    match = _KEY.match(key)
    if match:
        surface, name = int(match.group(1)), match.group(2)
        if name == "material":
            return "GLSS", surface, _glass_name
        if name == "radius":
            return (
                "CRVT",
                surface,
                lambda v: repr(0.0 if abs(float(v)) == float("inf") else 1.0 / float(v)),
            )
        kind = {"thickness": "THIC", "curvature": "CRVT", "conic": "CONN"}[name]
        return kind, surface, num
    match = _FIELD_KEY.match(key)
    if match:
        return ("XFIE", "YFIE")[int(match.group(2))], int(match.group(1)) + 1, num
    match = _WAVE_KEY.match(key)
    if match:
        return "WAVE", int(match.group(1)) + 1, num
    simple = {"aperture.value": "APER", "stop": "STPS", "temperature": "TEMP", "pressure": "PRES"}
    if key in simple:
        return simple[key], 0, (lambda v: str(int(v))) if key == "stop" else num
    return None


def _curvature_text(radius):
    from ... import backend as be

    radius = float(be.item(radius))
    return repr(0.0 if radius in (float("inf"), float("-inf")) else 1.0 / radius)


def _glass_name(value):
    if isinstance(value, str):
        return value if value.lower() != "air" else '""'
    if isinstance(value, dict) and "name" in value:
        return str(value["name"])
    raise LensFileError(f"a configuration glass {value!r} has no Zemax glass name")
