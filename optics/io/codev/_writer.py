"""An Optic as CODE V .seq text (radius mode, millimetres, the prescription in the file).

Surfaces are written from the lens-file data (``optic_to_dict``):
``standard`` and ``even_asphere`` (CON / ASP with K, A ... J), mirrors
(REFL), clear apertures and obscurations (CIR, REX/REY, ELX/ELY, ADX/ADY,
CIR OBS), the stop (STO), an own-surface decenter and tilt as DAR, and a
coordinate break as a basic decenter on the surface after it (order 0, no
thickness) or on a dummy plane (order 0), or as REV on a dummy plane (order
1).  What CODE V cannot hold here is an error naming the surface
(docs/codev.md).
"""

from __future__ import annotations

import math
import warnings
from decimal import Decimal

from ..._paraxial import paraxial
from ...errors import LensFileError
from .._serialize import optic_to_dict
from . import _glass
from ._reader import ASPHERE_POWERS, CodeVWarning
from ._surfaces import codev_angles

_LETTERS = sorted(ASPHERE_POWERS, key=ASPHERE_POWERS.get)  # A (r^4) ... J (r^20)
_FIELD_KEYS = {
    "angle": "AN",
    "object_height": "OB",
    "paraxial_image_height": "IM",
    "real_image_height": "RI",
}
_APERTURE_KEYS = {"epd": "EPD", "image_fno": "FNO", "object_na": "NAO"}
#: What an object at infinity is written as (CODE V reads 1e10 or more as infinite).
INFINITE_OBJECT = "1e+13"


def dumps(optic, source: str = "<seq>") -> str:
    """The .seq text of an Optic; LensFileError names what CODE V cannot hold.

    Parameters
    ----------
    optic : Optic
    source : str
        The target's name, for messages.

    Returns
    -------
    str
    """
    data = optic_to_dict(optic)
    lines = []
    if data.get("name"):
        lines.append(f"TIT {_quoted(data['name'], source)}")
    lines += ["RDM Y", "DIM M"]
    lines += _wavelengths(data["wavelengths"])
    lines.append(_aperture(optic, data["aperture"], source))
    lines += _fields(data["fields"], source)
    lines += _vignetting(optic.fields.vignetting)
    if optic.aiming != "paraxial":
        warnings.warn(
            f"{source}: [aiming] mode = {optic.aiming!r} is not written (a .seq file read "
            "back aims at the paraxial entrance pupil)",
            CodeVWarning,
            stacklevel=2,
        )
    for section in ("optimize", "tolerance"):
        if data.get(section):
            warnings.warn(
                f"{source}: the [{section}] section has no .seq form and is not written",
                CodeVWarning,
                stacklevel=2,
            )
    private: dict = {}
    body = _surfaces(data["surfaces"], optic.stop_index, source, private)
    if private:
        lines.append("PRV")
        lines.append("PWL " + " ".join(_nm(w) for w in data["wavelengths"]["values"]))
        count = len(data["wavelengths"]["values"])
        for token, index in private.items():
            lines.append(f"{token} " + " ".join([repr(index)] * count))
        lines.append("END")
    return "\n".join(lines + body + ["GO", ""])


def _quoted(text, source):
    if "'" in text and '"' in text:
        raise LensFileError(f"{source}: the name {text!r} holds both kinds of quote")
    return f'"{text}"' if "'" in text else f"'{text}'"


def _nm(micrometres) -> str:
    value = Decimal(repr(float(micrometres))) * 1000
    text = format(value.normalize(), "f")
    return text if "." in text else text + ".0"


def _wavelengths(table):
    lines = ["WL " + " ".join(_nm(w) for w in table["values"])]
    lines.append(f"REF {table.get('primary', 0) + 1}")
    if table.get("weights") is not None:
        lines.append("WTW " + " ".join(repr(float(w)) for w in table["weights"]))
    return lines


