"""COAT lines of a .zmx file to the lens file's ``[coatings]`` table and surface ``coating`` keys.

A surface's ``COAT NAME`` is resolved, in this order, to

1. an ideal coating ``I.xx``: intensity transmittance 0.xx, no reflection, the
   rest absorbed (``I.0`` … ``I.99``);
2. a coating of the Zemax coating file the header's COFN names (COATING.DAT
   when none), read when it lies beside the .zmx file: its ``MATE`` tables
   (wavelength, n, k; Zemax's negative k absorbs), ``COAT`` stacks (material,
   thickness in waves of optical thickness at the primary wavelength, or µm
   when the third value, is_absolute, is 1) and ``IDEAL name T R`` entries;
3. ``MGF2``: one quarter wave of MgF2 at the primary wavelength (Zemax's
   default coating file);

and otherwise left out with a :class:`ZemaxWarning` naming it (vendor
coatings such as THORA live in files that do not travel with the lens).
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from ...errors import LensFileError
from ...materials import material_from_spec
from .._files import read_bytes
from ._glass import ZemaxWarning
from ._text import decode

__all__ = ["read_coatings"]

_IDEAL = re.compile(r"I\.(\d+)$", re.IGNORECASE)
_BUILT_IN = {"MGF2": {"layers": [{"material": "MgF2", "thickness": 1.0, "unit": "qw"}]}}


def read_coatings(zmx, data, source):
    """Put each surface's COAT into ``data`` (``coating`` keys and the ``[coatings]`` table)."""
    used = [(i, block.get("COAT")) for i, block in enumerate(zmx.surfaces)]
    used = [(i, record) for i, record in used if record is not None and record.args]
    if not used:
        return
    library, searched = None, ""
    table = {}
    for index, record in used:
        name = record.args[0]
        if name not in table:
            spec = _ideal(name)
            if spec is None:
                if library is None:
                    library, searched = _coating_file(zmx, source)
                spec = library.get(name.upper()) or _BUILT_IN.get(name.upper())
            problem = f"not I.xx, {searched}, not MGF2"
            if spec is not None and _unknown_material(spec) is not None:
                problem = f"its layer material {_unknown_material(spec)!r} is not known"
                spec = None
            if spec is None:
                warnings.warn(
                    f"{source}: surface {index}: line {record.line}: COAT {name}: the coating "
                    f"is not read ({problem}): the surface is left uncoated",
                    ZemaxWarning,
                    stacklevel=3,
                )
                table[name] = None
                continue
            table[name] = spec
        if table[name] is not None:
            data["surfaces"][index]["coating"] = name
    coatings = {name: spec for name, spec in table.items() if spec is not None}
    if coatings:
        data["coatings"] = coatings


def _unknown_material(spec):
    """The first layer material of ``spec`` that optics cannot resolve, or None."""
    for layer in spec.get("layers", ()):
        if isinstance(layer["material"], str):
            try:
                material_from_spec(layer["material"])
            except LensFileError:
                return layer["material"]
    return None


def _ideal(name):
    match = _IDEAL.match(name)
    return None if match is None else {"R": 0.0, "T": float("0." + match.group(1))}


def _coating_file(zmx, source):
    """(NAME -> coating table, what was searched) of the coating file beside ``source``."""
    record = zmx.get("COFN")
    names = [a.strip('"') for a in record.args if a.upper() != "QF"] if record else []
    wanted = (names[0] if names else "COATING.DAT").upper()
    folder = Path(source).parent
    found = []
    if folder.is_dir():
        found = [p for p in folder.iterdir() if p.name.upper() == wanted and p.is_file()]
    if not found:
        return {}, f"no coating file {wanted} beside the lens"
    path = found[0]
    text = decode(read_bytes(path, str(path), "coating file"), str(path))
    return parse_coating_file(text, str(path)), f"not in {path.name}"


def parse_coating_file(text: str, source: str) -> dict:
    """The coatings of a Zemax coating file's text: NAME -> lens-file coating table.

    Raises
    ------
    LensFileError
        A line that is not a number where one is needed; the message names the line.
    """
    media, coatings, block = {}, {}, None
    for number, line in enumerate(text.splitlines(), start=1):
        tokens = line.split("!")[0].split()
        if not tokens:
            continue
        head = tokens[0].upper()
        where = f"{source}: line {number}"
        if head in ("MATE", "COAT"):
            if len(tokens) < 2:
                raise LensFileError(f"{where}: {head} needs a name")
            name = tokens[1].upper()
            block = (head, name)
            if head == "MATE":
                media[name] = []
            else:
                coatings[name] = {"layers": []}
        elif head == "IDEAL":
            values = _numbers(tokens[2:4], where, 2)
            coatings[tokens[1].upper()] = {"T": values[0], "R": values[1]}
            block = None
        elif head in ("IDEAL2", "TABLE", "ENCRYPTED", "TAPR"):
            block = None  # kinds of coating not read: their names stay undefined
        elif block is not None and block[0] == "MATE":
            wavelength, n, k = _numbers(tokens[:3], where, 3)
            media[block[1]].append([wavelength, n, -k])
        elif block is not None:
            coatings[block[1]]["layers"].append(_layer(tokens, where, source))
    for spec in coatings.values():
        for layer in spec.get("layers", ()):
            rows = media.get(str(layer["material"]).upper())
            if rows:
                layer["material"] = {"name": str(layer["material"]), "table": sorted(rows)}
    return coatings


def _layer(tokens, where, source):
    thickness = _numbers(tokens[1:2], where, 1)[0]
    absolute = len(tokens) > 2 and _numbers(tokens[2:3], where, 1)[0] == 1
    if len(tokens) > 3 and any(_numbers(tokens[3:4], where, 1)):
        warnings.warn(f"{where}: the layer's loop index is not applied", ZemaxWarning, stacklevel=4)
    if absolute:
        return {"material": tokens[0], "thickness": thickness * 1000.0}
    return {"material": tokens[0], "thickness": 4.0 * thickness, "unit": "qw"}


def _numbers(tokens, where, count):
    if len(tokens) < count:
        raise LensFileError(f"{where}: expected {count} number(s), got {' '.join(tokens)!r}")
    try:
        return [float(t) for t in tokens[:count]]
    except ValueError:
        raise LensFileError(f"{where}: expected numbers, got {' '.join(tokens)!r}") from None
