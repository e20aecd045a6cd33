"""Small Zemax OpticStudio (.zmx) sample files shipped with optics (ours, MIT; see README.md).

``optics.load(optics.samples.zemax.path("achromat"))`` reads one; :func:`names`
lists them.  They were written by optics' own .zmx writer from the built-in
samples of the same names, so the docs' .zmx examples run as written.
"""

from __future__ import annotations

from pathlib import Path

from .. import sample_file, sample_names

_DIRECTORY = Path(__file__).parent

__all__ = ["names", "path"]


def names() -> list[str]:
    """The .zmx sample names, sorted (each is ``NAME.zmx`` in this package)."""
    return sample_names(_DIRECTORY, ".zmx")


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
    return sample_file(_DIRECTORY, ".zmx", name, ".zmx sample")
