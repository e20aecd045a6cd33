"""Rays as a structure of arrays, updated functionally (autograd-safe)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from . import backend as be


@dataclass(frozen=True, slots=True)
class Rays:
    """A batch of rays, one array per component (all broadcast to one shape).

    Attributes
    ----------
    x, y, z : array, shape (n,)
        Position in mm (global coordinates unless stated otherwise).
    L, M, N : array, shape (n,)
        Direction cosines (a unit vector).
    wavelength : array, shape (n,) or ()
        Wavelength in micrometres.
    intensity : array, shape (n,)
        Relative intensity (1 at launch).
    opd : array, shape (n,)
        Accumulated optical path n*t in mm from the launch point.
    valid : bool array, shape (n,)
        False for rays that missed a surface, were totally internally
        reflected, vignetted or whose intersection solve failed.
    """

    x: object
    y: object
    z: object
    L: object
    M: object
    N: object
    wavelength: object
    intensity: object
    opd: object
    valid: object

    def replace(self, **changes) -> Rays:
        """A copy with some components replaced (the arrays are not copied)."""
        return dataclasses.replace(self, **changes)

    def map(self, function) -> Rays:
        """A copy with ``function`` applied to every component (e.g. an index or a reshape)."""
        return Rays(**{f.name: function(getattr(self, f.name)) for f in dataclasses.fields(self)})

    @property
    def n_rays(self) -> int:
        """Number of rays in the batch."""
        return be.size(self.x)

    @property
    def n_invalid(self) -> int:
        """Number of invalid rays (a host sync; for reports, not hot paths)."""
        return self.n_rays - int(be.item(be.sum(be.astype(self.valid, be.float_dtype()))))

    def to_numpy(self) -> dict:
        """Every component as a NumPy array (detached), keyed by name."""
        return {f.name: be.to_numpy(getattr(self, f.name)) for f in dataclasses.fields(self)}