def _aperture(optic, table, source):
    kind, value = table["type"], float(table["value"])
    if kind == "stop_diameter":
        epd = abs(float(paraxial(optic).epd))
        warnings.warn(
            f"{source}: a stop_diameter aperture ({value!r} mm) is written as its paraxial "
            f"entrance-pupil diameter EPD {epd!r} (CODE V has no stop-size aperture)",
            CodeVWarning,
            stacklevel=3,
        )
        return f"EPD {epd!r}"
    return f"{_APERTURE_KEYS[kind]} {value!r}"


def _vignetting(vignetting):
    """VUX VLX VUY VLY lines: VU = VC − VD, VL = VC + VD (none without factors)."""
    if vignetting is None or vignetting.is_zero:
        return []
    lines = []
    for axis, decenter, compress in (
        ("X", vignetting.decenter_x, vignetting.compress_x),
        ("Y", vignetting.decenter_y, vignetting.compress_y),
    ):
        upper = [c - d for d, c in zip(decenter, compress)]
        lower = [c + d for d, c in zip(decenter, compress)]
        lines.append(f"VU{axis} " + " ".join(repr(float(v)) for v in upper))
        lines.append(f"VL{axis} " + " ".join(repr(float(v)) for v in lower))
    return lines


def _fields(table, source):
    if table.get("object_telecentric"):
        raise LensFileError(f"{source}: a telecentric object space cannot be written to .seq")
    values = [v if isinstance(v, (list, tuple)) else [0.0, v] for v in table["values"]]
    key = _FIELD_KEYS[table["type"]]
    lines = []
    if any(float(x) != 0.0 for x, _ in values):
        lines.append(f"X{key} " + " ".join(repr(float(x)) for x, _ in values))
    lines.append(f"Y{key} " + " ".join(repr(float(y)) for _, y in values))
    if table.get("weights") is not None:
        lines.append("WTF " + " ".join(repr(float(w)) for w in table["weights"]))
    return lines


def _surfaces(specs, stop_index, source, private):
    lines, pending = [], None  # pending: a coordinate break merged into the next surface
    last = len(specs) - 1
    for index, spec in enumerate(specs):
        where = f"{source}: surface {index}"
        kind = spec.get("type", "standard")
        if kind == "coordinate_break":
            if _mergeable(spec, specs, index):
                pending = spec
                continue
            lines += _dummy_break(spec, where, private)
            continue
        if index == 0:
            lines += _object(spec, where, private)
            continue
        head = "SI" if index == last else "S"
        radius = spec.get("radius", math.inf)
        thickness = 0.0 if index == last else float(spec.get("thickness", 0.0))
        words = [head, repr(0.0 if radius == math.inf else float(radius)), repr(thickness)]
        material = spec.get("material", "air")
        if isinstance(material, str) and material.lower() == "mirror":
            words.append("REFL")
        elif index != last:
            token = _glass.glass_token(material, where, private)
            if token is not None:
                words.append(token)
        lines.append(" ".join(words))
        if index == stop_index:
            lines.append("  STO")
        lines += _profile(spec, kind, where)
        lines += _apertures(spec, where)
        if pending is not None:
            lines += _basic(pending)
            pending = None
        if "decenter" in spec or "tilt" in spec:
            lines += _dar(spec)
    return lines


def _mergeable(spec, specs, index):
    """A thin order-0 break whose next surface is a plain one: its basic decenter."""
    if spec.get("order", 0) != 0 or float(spec.get("thickness", 0.0)) != 0.0:
        return False
    if "decenter" not in spec and "tilt" not in spec:
        return False
    following = specs[index + 1] if index + 1 < len(specs) else None
    return (
        following is not None
        and following.get("type", "standard") != "coordinate_break"
        and "decenter" not in following
        and "tilt" not in following
    )


