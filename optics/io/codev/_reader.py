"""CODE V commands to a prescription: system data and one record per SO, S and SI surface.

This is the first of two steps: it reads each command into plain records
(:class:`Prescription`, :class:`SeqSurface`) without turning them into
lens-file data; ``_surfaces`` and ``_system`` do that.  Which commands are read,
ignored or refused is listed in docs/codev.md; an unknown command is an error
naming the file, the line and the command.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from decimal import Decimal

from ...errors import LensFileError
from ...limits import MAX_FIELDS, MAX_SURFACES, MAX_WAVELENGTHS
from ._text import Command

#: Unit letters of DIM to millimetres.
UNITS = {"M": 1.0, "MM": 1.0, "C": 10.0, "CM": 10.0, "I": 25.4, "IN": 25.4}
#: The letters of the aspheric coefficients and the power of r each multiplies.
ASPHERE_POWERS = {"A": 4, "B": 6, "C": 8, "D": 10, "E": 12, "F": 14, "G": 16, "H": 18, "J": 20}
FIELD_KEYS = {
    "XAN": "angle",
    "YAN": "angle",
    "XOB": "object_height",
    "YOB": "object_height",
    "XIM": "paraxial_image_height",
    "YIM": "paraxial_image_height",
    "XRI": "real_image_height",
    "YRI": "real_image_height",
}
PUPIL_KEYS = {"EPD": "epd", "FNO": "image_fno", "NAO": "object_na"}
DECENTER_KEYS = {"XDE": 0, "YDE": 1, "ZDE": 2, "ADE": 3, "BDE": 4, "CDE": 5}
DECENTER_TYPES = {"DAR": "dar", "BEN": "bend", "REV": "reverse"}
VIGNETTING = frozenset({"VUX", "VLX", "VUY", "VLY"})
#: Read and deliberately not used: labels, comments, variable flags (CCY 0 ...), solves
#: and pickups (the file holds the solved values), analysis and display settings.
IGNORED = frozenset(
    {
        "LEN", "GO", "INI", "TEM", "PRE", "SLB", "PIM", "PIK", "DER", "CLS", "POL", "CA",
        "CCY", "CCX", "THC", "GLC", "CCF", "KC", "AC", "BC", "CC", "DC", "EC", "FC", "GC",
        "HC", "JC", "CWL", "CSO", "RDM", "DIM", "END", "PRV", "PWL", "NAM",
        "CUM", "THM",
    }
)  # fmt: skip
#: Refused: what a surface or system here cannot hold (the reason in the message).
REFUSED = {
    "XTO": "an x toroid",
    "YTO": "a y toroid",
    "AAS": "an anamorphic asphere",
    "SPS": "a special surface",
    "DIF": "a diffractive surface",
    "HOE": "a holographic surface",
    "GRT": "a grating",
    "UDS": "a user-defined surface",
    "NA": "an image-space numerical aperture (use EPD, FNO or NAO)",
    "ZOO": "a zoom (multi-configuration) lens",
    "NPS": "a non-sequential surface",
}


class CodeVWarning(UserWarning):
    """Something in a .seq file that optics reads approximately or keeps without using."""


@dataclass
class SeqSurface:
    """One SO, S or SI command and the surface commands after it."""

    line: int
    kind: str  # "object", "surface" or "image"
    shape: float = 0.0  # radius (RDM Y) or curvature (RDM N), as written
    thickness: float = 0.0
    glass: str | None = None
    glass_quoted: bool = False
    mirror: bool = False
    stop: bool = False
    profile: str = "sph"  # "sph", "con" or "asp"
    conic: float = 0.0
    coefficients: dict = field(default_factory=dict)  # letter -> value
    apertures: list = field(default_factory=list)  # [kind, values dict, Command]
    decenter: list = field(default_factory=lambda: [0.0] * 6)  # XDE YDE ZDE ADE BDE CDE
    decenter_type: str | None = None  # None: no decenter given; "basic", "dar", ...
    decenter_line: int = 0


@dataclass
class Prescription:
    """Everything read from a .seq file, lengths still in the file's unit."""

    source: str
    title: str = ""
    radius_mode: bool = False  # RDM: False (the default) reads curvatures
    unit: float = 1.0
    wavelengths: list = field(default_factory=list)  # µm (WL is in nm)
    reference: int | None = None  # REF, 1-based
    wavelength_weights: list | None = None
    pupil: tuple | None = None  # (type, value, Command)
    field_type: str | None = None
    field_x: list | None = None
    field_y: list | None = None
    field_weights: list | None = None
    field_command: Command | None = None
    vignetting: dict = field(default_factory=dict)  # VUX VLX VUY VLY -> (values, Command)
    private: dict = field(default_factory=dict)  # PRV glass name -> (indices, Command)
    private_wavelengths: list = field(default_factory=list)
    surfaces: list = field(default_factory=list)


