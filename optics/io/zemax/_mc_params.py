"""The PRAM multi-configuration operand: a surface parameter (PARM n) per configuration.

A PRAM row names a surface and one of its parameters; what PARM n means depends on
the surface's type, as in its SURF block (``_surfaces``)::

    EVENASPH  PARM n (1..8)   coefficient of r^(2n)        surfaces[s].coefficients[n-1]
    ODDASPH   PARM n (1..8)   coefficient of r^n           surfaces[s].coefficients[n-1]
    TOROIDAL  PARM 1          radius of rotation           surfaces[s].radius_rotation
              PARM n (2..8)   coefficient of y^(2(n-1))    surfaces[s].coefficients[n-2]
    BICONICX  PARM 1, 2       x radius, x conic            surfaces[s].radius_x, .conic_x
    PARAXIAL  PARM 1          focal length                 surfaces[s].focal_length
    DGRATING  PARM 1          lines per µm                 surfaces[s].lines_per_um
    COORDBRK  PARM 1, 2       decenter x, y                surfaces[s].decenter[0], [1]
              PARM 3, 4, 5    tilt about x, y, z (degrees) surfaces[s].tilt[0], [1], [2]

Lengths are in the file's unit and scaled to mm (a coefficient of r^p by
scale^(1 - p)).  Any other parameter of these types (a coordinate break's order flag,
a parameter of a STANDARD surface, which has none) is a :class:`LensFileError` naming
the line; a PRAM row on another type is skipped with a :class:`ZemaxWarning`.
"""

from __future__ import annotations

import re
import warnings

from ...errors import LensFileError
from ._glass import ZemaxWarning

__all__ = ["pram_key", "pram_operand", "pram_parameter", "PRAM_PARAMETER_ARG"]

#: The argument of a PRAM row that holds the parameter number: the second integer of
#: the row, after the value and the pickup columns (the one before the quoted text).
#: Inferred from the row layout (no published .zmx specification, no corpus file with
#: PRAM rows): the reader and the writer agree on it.
PRAM_PARAMETER_ARG = 10

_COEFFICIENT = re.compile(r"^surfaces\[(\d+)\]\.coefficients\[(\d+)\]$")
_NAMED = re.compile(
    r"^surfaces\[(\d+)\]\.(radius_rotation|radius_x|conic_x|focal_length|lines_per_um)$"
)
_PLACEMENT = re.compile(r"^surfaces\[(\d+)\]\.(decenter|tilt)\[(\d)\]$")
_ASPHERES = {"even_asphere": (1, lambda n: 2 * n), "odd_asphere": (1, lambda n: n)}
_NAMED_PARAMETERS = {
    ("toroidal", 1): ("radius_rotation", 1),
    ("biconic", 1): ("radius_x", 1),
    ("biconic", 2): ("conic_x", 0),
    ("paraxial", 1): ("focal_length", 1),
    ("grating", 1): ("lines_per_um", 0),
}
_TYPE_NAMES = {
    None: "STANDARD",
    "even_asphere": "EVENASPH",
    "odd_asphere": "ODDASPH",
    "toroidal": "TOROIDAL",
    "biconic": "BICONICX",
    "paraxial": "PARAXIAL",
    "grating": "DGRATING",
    "coordinate_break": "COORDBRK",
}


def pram_parameter(record, where) -> int:
    """The parameter number n (PARM n) of a PRAM row."""
    return record.integer(PRAM_PARAMETER_ARG, where, lowest=0)


def pram_key(entry, surface, parameter, where):
    """(configuration key, power of the unit scale) of PRAM ``surface`` ``parameter``.

    None (with a :class:`ZemaxWarning`) for a surface type whose parameters are not
    read per configuration (the freeforms, BINARY_2); LensFileError for a parameter the
    type does not have.

    ``entry`` is the surface's lens-file table; an asphere's coefficient list is
    padded with zeros up to the parameter, so that the key names an existing entry.
    """
    kind = entry.get("type")
    if kind in _ASPHERES or (kind == "toroidal" and parameter >= 2):
        first, power = _ASPHERES.get(kind, (2, lambda n: 2 * (n - 1)))
        if first <= parameter <= 8:
            index = parameter - first
            coefficients = entry.setdefault("coefficients", [])
            coefficients.extend([0.0] * (index + 1 - len(coefficients)))
            return f"surfaces[{surface}].coefficients[{index}]", 1 - power(parameter)
    named = _NAMED_PARAMETERS.get((kind, parameter))
    if named is not None:
        return f"surfaces[{surface}].{named[0]}", named[1]
    if kind == "coordinate_break" and 1 <= parameter <= 5:
        if parameter <= 2:
            return f"surfaces[{surface}].decenter[{parameter - 1}]", 1
        return f"surfaces[{surface}].tilt[{parameter - 3}]", 0
    if kind not in _TYPE_NAMES:
        warnings.warn(
            f"{where}: multi-configuration parameters of a {kind} surface (surface {surface}) "
            "are not supported and the row is skipped",
            ZemaxWarning,
            stacklevel=5,
        )
        return None
    reason = (
        "the order flag of a coordinate break cannot vary between configurations"
        if (kind, parameter) == ("coordinate_break", 6)
        else f"surface {surface} ({_TYPE_NAMES[kind]}) has no parameter {parameter}"
    )
    raise LensFileError(f"{where}: {reason}")


def pram_operand(key, optic):
    """(surface, parameter number) of the PRAM row that writes ``key`` (mm), or None."""
    match = _COEFFICIENT.match(key)
    if match:
        surface, index = int(match.group(1)), int(match.group(2))
        kind = _surface_kind(optic, surface)
        if kind in _ASPHERES:
            return surface, index + _ASPHERES[kind][0]
        return (surface, index + 2) if kind == "toroidal" else None
    match = _NAMED.match(key)
    if match:
        surface, name = int(match.group(1)), match.group(2)
        kind = _surface_kind(optic, surface)
        for (owner, parameter), (attribute, _) in _NAMED_PARAMETERS.items():
            if owner == kind and attribute == name:
                return surface, parameter
        return None
    match = _PLACEMENT.match(key)
    if match and _surface_kind(optic, int(match.group(1))) == "coordinate_break":
        index = int(match.group(3))
        return int(match.group(1)), index + (1 if match.group(2) == "decenter" else 3)
    return None


def _surface_kind(optic, surface):
    if not 0 <= surface < len(optic.surfaces):
        return None
    name = optic.surfaces[surface].geometry.type_name
    return None if name == "standard" else name
