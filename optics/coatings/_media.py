"""Thin-film media: a constant complex index, a tabulated (λ, n, κ) medium, and index lookup.

Film materials are optics materials (:mod:`optics.materials`: catalog glasses and
crystals such as ``"MgF2"``, constant indices, Abbe glasses) or the two media here,
whose index is complex ``n + iκ`` (κ ≥ 0 absorbing, the convention of
:mod:`optics.coatings.fresnel`).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from .. import backend as be
from ..errors import OpticsError
from ..materials import Material, index_at
from .fresnel import as_complex

__all__ = ["ComplexIndex", "TabulatedIndex", "film_index"]


@dataclass
class ComplexIndex(Material):
    """A medium of constant complex index ``n + iκ`` (κ ≥ 0 absorbs).

    Attributes
    ----------
    n : float or 0-d array
        Real part.
    kappa : float or 0-d array
        Extinction coefficient (imaginary part), ≥ 0 for an absorbing medium.
    """

    n: object
    kappa: object = 0.0

    def index(self, wavelength):
        """n + iκ broadcast to the shape of ``wavelength`` (µm), complex."""
        ones = be.ones_like(be.asarray(wavelength))
        return ones * self.n + 1j * (ones * self.kappa)

    def to_spec(self):
        """``{"index": n, "k": κ}``."""
        return {"index": float(be.item(self.n)), "k": float(be.item(self.kappa))}


@dataclass(frozen=True)
class TabulatedIndex(Material):
    """A medium given by a table of (wavelength, n, κ), linear in between.

    Outside the table the end values hold (a one-row table is a constant
    index).  This is the MATE block of a Zemax coating file, with κ already
    turned to this package's sign (Zemax's ``-7.0`` for aluminium is κ = 7).

    Attributes
    ----------
    name : str
    wavelengths : tuple of float
        Strictly increasing, µm.
    n, kappa : tuple of float
        Real and imaginary index at each wavelength.
    source : str
        Where the table comes from (file and line).
    """

    name: str
    wavelengths: tuple
    n: tuple
    kappa: tuple
    source: str = ""

    def __post_init__(self):
        rows = (self.wavelengths, self.n, self.kappa)
        if not self.wavelengths or len({len(r) for r in rows}) != 1:
            raise OpticsError(f"medium {self.name}: a table needs equal, non-empty columns")
        if any(not math.isfinite(v) for row in rows for v in row):
            raise OpticsError(f"medium {self.name}: every table value must be finite")
        if any(b <= a for a, b in zip(self.wavelengths, self.wavelengths[1:])):
            raise OpticsError(
                f"medium {self.name}: wavelengths must increase, got {self.wavelengths}"
            )

    def index(self, wavelength):
        """n + iκ at ``wavelength`` (µm, any shape) by linear interpolation, complex."""
        wavelength = be.asarray(wavelength)
        return _interpolate(wavelength, self.wavelengths, self.n) + 1j * _interpolate(
            wavelength, self.wavelengths, self.kappa
        )

    def to_spec(self):
        """``{"table": [[λ, n, κ], ...]}``."""
        rows = [list(row) for row in zip(self.wavelengths, self.n, self.kappa)]
        return {"name": self.name, "table": rows}


def _interpolate(x, xs, ys):
    """Piecewise-linear y(x) through (xs, ys), constant outside: a sum of clipped ramps."""
    out = be.full_like(x, ys[0])
    for x0, x1, y0, y1 in zip(xs, xs[1:], ys, ys[1:]):
        out = out + (y1 - y0) / (x1 - x0) * be.clip(x - x0, 0.0, x1 - x0)
    return out


def film_index(material, wavelength):
    """Complex index of a film or substrate material at ``wavelength`` (µm).

    ``material`` is a :class:`~optics.materials.Material` (real or complex
    index) or a number (a constant, possibly complex, index).
    """
    if isinstance(material, numbers.Number) or be.is_array(material):
        return as_complex(material) * as_complex(be.ones_like(be.asarray(wavelength)))
    if material.is_mirror:
        raise OpticsError("a film or substrate cannot be 'mirror': give its (complex) index")
    return as_complex(index_at(material, wavelength))
