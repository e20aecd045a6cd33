"""CODE V surfaces to lens-file surface tables: shapes, glasses, apertures, decenters.

Decenters follow CODE V's definitions (docs/codev.md#decenters): XDE, YDE,
ZDE move the surface's frame, then ADE tilts it about x, BDE about the new
y and CDE about the new z.  ADE and BDE are left-handed (a positive ADE turns
+z toward +y) and CDE is right-handed, so in optics' right-handed tilts the
rotation is Rx(−ADE) Ry(−BDE) Rz(CDE) — what rayoptics 0.9.10 computes too.
The decenter types map onto coordinate breaks (``coordinate_break``, order 0:
decenter then tilt x, y, z; order 1: tilt z, y, x then decenter):

- basic (no type): a break before the surface; every later surface follows
  the new frame;
- ``DAR`` (decenter and return): the surface alone is moved (its own
  ``decenter`` and ``tilt``, or a break before and the inverse break after it
  when a ZDE is given); the next thickness runs from the undecentered vertex;
- ``BEN`` (bend): a break before the surface and the same tilt again after it
  (a fold mirror's axis follows the reflected beam);
- ``REV`` (reverse): the surface stays, and the inverse of the decenter (tilt
  −CDE about z, BDE about y, ADE about x, then the decenter undone) follows it.
"""

from __future__ import annotations

import math

from ...errors import LensFileError
from . import _glass
from ._reader import ASPHERE_POWERS


def surface_tables(lens) -> list:
    """The ``[[surfaces]]`` tables of a :class:`Prescription` (object first, image last)."""
    tables, medium = [], "air"
    last = len(lens.surfaces) - 1
    for index, surface in enumerate(lens.surfaces):
        where = f"{lens.source}: line {surface.line}: {_name(surface, index)}"
        entry = _shape(surface, lens, where)
        thickness = surface.thickness * lens.unit
        material = medium
        if surface.mirror:
            material = "mirror"
        elif index != last:
            material = _glass.material(surface, lens, where)
        if index == 0:
            if entry.pop("radius", math.inf) != math.inf or surface.profile != "sph":
                raise LensFileError(f"{where}: a curved object surface is not supported")
            if surface.decenter_type is not None:
                raise LensFileError(f"{where}: a decentered object surface is not supported")
        if index == last:
            if surface.decenter_type in (None, "reverse"):  # defocus along the axis
                tables[-1]["thickness"] = tables[-1].get("thickness", 0.0) + thickness
            else:  # along the decentered image's own normal (_decentered)
                entry["thickness"] = thickness
        else:
            entry["thickness"] = thickness
        if material not in ("air", None) and index != last:
            entry["material"] = material
        if surface.stop:
            if index in (0, last):
                raise LensFileError(f"{where}: the stop cannot be the object or the image")
            entry["stop"] = True
        if index > 0:
            _apertures(surface, lens.unit, entry, where)
        tables += _decentered(entry, surface, lens.unit, medium, where, index == last)
        if material != "mirror" and index != last:
            medium = material
    return tables


def _name(surface, index):
    return {"object": "SO", "image": "SI"}.get(surface.kind, f"S (surface {index})")


