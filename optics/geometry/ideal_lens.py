"""The ideal thin lens (``type = "paraxial"``): a plane that bends rays as a perfect lens would.

The model.  In the surface's local frame, at the hit point (x, y) with unit
direction (L, M, N), write the ray's direction tangents with respect to its
own direction of travel, t = (L, M) / |N|.  With n and n' the indices before
and after the surface and f the focal length (mm), the ray leaves with

    n' t' = n t − (x, y) / f,        (L', M', N') = (t'_x, t'_y, sign N) / |(t', 1)|.

The map is linear in the tangents, so it images every object point onto one
image point at every conjugate (a perfect lens, not only a paraxial one): a
bundle of parallel rays (t fixed) meets in the plane at z = f n' from the
lens at (f n t).  Its paraxial limit is n'u' = nu − y/f, power 1/f
(``optical_power``), which optics.paraxial adds to the surface's own power.
The optical path gains the thin-lens phase f − sign(f) √(x² + y² + f²) (mm),
which makes the path to the focus of a collimated beam the same for every
ray.  It is exact only for collimated light entering the lens: at finite
conjugates (a relay) a perfect lens's path depends on the object distance,
which one ray does not know, so wavefront, PSF and MTF results of such a
system are not those of a perfect lens (ray positions and directions are).
Rays traveling toward −z are bent the same way in their own direction of
travel.
"""

from __future__ import annotations

import math

from .. import backend as be
from ..errors import LensFileError
from .base import number, register
from .conic import Standard


@register
class IdealLens(Standard):
    """An ideal thin lens of focal length ``focal_length`` (mm, nonzero and finite) on a plane."""

    type_name = "paraxial"
    spec_keys = ("focal_length",)
    is_ideal_lens = True

    def __init__(self, focal_length):
        super().__init__()
        self.focal_length = focal_length

    @property
    def optical_power(self):
        """1/focal_length (1/mm): the power the paraxial trace adds."""
        return 1.0 / self.focal_length

    def bend(self, x, y, L, M, N, n_before, n_after):
        """Directions after the lens at local hit points (x, y); see the module docstring."""
        f = self.focal_length
        along = be.abs(N)
        tx = (n_before * (L / along) - x / f) / n_after
        ty = (n_before * (M / along) - y / f) / n_after
        scale = 1.0 / be.sqrt(tx * tx + ty * ty + 1.0)
        return tx * scale, ty * scale, be.copysign(scale, N)

    def paraxial_power(self, wavelength):
        """:attr:`optical_power` (the same at every wavelength, µm)."""
        return self.optical_power

    def redirect(self, x, y, z, L, M, N, normal, n_before, n_after, wavelength, mirror):
        """The trace's hook: (L', M', N', optical path added in mm, None: every ray passes)."""
        path = n_after * self.path_change(x, y)
        return (*self.bend(x, y, L, M, N, n_before, n_after), path, None)

    def path_change(self, x, y):
        """The thin-lens phase added to the optical path at (x, y), mm."""
        f = self.focal_length
        return f - be.copysign(be.sqrt(x * x + y * y + f * f), f + 0.0 * x)

    @classmethod
    def from_spec(cls, spec, where):
        focal = number(spec, "focal_length", where)
        if focal == 0 or not math.isfinite(float(focal)):
            raise LensFileError(
                f"{where}: key 'focal_length' must be a nonzero finite length in mm, not {focal!r}"
            )
        return cls(focal)

    def to_spec(self):
        return {"focal_length": be.item(self.focal_length)}
