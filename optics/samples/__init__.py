"""Built-in sample lenses: lens files shipped with optics, loadable by name.

``optics.load("cooke_triplet")`` reads ``cooke_triplet.toml`` from this
package; :func:`names` lists the samples and :func:`path` gives a sample's file.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from ..errors import LensFileError

_DIRECTORY = Path(__file__).parent

__all__ = ["names", "path"]


def names() -> list[str]:
    """The sample names, sorted (each is a lens file ``NAME.toml`` in this package)."""
    return sorted(p.stem for p in _DIRECTORY.glob("*.toml"))


def path(name: str) -> Path:
    """The lens file of a sample.

    Parameters
    ----------
    name : str
        A sample name from :func:`names`, e.g. ``"cooke_triplet"``.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    LensFileError
        ``name`` is not a sample (the message lists the samples).
    """
    known = names()
    if name not in known:
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise LensFileError(f"unknown sample {name!r}{hint}; samples: {', '.join(known)}")
    return _DIRECTORY / f"{name}.toml"