def read_commands(commands, source) -> Prescription:
    """The :class:`Prescription` of a list of commands (``_text.parse``)."""
    lens = Prescription(source)
    state = {"private": False, "warned": set()}
    for command in commands:
        _read(lens, command, state)
    if not lens.surfaces or lens.surfaces[0].kind != "object":
        raise LensFileError(f"{source}: no SO command (the object surface) before the surfaces")
    if lens.surfaces[-1].kind != "image":
        raise LensFileError(f"{source}: no SI command (the image surface) after the surfaces")
    return lens


def _read(lens, command, state):
    key = command.keyword
    if state["private"] and key != "END":
        _private_glass(lens, command)
        return
    if key in ("SO", "S", "SI"):
        _new_surface(lens, command)
    elif key == "PRV":
        state["private"] = True
    elif key == "END":
        state["private"] = False
    elif key == "TIT":
        lens.title = command.args[0] if command.args else ""
    elif key == "RDM":
        lens.radius_mode = not (command.args and command.args[0].upper().startswith("N"))
    elif key == "DIM":
        unit = command.args[0].upper() if command.args else ""
        if unit not in UNITS:
            raise LensFileError(f"{command.where}: unknown unit {unit!r} (M, C or I)")
        lens.unit = UNITS[unit]
    elif key in ("WL", "REF", "WTW"):
        _wavelengths(lens, command)
    elif key in PUPIL_KEYS:
        lens.pupil = (PUPIL_KEYS[key], command.number(0), command)
    elif key in FIELD_KEYS or key == "WTF":
        _fields(lens, command)
    elif key in VIGNETTING:
        values = command.numbers()
        lens.vignetting[key] = (values, command)
    elif key == "WID":
        if not command.args or not command.args[0].upper().startswith("N"):
            _warn_once(
                state,
                key,
                f"{command.where}: CODE V's wide-angle mode is not applied (field angles are "
                "read as the angles of the chief ray's projections)",
            )
    elif key in IGNORED:
        return
    elif key in REFUSED:
        raise LensFileError(f"{command.where}: {REFUSED[key]} is not supported")
    else:
        _surface_command(lens, command, state)


def _warn_once(state, key, message):
    if key not in state["warned"]:
        state["warned"].add(key)
        warnings.warn(message, CodeVWarning, stacklevel=5)


def _private_glass(lens, command):
    if command.keyword == "PWL":
        lens.private_wavelengths = command.numbers()
        return
    if not command.named:
        raise LensFileError(
            f"{command.where}: in a private catalog (PRV ... END) only PWL and "
            "'NAME' n1 n2 ... glass lines are read"
        )
    lens.private[command.keyword.upper()] = (command, list(lens.private_wavelengths))


def _new_surface(lens, command):
    kind = {"SO": "object", "S": "surface", "SI": "image"}[command.keyword]
    if kind == "object" and lens.surfaces:
        raise LensFileError(f"{command.where}: SO (the object) must come before every surface")
    if kind != "object" and not lens.surfaces:
        raise LensFileError(f"{command.where}: a surface before SO (the object)")
    if lens.surfaces and lens.surfaces[-1].kind == "image":
        raise LensFileError(f"{command.where}: a surface after SI (the image)")
    if len(lens.surfaces) >= MAX_SURFACES:
        raise LensFileError(f"{command.where}: more than {MAX_SURFACES} surfaces")
    surface = SeqSurface(command.line, kind)
    surface.shape = command.number(0, 0.0)
    surface.thickness = command.number(1, 0.0) if kind != "object" else _object_distance(command)
    for token, quoted in zip(command.args[2:], command.quoted[2:]):
        if not quoted and token.upper() == "REFL":
            surface.mirror = True
        elif surface.glass is None:
            surface.glass, surface.glass_quoted = token, quoted
        else:
            raise LensFileError(f"{command.where}: unexpected argument {token!r}")
    lens.surfaces.append(surface)


def _object_distance(command):
    """SO's thickness; 1e10 or more (CODE V's infinite object distance) is infinity."""
    value = command.number(1, 0.0)
    return float("inf") if abs(value) >= 1e10 else value


