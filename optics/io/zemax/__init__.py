"""Zemax OpticStudio .zmx files: read into lens-file data and an Optic, write back.

``read(path)`` gives the lens-file data (the dict docs/lens-files.md
describes), ``load(path)`` the Optic, ``dumps(optic)`` / ``save(optic, path)``
the .zmx text (UTF-16 LE with a byte-order mark).  What is read, approximated
or refused is listed in docs/zemax.md.

FLOA (the stop's semi-diameter sets the beam) becomes a ``stop_diameter``
aperture of twice the stop's semi-diameter; RAIM becomes ``[aiming] mode``
and FTYP's telecentric flag ``[fields] object_telecentric`` where allowed.
FNUM (OpticStudio's image-space F/#, EFL / EPD at any conjugate) stays an
``image_fno`` aperture for an object at infinity imaged in air, where ours
(1 / 2|n'u'|) is the same; otherwise it is resolved at load time with a
paraxial trace at the primary wavelength into ``epd`` = |EFL| / F#.
"""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path

from ... import backend as be
from ..._paraxial import paraxial
from ...errors import LensFileError
from ...fields_vignetting import Vignetting
from ...surfaces import media
from ...system import Aperture
from ...trace.aim import stop_radius
from .._files import read_bytes
from .._schema import optic_from_dict
from . import _coatings, _floa, _multiconfig, _surfaces, _system, _text
from ._glass import ZemaxWarning
from ._system import VIGNETTING_KEYWORDS
from ._writer import dumps, encode

__all__ = ["ZemaxWarning", "read", "reads", "load", "loads", "dumps", "encode", "EXTENSIONS"]

EXTENSIONS = (".zmx",)
GLASS_FALLBACKS = (None, "model")


class _Context:
    """What every surface needs from the header: source, unit scale, catalogs, fallback."""

    def __init__(self, source, scale, catalogs, glass_fallback, last):
        self.source, self.scale, self.catalogs = source, scale, catalogs
        self.glass_fallback, self.last = glass_fallback, last
        self.substituted = set()  # OpticStudio glass names replaced (warned once each)


def read(path, *, glass_fallback=None) -> dict:
    """Lens-file data of a .zmx file (a finite-conjugate FNUM aperture still unresolved).

    Use :func:`load` for an Optic; this is the data before the paraxial step.  A
    FLOA aperture whose stop has no DIAM is ``{"type": "floating", "limits":
    {surface: DIAM}}`` here; :func:`load` sizes the stop from those (``_floa``).
    """
    path = Path(path)
    raw = read_bytes(path, str(path), "lens file")
    return reads(raw, str(path), glass_fallback=glass_fallback)


def reads(raw: bytes, source: str = "<zmx>", *, glass_fallback=None) -> dict:
    """Lens-file data of .zmx bytes (see :func:`read`)."""
    try:
        return _reads(raw, source, glass_fallback)
    except (OverflowError, ZeroDivisionError) as exc:  # a number the checks let through
        raise LensFileError(
            f"{source}: a number is out of the range the lens data can hold ({exc})"
        ) from None


def _reads(raw, source, glass_fallback):
    if glass_fallback not in GLASS_FALLBACKS:
        raise LensFileError(f"glass_fallback must be None or 'model', not {glass_fallback!r}")
    zmx = _text.parse(_text.decode(raw, source), source)
    mode = zmx.get("MODE")
    if mode is not None and mode.args and mode.args[0].upper() != "SEQ":
        raise LensFileError(
            f"{source}: line {mode.line}: MODE {mode.args[0]}: only sequential files are read"
        )
    scale = _system.unit_scale(zmx, source)
    gcat = zmx.get("GCAT")
    context = _Context(
        source, scale, list(gcat.args) if gcat else [], glass_fallback, len(zmx.surfaces) - 1
    )
    name = zmx.get("NAME")
    data = {"name": name.rest if name is not None else ""}
    data["aperture"] = _system.aperture(zmx, source, scale)
    data["fields"] = _system.fields(zmx, source, scale)
    data["wavelengths"] = _system.wavelengths(zmx, source)
    surfaces, medium = [], "air"
    for block in zmx.surfaces:
        entry, medium = _surfaces.surface_table(block, context, medium)
        surfaces.append(entry)
    data["surfaces"] = surfaces
    _coatings.read_coatings(zmx, data, source)  # COAT lines: [coatings] and surface keys
    _system.check_finite_conjugate(zmx, data, source)
    if data["aperture"]["type"] == "floating":
        semi = _stop_semi(zmx, context)
        if semi:
            data["aperture"] = {"type": "stop_diameter", "value": 2.0 * semi}
        else:  # sized by optic_from_zmx_data (_floa.py)
            data["aperture"] = {"type": "floating", "limits": _diam_limits(zmx, context)}
    _system.telecentric_and_aiming(data, zmx, source)
    configurations = _multiconfig.read_configurations(zmx, data, context)
    if configurations is not None:
        data["configurations"] = configurations
    environment = _system.environment(zmx, source)
    if environment is not None:
        data["environment"] = environment
    if not data["name"]:
        del data["name"]
    return data


