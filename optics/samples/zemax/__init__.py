"""Small Zemax OpticStudio (.zmx) sample files shipped with optics (ours, MIT; see README.md).

``optics.load(optics.samples.zemax.path("achromat"))`` reads one; :func:`names`
lists them.  They were written by optics' own .zmx writer from the built-in
samples of the same names, so the docs' .zmx examples run as written.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from ...errors import LensFileError

_DIRECTORY = Path(__file__).parent

__all__ = ["names", "path"]


def names() -> list[str]:
    """The .zmx sample names, sorted (each is ``NAME.zmx`` in this package)."""
    return sorted(p.stem for p in _DIRECTORY.glob("*.zmx"))


def path(name: str) -> Path:
    """The file of a .zmx sample.

    Parameters
    ----------
    name : str
        A name from :func:`names`, e.g. ``"achromat"``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    LensFileError
        ``name`` is not a .zmx sample (the message lists them).
    """
    known = names()
    if name not in known:
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise LensFileError(f"unknown .zmx sample {name!r}{hint}; samples: {', '.join(known)}")
    return _DIRECTORY / f"{name}.zmx"
