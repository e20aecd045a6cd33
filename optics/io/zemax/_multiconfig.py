"""Zemax multi-configuration data (MNUM and the operand records) <-> ``[configurations]``.

OpticStudio writes ``MNUM count current`` and then, operand by operand, one record per
configuration::

    THIC 5 1 10.0 0 0 0 1 1 1 0 0 "" 0     # operand, parameter, configuration, value, ...
    THIC 5 2 20.0 0 0 0 1 1 1 0 0 "" 0

Read and written: THIC, CRVT, CONN (surface), APER, XFIE/YFIE (field number), WAVE
(wavelength number), GLSS (surface; the value is a glass name, found in the file's
catalogs as GLAS is), STPS (the stop surface), TEMP, PRES, and PRAM (surface and
parameter number: an asphere coefficient, a coordinate break's decenter or tilt ...,
``_mc_params``).  MOFF (an empty row) is skipped; any other operand is skipped with a
:class:`ZemaxWarning` naming it and its line.  Surface numbers are the file's (one
optics surface per SURF block).  docs/configurations.md lists the mapping.
"""

from __future__ import annotations

import re
import warnings

from ...errors import LensFileError
from ...limits import MAX_CONFIGURATIONS
from . import _glass
from ._glass import ZemaxWarning
from ._mc_params import PRAM_PARAMETER_ARG, pram_key, pram_operand, pram_parameter
from ._text import Record

__all__ = ["read_configurations", "configuration_lines", "SUPPORTED"]

#: The operands read and written (docs/configurations.md, "Zemax").
SUPPORTED = (
    "THIC",
    "CRVT",
    "CONN",
    "GLSS",
    "PRAM",
    "APER",
    "XFIE",
    "YFIE",
    "WAVE",
    "STPS",
    "TEMP",
    "PRES",
)

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


def read_configurations(zmx, data, context):
    """The ``[configurations]`` table of a file's multi-configuration data, or None.

    ``data`` is the lens-file data read so far (surfaces, fields, wavelengths,
    aperture); a PRAM row may pad a surface's coefficient list with zeros.  Operand
    rows (the records after MNUM) are taken out of the header (so a TEMP row is not
    read as the system temperature).  Every LensFileError names the file, the line and
    the operand with OpticStudio's numbers (surfaces as in the file; fields,
    wavelengths and configurations from 1).
    """
    source = context.source
    mnum = zmx.get("MNUM")
    for block in zmx.surfaces:  # OpticStudio writes MNUM after the last SURF block
        mnum = mnum or block.get("MNUM")
    keywords = [k for k in zmx.header if k not in ("MNUM",)]
    rows, order, first_line = {}, [], {}
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
            found = _key(record, data, context)
            if found is None:
                continue
            key, label, power = found
            config = record.integer(1, f"{source}")
            if not 1 <= config <= count:
                raise LensFileError(
                    f"{source}: line {record.line}: {label}: configuration {config} does not "
                    f"exist: MNUM {count} gives configurations 1 to {count}"
                )
            where = f"{source}: line {record.line}: {label}, configuration {config}"
            value = _value(record, data, context, power, where)
            if key not in rows:
                rows[key] = [None] * count
                order.append(key)
                first_line[key] = (record.line, label)
            rows[key][config - 1] = value
    zmx.header.pop("MOFF", None)
    if count <= 1 or not rows:
        return None
    for key in order:
        missing = [str(i + 1) for i, v in enumerate(rows[key]) if v is None]
        if missing:
            line, label = first_line[key]
            raise LensFileError(
                f"{source}: line {line}: {label}: no value for configuration(s) "
                f"{', '.join(missing)} (MNUM {count})"
            )
    return {"count": count, "values": {key: rows[key] for key in order}}


