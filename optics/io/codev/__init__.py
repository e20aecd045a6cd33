"""CODE V sequence files (.seq): read into lens-file data and an Optic, write back.

``read(path)`` gives the lens-file data (the dict docs/lens-files.md
describes), ``load(path)`` the Optic, ``dumps(optic)`` the .seq text and
``save(optic, path)`` writes it.  What is read, written and refused, and the
conventions (decenter signs, glass names, units), are in docs/codev.md.
"""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import LensFileError
from ...fields_vignetting import Vignetting
from .._files import read_bytes
from .._schema import optic_from_dict
from . import _reader, _surfaces, _system, _text
from ._reader import CodeVWarning
from ._writer import dumps

__all__ = ["CodeVWarning", "read", "reads", "load", "loads", "dumps", "EXTENSIONS"]

EXTENSIONS = (".seq",)


def read(path) -> dict:
    """Lens-file data of a .seq file (see :func:`load`)."""
    source = os.fspath(path)
    return reads(read_bytes(Path(path), source, "lens file"), source)


def reads(raw, source: str = "<seq>") -> dict:
    """Lens-file data of .seq bytes or text."""
    text = _text.decode(raw, source) if isinstance(raw, bytes) else raw
    try:
        lens = _reader.read_commands(_text.parse(text, source), source)
        data = {
            "aperture": _system.aperture(lens),
            "fields": _system.fields(lens),
            "wavelengths": _system.wavelengths(lens),
            "surfaces": _surfaces.surface_tables(lens),
        }
    except (OverflowError, ZeroDivisionError) as exc:  # a number the checks let through
        raise LensFileError(
            f"{source}: a number is out of the range the lens data can hold ({exc})"
        ) from None
    if lens.title:
        data = {"name": lens.title, **data}
    return data


def load(path):
    """Read a CODE V .seq file into an Optic.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    Optic

    Raises
    ------
    LensFileError
        Unreadable file, an unknown or unsupported command, an unknown glass; the
        message names the file, the line and the command.

    Warns
    -----
    CodeVWarning
        Data read but not applied: non-zero vignetting factors (kept as
        ``optic.fields.vignetting``, applied by the tracer and written back).
    """
    return _optic(read(path), os.fspath(path))


def loads(raw, source: str = "<seq>"):
    """An Optic from .seq bytes or text (see :func:`load`)."""
    return _optic(reads(raw, source), source)


def _optic(data, source):
    """The Optic of the lens-file data, with the fields' vignetting factors set on it."""
    fields = data["fields"]
    vignetting = fields.get("vignetting")
    if vignetting is not None:  # not a lens-file key
        data = dict(data, fields={k: v for k, v in fields.items() if k != "vignetting"})
    optic = optic_from_dict(data, source)
    if vignetting is not None:
        keys = ("VDXN", "VDYN", "VCXN", "VCYN")
        optic.fields.vignetting = Vignetting(*(tuple(vignetting[k]) for k in keys))
    return optic
