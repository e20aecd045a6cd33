"""Zemax OpticStudio .zmx files: read into lens-file data and an Optic, write back.

``read(path)`` gives the lens-file data (the dict docs/lens-files.md
describes), ``load(path)`` the Optic, ``dumps(optic)`` / ``save(optic, path)``
the .zmx text (UTF-16 LE with a byte-order mark).  What is read, approximated
or refused is listed in docs/zemax.md.

Aperture types that depend on the system are resolved at load time with a
paraxial trace at the primary wavelength:

* FLOA (the stop's semi-diameter sets the beam) becomes an ``epd`` aperture:
  EPD = 2 · semi-diameter(stop) / |y_A(stop)|, where y_A is the height at the
  stop of the paraxial ray entering surface 1 at height 1 parallel to the
  axis; the same formula holds for finite objects.  (Issue 12 adds a
  ``stop_diameter`` aperture that will hold the stop's semi-diameter instead.)
* FNUM (OpticStudio's image-space F/#, EFL / EPD at any conjugate) stays an
  ``image_fno`` aperture for an object at infinity imaged in air, where ours
  (1 / 2|n'u'|) is the same; otherwise it becomes ``epd`` = |EFL| / F#.
"""

from __future__ import annotations

import os
from pathlib import Path

from ... import backend as be
from ...errors import LensFileError
from ...paraxial import basis_rays, paraxial
from ...surfaces import media
from ...system import Aperture
from .._schema import optic_from_dict
from . import _surfaces, _system, _text
from ._glass import ZemaxWarning
from ._writer import dumps, encode

__all__ = ["ZemaxWarning", "read", "reads", "load", "loads", "dumps", "encode", "EXTENSIONS"]

EXTENSIONS = (".zmx",)
GLASS_FALLBACKS = (None, "model")


class _Context:
    """What every surface needs from the header: source, unit scale, catalogs, fallback."""

    def __init__(self, source, scale, catalogs, glass_fallback, last):
        self.source, self.scale, self.catalogs = source, scale, catalogs
        self.glass_fallback, self.last = glass_fallback, last


def read(path, *, glass_fallback=None) -> dict:
    """Lens-file data of a .zmx file (a FLOA or finite-conjugate FNUM aperture still unresolved).

    Use :func:`load` for an Optic; this is the data before the paraxial step.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise LensFileError(f"{path}: cannot read the lens file: {exc.strerror or exc}") from exc
    return reads(raw, str(path), glass_fallback=glass_fallback)


def reads(raw: bytes, source: str = "<zmx>", *, glass_fallback=None) -> dict:
    """Lens-file data of .zmx bytes (see :func:`read`)."""
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
    _system.ray_aiming(zmx, source)
    surfaces, medium = [], "air"
    for block in zmx.surfaces:
        entry, medium = _surfaces.surface_table(block, context, medium)
        surfaces.append(entry)
    data["surfaces"] = surfaces
    if data["aperture"]["type"] == "floating":
        data["aperture"] = {"type": "floating", "stop_semi_diameter": _stop_semi(zmx, context)}
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
    """The Optic of :func:`read`'s data, with FLOA and finite-conjugate FNUM turned into an EPD."""
    aperture = data["aperture"]
    infinite = data["surfaces"][0].get("thickness") == float("inf")
    floating = aperture["type"] == "floating"
    fno = aperture["type"] == "image_fno"
    if floating or fno:
        data = dict(data, aperture={"type": "epd", "value": 1.0})
    optic = optic_from_dict(data, source)
    # OpticStudio's image-space F/# is EFL / EPD at any conjugate; ours (1 / 2|n'u'|)
    # is the same only for an object at infinity and an image in air.
    finite_fno = fno and not (infinite and _image_in_air(optic))
    if fno and not finite_fno:
        optic.aperture = Aperture("image_fno", aperture["value"])
        return optic
    if floating:
        rays = basis_rays(optic)
        height = abs(float(rays.yA[optic.stop_index]))
        if height == 0:
            raise LensFileError(f"{source}: FLOA: the stop is imaged to infinity (no pupil)")
        epd = 2.0 * aperture["stop_semi_diameter"] / height
    elif finite_fno:
        epd = abs(float(paraxial(optic).efl)) / aperture["value"]
    else:
        return optic
    optic.aperture = Aperture("epd", epd)
    return optic


def _image_in_air(optic) -> bool:
    """True when the medium before the image has index 1 at the primary wavelength."""
    medium = media(optic.surfaces)[-2][0]
    return float(medium.index(be.asarray(optic.primary_wavelength))) == 1.0


def _stop_semi(zmx, context):
    """The stop surface's semi-diameter (DIAM) in mm for a FLOA aperture."""
    for block in zmx.surfaces:
        if block.get("STOP") is not None:
            where = f"{context.source}: surface {block.number} (the stop)"
            value = _surfaces.semi_diameter(block, where, context.scale)
            if not value:
                raise LensFileError(
                    f"{where}: FLOA (float by stop size) needs the stop's semi-diameter, but "
                    "its DIAM is missing or 0: the beam size is undefined"
                )
            return value
    raise LensFileError(f"{context.source}: FLOA (float by stop size) but no surface is the STOP")