def _key(record, data, context):
    """(configuration key, the operand as the file names it, unit power) of a row, or None."""
    kind = record.keyword
    where = f"{context.source}: line {record.line}"
    if kind in _SURFACE or kind in ("GLSS", "PRAM"):
        surface = _number_in(record, where, "surface", 0, len(data["surfaces"]) - 1)
        if kind == "PRAM":
            parameter = pram_parameter(record, where)
            label = f"PRAM {surface} {parameter}"
            entry = data["surfaces"][surface]
            found = pram_key(entry, surface, parameter, f"{where}: {label}")
            return None if found is None else (found[0], label, found[1])
        name = _SURFACE.get(kind, "material")
        return f"surfaces[{surface}].{name}", f"{kind} {surface}", _SCALED.get(kind, 0)
    if kind in ("XFIE", "YFIE"):
        number = _number_in(record, where, "field", 1, len(data["fields"]["values"]))
        heights = data["fields"].get("type", "angle") != "angle"
        key = f"fields.values[{number - 1}][{0 if kind == 'XFIE' else 1}]"
        return key, f"{kind} {number}", 1 if heights else 0
    if kind == "WAVE":
        number = _number_in(record, where, "wavelength", 1, len(data["wavelengths"]["values"]))
        return f"wavelengths.values[{number - 1}]", f"WAVE {number}", 0
    simple = {"APER": "aperture.value", "STPS": "stop", "TEMP": "temperature"}
    if kind in simple or kind == "PRES":
        lengths = kind == "APER" and data["aperture"].get("type") in ("epd", "stop_diameter")
        return simple.get(kind, "pressure"), kind, 1 if lengths else 0
    warnings.warn(
        f"{where}: multi-configuration operand {kind} is not supported and is skipped "
        f"(supported: {', '.join(SUPPORTED)})",
        ZemaxWarning,
        stacklevel=4,
    )
    return None


def _number_in(record, where, what, lowest, highest):
    """The row's first argument, a surface (field, wavelength) number of the file."""
    number = record.integer(0, where)
    if not lowest <= number <= highest:
        if what == "surface":
            has = f"surfaces {lowest} to {highest}"
        else:
            has = f"{highest} {what}{'s' if highest != 1 else ''} ({lowest} to {highest})"
        raise LensFileError(
            f"{where}: {record.keyword} {number}: {what} {number} does not exist: the file "
            f"has {has}"
        )
    return number


def _value(record, data, context, power, where):
    """The row's value in the lens file's terms (mm, a material spec, a stop index)."""
    kind = record.keyword
    if kind == "GLSS":
        name = record.args[2].strip('"')
        if not name:
            return "air"
        spec = Record(record.line, "GLAS", (name,), name)
        return _glass.material(
            spec, where, context.catalogs, context.glass_fallback, context.substituted
        )
    value = record.number(2, where)
    if kind == "STPS":
        last = len(data["surfaces"]) - 1
        if not (value.is_integer() and 1 <= value <= last - 1):
            raise LensFileError(
                f"{where}: the stop must be one of surfaces 1 to {last - 1}, not {record.args[2]}"
            )
        return int(value)
    if kind in ("WAVE", "APER") and not value > 0:
        what = "a wavelength (µm)" if kind == "WAVE" else "the system aperture"
        raise LensFileError(f"{where}: {what} must be positive, not {record.args[2]}")
    if kind in ("XFIE", "YFIE") and power == 0 and not abs(value) < 90:
        raise LensFileError(f"{where}: field angle {record.args[2]}: it must be under 90 degrees")
    return value * context.scale**power


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
        name, parameter, convert = operand[:3]
        tail = _TAIL if len(operand) == 3 else _pram_tail(operand[3])
        for number, value in enumerate(row.values, start=1):
            lines.append(f"{name} {parameter} {number} {convert(value)} {tail}")
    return lines


def _operand(key, optic):
    """(operand, parameter, value -> text[, PRAM's parameter number]) of a key, or None."""
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
    pram = pram_operand(key, optic)
    if pram is not None:
        return "PRAM", pram[0], num, pram[1]
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


def _pram_tail(parameter):
    """The columns after a PRAM row's value, the parameter number in its place."""
    tokens = _TAIL.split(" ")
    tokens[PRAM_PARAMETER_ARG - 3] = str(parameter)
    return " ".join(tokens)


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
