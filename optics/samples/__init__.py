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
    return sample_names(_DIRECTORY, ".toml")


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
    return sample_file(_DIRECTORY, ".toml", name, "sample")


def sample_names(directory: Path, suffix: str) -> list[str]:
    """The stems of the ``*suffix`` files in ``directory``, sorted."""
    return sorted(p.stem for p in directory.glob(f"*{suffix}"))


def sample_file(directory: Path, suffix: str, name: str, kind: str) -> Path:
    """``directory/name+suffix``, or a LensFileError naming ``kind``, a close match and the list."""
    known = sample_names(directory, suffix)
    if name not in known:
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise LensFileError(f"unknown {kind} {name!r}{hint}; samples: {', '.join(known)}")
    return directory / f"{name}{suffix}"