def _wavelengths(lens, command):
    if command.keyword == "WL":
        values = command.numbers()
        if not values or not all(w > 0 for w in values):
            raise LensFileError(f"{command.where}: wavelengths (nm) must be positive")
        if len(values) > MAX_WAVELENGTHS:
            raise LensFileError(
                f"{command.where}: {len(values)} wavelengths, more than the limit of "
                f"{MAX_WAVELENGTHS} (optics.limits)"
            )
        # nm to µm through the decimal digits: 587.6 nm is exactly the float 0.5876
        lens.wavelengths = [float(Decimal(token) / 1000) for token in command.args]
    elif command.keyword == "REF":
        lens.reference = int(command.number(0))
    else:
        lens.wavelength_weights = command.numbers()


def _fields(lens, command):
    key = command.keyword
    values = command.numbers()
    if len(values) > MAX_FIELDS:
        raise LensFileError(
            f"{command.where}: {len(values)} fields, more than the limit of {MAX_FIELDS} "
            "(optics.limits)"
        )
    if key == "WTF":
        lens.field_weights = values
        return
    kind = FIELD_KEYS[key]
    if lens.field_type is not None and lens.field_type != kind:
        raise LensFileError(
            f"{command.where}: field type {kind!r} after {lens.field_type!r}: one field type "
            "per lens"
        )
    lens.field_type, lens.field_command = kind, command
    if key[0] == "X":
        lens.field_x = values
    else:
        lens.field_y = values


def _current(lens, command) -> SeqSurface:
    if not lens.surfaces:
        raise LensFileError(f"{command.where}: a surface command before SO (the object)")
    if any(token[:1].upper() == "S" and token[1:].isdigit() for token in command.args):
        raise LensFileError(
            f"{command.where}: a surface qualifier (Sn) is not supported: put the command "
            "after the surface it belongs to"
        )
    return lens.surfaces[-1]


def _surface_command(lens, command, state):
    key = command.keyword
    surface = _current(lens, command)
    if key == "STO":
        surface.stop = True
    elif key == "SPH":
        surface.profile = "sph"
    elif key == "CON":
        surface.profile = "con"
    elif key == "ASP":
        surface.profile = "asp"
    elif key == "K":
        surface.conic = command.number(0)
    elif key in ASPHERE_POWERS:
        surface.coefficients[key] = command.number(0)
    elif key in ("CUF",):
        if command.number(0) != 0.0:
            raise LensFileError(f"{command.where}: a non-zero CUF is not supported")
    elif key in ("RDY", "CUY"):
        if command.args and not _is_number(command.args[0]):
            return  # a solve (UMY, AMY ...): the file holds the solved value
        value = command.number(0)
        surface.shape = _converted_shape(value, key == "RDY", lens.radius_mode)
    elif key == "THI":
        if command.args and not _is_number(command.args[0]):
            return  # a solve (HMY ...): the file holds the solved value
        surface.thickness = command.number(0)
    elif key in ("GLA", "RMD"):
        _glass_command(surface, command)
    elif key in DECENTER_KEYS:
        surface.decenter[DECENTER_KEYS[key]] = command.number(0)
        surface.decenter_type = surface.decenter_type or "basic"
        surface.decenter_line = surface.decenter_line or command.line
    elif key in DECENTER_TYPES:
        surface.decenter_type = DECENTER_TYPES[key]
        surface.decenter_line = surface.decenter_line or command.line
    elif key in ("CIR", "REX", "REY", "ELX", "ELY", "ADX", "ADY", "ARO"):
        surface.apertures.append(command)
    else:
        raise LensFileError(f"{command.where}: unknown or unsupported command")


def _glass_command(surface, command):
    if not command.args:
        raise LensFileError(f"{command.where}: needs an argument")
    token = command.args[0]
    if command.keyword == "RMD":
        if token.upper().startswith("REFL"):
            surface.mirror = True
            return
        if token.upper().startswith("REFR"):
            surface.mirror = False
            return
        raise LensFileError(f"{command.where}: only REFL and REFR are read, not {token!r}")
    if token.upper() == "REFL":
        surface.mirror = True
    else:
        surface.glass, surface.glass_quoted = token, command.quoted[0]


def _converted_shape(value, is_radius, radius_mode):
    """RDY/CUY as the S line's first number would hold it in this file's RDM mode."""
    if is_radius == radius_mode:
        return value
    return 0.0 if value == 0 else 1.0 / value


def _is_number(token) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True