def _object(spec, where, private):
    if "decenter" in spec or "tilt" in spec:
        raise LensFileError(f"{where} (object): a decentered object cannot be written to .seq")
    thickness = float(spec.get("thickness", 0.0))
    words = ["SO", "0.0", INFINITE_OBJECT if math.isinf(thickness) else repr(thickness)]
    token = _glass.glass_token(spec.get("material", "air"), where, private)
    if token is not None:
        words.append(token)
    return [" ".join(words)]


def _dummy_break(spec, where, private):
    words = ["S", "0.0", repr(float(spec.get("thickness", 0.0)))]
    token = _glass.glass_token(spec.get("material", "air"), where, private)
    if token is not None:
        words.append(token)
    lines = [" ".join(words)]
    dx, dy = (float(v) for v in spec.get("decenter", (0.0, 0.0)))
    rx, ry, rz = (float(v) for v in spec.get("tilt", (0.0, 0.0, 0.0)))
    if spec.get("order", 0) == 1:  # tilt z, y, x, then decenter: the inverse of a basic one
        return lines + ["  REV"] + _decenter_lines(-dx, -dy, rx, ry, -rz)
    return lines + _decenter_lines(dx, dy, -rx, -ry, rz)


def _basic(spec):
    dx, dy = (float(v) for v in spec.get("decenter", (0.0, 0.0)))
    rx, ry, rz = (float(v) for v in spec.get("tilt", (0.0, 0.0, 0.0)))
    return _decenter_lines(dx, dy, -rx, -ry, rz)


def _dar(spec):
    dx, dy = (float(v) for v in spec.get("decenter", (0.0, 0.0)))
    a, b, c = codev_angles(*(float(v) for v in spec.get("tilt", (0.0, 0.0, 0.0))))
    return ["  DAR"] + (_decenter_lines(dx, dy, a, b, c) or ["  XDE 0.0"])


def _decenter_lines(x, y, a, b, c):
    names = ("XDE", "YDE", "ADE", "BDE", "CDE")
    return [f"  {name} {value + 0.0!r}" for name, value in zip(names, (x, y, a, b, c)) if value]


def _profile(spec, kind, where):
    lines = []
    conic = float(spec.get("conic", 0.0))
    if kind == "standard":
        if conic:
            lines += ["  CON", f"  K {conic!r}"]
        return lines
    if kind != "even_asphere":
        raise LensFileError(f"{where}: surface type {kind!r} cannot be written to a .seq file")
    terms = [float(v) for v in spec.get("coefficients", [])]
    if terms and terms[0] != 0.0:
        raise LensFileError(f"{where}: an r² aspheric term cannot be written (CODE V ASP has none)")
    if len(terms) > len(_LETTERS) + 1:
        raise LensFileError(f"{where}: aspheric terms beyond r^20 cannot be written")
    lines += ["  ASP", f"  K {conic!r}"]
    lines += [f"  {letter} {value!r}" for letter, value in zip(_LETTERS, terms[1:]) if value]
    return lines


def _apertures(spec, where):
    lines = []
    clear = spec.get("aperture")
    if clear is None and "semi_diameter" in spec:
        lines.append(f"  CIR {float(spec['semi_diameter'])!r}")
    elif clear is not None:
        shape = clear["shape"]
        if shape == "circle":
            lines.append(f"  CIR {float(clear['radius'])!r}")
        elif shape == "annulus":
            if "decenter" in clear:
                raise LensFileError(f"{where}: a decentered annulus cannot be written")
            lines += [f"  CIR {float(clear['outer'])!r}", f"  CIR OBS {float(clear['inner'])!r}"]
        else:
            prefix = "RE" if shape == "rectangle" else "EL"
            lines += [
                f"  {prefix}X {float(clear['half_x'])!r}",
                f"  {prefix}Y {float(clear['half_y'])!r}",
            ]
        dx, dy = (float(v) for v in clear.get("decenter", (0.0, 0.0)))
        lines += [f"  {k} {v!r}" for k, v in (("ADX", dx), ("ADY", dy)) if v]
    if "obscuration" in spec:
        lines.append(f"  CIR OBS {float(spec['obscuration'])!r}")
    return lines