def _shape(surface, lens, where) -> dict:
    scale = lens.unit
    value = surface.shape
    if value == 0:
        radius = math.inf
    elif lens.radius_mode:
        radius = value * scale
    else:
        radius = scale / value
    entry: dict = {}
    if surface.profile == "asp":
        entry["type"] = "even_asphere"
        terms = [0.0] * 10
        for letter, coefficient in surface.coefficients.items():
            power = ASPHERE_POWERS[letter]
            terms[power // 2 - 1] = coefficient * scale ** (1 - power)
        while terms and terms[-1] == 0.0:
            terms.pop()
        if terms:
            entry["coefficients"] = terms
    elif surface.coefficients:
        raise LensFileError(f"{where}: aspheric coefficients without ASP")
    if radius != math.inf:
        entry["radius"] = radius
    if surface.conic != 0.0:
        entry["conic"] = surface.conic
    return entry


# --- apertures --------------------------------------------------------------------------


def _apertures(surface, scale, entry, where):
    """CIR / REX REY / ELX ELY with ADX ADY: the clear aperture and an obscuration."""
    clear, offsets, obscuration = None, [0.0, 0.0], None
    for command in surface.apertures:
        key = command.keyword
        qualifiers, values = _split_qualifiers(command)
        if "EDG" in qualifiers:
            continue  # an edge (mechanical) aperture clips no ray in sequential tracing
        if key in ("ADX", "ADY"):
            if obscuration is not None and clear is None:
                raise LensFileError(f"{command.where}: a decentered obscuration is not supported")
            offsets["ADX ADY".split().index(key)] = values[0] * scale
            continue
        if key == "ARO":
            if values[0] != 0.0:
                raise LensFileError(f"{command.where}: a rotated aperture is not supported")
            continue
        blocking = "OBS" in qualifiers or "HOL" in qualifiers
        if blocking:
            if key != "CIR":
                raise LensFileError(
                    f"{command.where}: only a circular obscuration (CIR OBS r) is supported"
                )
            obscuration = values[0] * scale
            continue
        shape = {"CIR": "circle", "REX": "rectangle", "REY": "rectangle"}.get(key, "ellipse")
        if clear is None or clear["shape"] != shape:
            if clear is not None:
                raise LensFileError(f"{command.where}: a second clear aperture is not supported")
            clear = {"shape": shape}
        if key == "CIR":
            clear["radius"] = values[0] * scale
        else:
            clear["half_x" if key[2] == "X" else "half_y"] = values[0] * scale
    if clear is not None:
        if clear["shape"] != "circle":
            missing = [k for k in ("half_x", "half_y") if k not in clear]
            if missing:
                raise LensFileError(
                    f"{where}: a {clear['shape']} aperture needs both half-widths (X and Y)"
                )
        if clear["shape"] == "circle" and offsets == [0.0, 0.0]:
            entry["semi_diameter"] = clear["radius"]
        else:
            if offsets != [0.0, 0.0]:
                clear["decenter"] = offsets
            entry["aperture"] = clear
    if obscuration is not None:
        entry["obscuration"] = obscuration


def _split_qualifiers(command):
    """(upper-case qualifier words, numbers) of an aperture command; labels L'x' skipped."""
    qualifiers, values, skip = set(), [], False
    for i, (token, quoted) in enumerate(zip(command.args, command.quoted)):
        if skip or quoted:
            skip = False
            continue
        word = token.upper()
        if word == "L":
            skip = True
        elif word.isalpha():
            qualifiers.add(word)
        else:
            values.append(command.number(i))
    if not values:
        raise LensFileError(f"{command.where}: needs a number")
    return qualifiers, values


# --- decenters --------------------------------------------------------------------------


def _decentered(entry, surface, scale, medium, where, is_image=False) -> list:
    """``entry`` with the coordinate breaks its decenter makes, in order."""
    kind = surface.decenter_type
    if kind is None:
        return [entry]
    x, y, z = (v * scale for v in surface.decenter[:3])
    a, b, c = surface.decenter[3:]
    thickness = entry.pop("thickness", 0.0)
    after = entry.get("material", medium)
    after = medium if after == "mirror" else after
    forward = _break(medium, 0, (x, y), (-a, -b, c), 0.0)
    inverse = _break(after, 1, (-x, -y), (a, b, -c), thickness - z)
    shift = [_break(medium, 0, (0.0, 0.0), (0.0, 0.0, 0.0), z)] if z else []
    if not is_image and _plain_dummy(entry, medium) and kind in ("basic", "reverse"):
        # a dummy plane that only carries the decenter: the coordinate break alone
        if kind == "basic":
            return [*shift, _break(medium, 0, (x, y), (-a, -b, c), thickness)]
        return [inverse]
    if is_image and kind != "reverse":  # the defocus runs along the image's own normal
        forward["thickness"] = thickness
        if not thickness:
            del forward["thickness"]
        entry.pop("thickness", None)
        return [*shift, forward, entry]
    if kind == "dar" and z == 0.0:
        if (x, y) != (0.0, 0.0):
            entry["decenter"] = [x, y]
        if (a, b, c) != (0.0, 0.0, 0.0):
            entry["tilt"] = surface_tilt(a, b, c)
        entry["thickness"] = thickness
        return [entry]
    if kind == "basic":
        entry["thickness"] = thickness
        return [*shift, forward, entry]
    if kind == "dar":
        return [*shift, forward, entry, inverse]
    if kind == "bend":
        return [*shift, forward, entry, _break(after, 0, (0.0, 0.0), (-a, -b, c), thickness)]
    if kind == "reverse":
        return [entry, inverse]
    raise LensFileError(f"{where}: unknown decenter type {kind!r}")  # pragma: no cover


def _plain_dummy(entry, medium):
    """True for a plane standard surface with no aperture or stop, the medium unchanged."""
    if set(entry) - {"material"}:
        return False
    return entry.get("material", "air") == medium


def _break(material, order, decenter, tilt, thickness) -> dict:
    entry: dict = {"type": "coordinate_break"}
    if order:
        entry["order"] = order
    if tuple(decenter) != (0.0, 0.0):
        entry["decenter"] = [float(v) + 0.0 for v in decenter]
    if tuple(tilt) != (0.0, 0.0, 0.0):
        entry["tilt"] = [float(v) + 0.0 for v in tilt]
    if thickness:
        entry["thickness"] = thickness
    if material not in ("air", None):
        entry["material"] = material
    return entry


def surface_tilt(a, b, c) -> list:
    """optics' own-surface tilt [rx, ry, rz] (R = Rz Ry Rx) of CODE V's ADE, BDE, CDE.

    CODE V's rotation is Rx(−a) Ry(−b) Rz(c); with one angle non-zero that is
    the same single rotation, otherwise its Rz Ry Rx angles are solved for.
    """
    if sum(v != 0.0 for v in (a, b, c)) <= 1:
        return [-a + 0.0, -b + 0.0, c + 0.0]
    m = _rx_ry_rz(-a, -b, c)
    ry = math.degrees(math.atan2(-m[2][0], math.hypot(m[2][1], m[2][2])))
    rx = math.degrees(math.atan2(m[2][1], m[2][2]))
    rz = math.degrees(math.atan2(m[1][0], m[0][0]))
    return [rx, ry, rz]


def codev_angles(rx, ry, rz) -> tuple:
    """CODE V's (ADE, BDE, CDE) of optics' own-surface tilt (the inverse of surface_tilt)."""
    if sum(v != 0.0 for v in (rx, ry, rz)) <= 1:
        return -rx + 0.0, -ry + 0.0, rz + 0.0
    m = _matmul(_matmul(_rot(2, rz), _rot(1, ry)), _rot(0, rx))
    b = math.degrees(math.atan2(m[0][2], math.hypot(m[1][2], m[2][2])))
    a = math.degrees(math.atan2(-m[1][2], m[2][2]))
    c = math.degrees(math.atan2(-m[0][1], m[0][0]))
    return -a, -b, c


def _rx_ry_rz(a, b, c):
    return _matmul(_matmul(_rot(0, a), _rot(1, b)), _rot(2, c))


def _rot(axis, degrees):
    """The right-handed rotation by ``degrees`` about axis 0 (x), 1 (y) or 2 (z)."""
    t = math.radians(degrees)
    co, si = math.cos(t), math.sin(t)
    if axis == 0:
        return ((1.0, 0.0, 0.0), (0.0, co, -si), (0.0, si, co))
    if axis == 1:
        return ((co, 0.0, si), (0.0, 1.0, 0.0), (-si, 0.0, co))
    return ((co, -si, 0.0), (si, co, 0.0), (0.0, 0.0, 1.0))


def _matmul(p, q):
    return tuple(
        tuple(sum(p[i][k] * q[k][j] for k in range(3)) for j in range(3)) for i in range(3)
    )