def load(path, *, glass_fallback=None):
    """Read a .zmx file into an Optic.

    Parameters
    ----------
    path : str or os.PathLike
    glass_fallback : None or "model"
        With "model", a catalog glass the database lacks becomes the model
        glass (nd, vd) written on its GLAS line, with a :class:`ZemaxWarning`.

    Returns
    -------
    Optic

    Raises
    ------
    LensFileError
        Unreadable file, an unsupported surface type or aperture, an unknown
        glass; the message names the file, the surface number and the keyword.
    """
    source = os.fspath(path)
    return optic_from_zmx_data(read(path, glass_fallback=glass_fallback), source)


def loads(raw: bytes, source: str = "<zmx>", *, glass_fallback=None):
    """An Optic from .zmx bytes (see :func:`load`)."""
    return optic_from_zmx_data(reads(raw, source, glass_fallback=glass_fallback), source)


def optic_from_zmx_data(data, source):
    """The Optic of :func:`read`'s data, with a finite-conjugate FNUM turned into an EPD."""
    try:
        return _optic_from_zmx_data(data, source)
    except (OverflowError, ZeroDivisionError) as exc:  # a number the checks let through
        raise LensFileError(
            f"{source}: a number is out of the range the lens data can hold ({exc})"
        ) from None


def _optic_from_zmx_data(data, source):
    aperture = data["aperture"]
    infinite = data["surfaces"][0].get("thickness") == float("inf")
    fno = aperture["type"] == "image_fno"
    if fno:
        data = dict(data, aperture={"type": "epd", "value": 1.0})
    floating = aperture["type"] == "floating"
    if floating:
        data = dict(data, aperture={"type": "stop_diameter", "value": 1.0})
    fields = data["fields"]
    vignetting = fields.get("vignetting")
    if vignetting is not None:  # not a lens-file key: set on the Optic's fields below
        fields = {k: v for k, v in fields.items() if k != "vignetting"}
        data = dict(data, fields=fields)
    # The file's values are OpticStudio's own solved values (with its glass data): kept as
    # read; the solves act from the first change on (docs/zemax.md).
    optic = optic_from_dict(data, source, solve=False)
    if vignetting is not None:
        optic.fields.vignetting = Vignetting(*(tuple(vignetting[k]) for k in VIGNETTING_KEYWORDS))
    if fno:
        _resolve_fno(optic, aperture["value"], infinite)
    if floating:
        _floa.size_stop(optic, aperture["limits"], source)
    _check_real_aiming(optic, source)
    return optic


def _resolve_fno(optic, fno, infinite):
    """Set the aperture of an FNUM file: ``image_fno`` where ours is the same, else ``epd``."""
    # OpticStudio's image-space F/# is EFL / EPD at any conjugate; ours (1 / 2|n'u'|)
    # is the same only for an object at infinity and an image in air.
    if infinite and _image_in_air(optic):
        optic.aperture = Aperture("image_fno", fno)
    else:
        optic.aperture = Aperture("epd", abs(float(paraxial(optic).efl)) / fno)


def _check_real_aiming(optic, source):
    """Aim paraxially, with a warning, where real aiming's stop radius is undefined.

    Without a ``stop_diameter`` aperture, real aiming sizes the stop with the
    real on-axis ray through the paraxial entrance-pupil edge (docs/aiming.md);
    when that ray cannot reach the stop, no ray could be aimed.
    """
    if optic.aiming != "real" or optic.aperture.type == "stop_diameter":
        return
    radius = float(be.item(be.detach(stop_radius(optic, paraxial(optic)))))
    if not math.isfinite(radius):
        warnings.warn(
            f"{source}: RAIM: ray aiming is not kept: the real on-axis ray through the "
            f"paraxial entrance-pupil edge does not reach the stop (surface "
            f"{optic.stop_index}), so the stop radius is undefined; rays are aimed at the "
            "paraxial entrance pupil",
            ZemaxWarning,
            stacklevel=4,
        )
        optic.aiming = "paraxial"


def _image_in_air(optic) -> bool:
    """True when the medium before the image has index 1 at the primary wavelength."""
    medium = media(optic.surfaces)[-2][0]
    return float(medium.index(be.asarray(optic.primary_wavelength))) == 1.0


def _stop_semi(zmx, context):
    """The stop surface's semi-diameter (DIAM) in mm for a FLOA aperture (None: not stated)."""
    for block in zmx.surfaces:
        if block.get("STOP") is not None:
            where = f"{context.source}: surface {block.number} (the stop)"
            return _surfaces.semi_diameter(block, where, context.scale) or None
    raise LensFileError(f"{context.source}: FLOA (float by stop size) but no surface is the STOP")


def _diam_limits(zmx, context):
    """{surface number: DIAM in mm} of the optical surfaces other than the stop that state one."""
    limits = {}
    for block in zmx.surfaces[1:-1]:
        where = f"{context.source}: surface {block.number}"
        value = _surfaces.semi_diameter(block, where, context.scale)
        if block.get("STOP") is None and value and value > 0:
            limits[block.number] = value
    return limits
