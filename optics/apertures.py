"""Physical clear apertures of a surface: circle, annulus, rectangle, ellipse, obscuration.

A surface's clear aperture is, in its local frame (mm):

- ``semi_diameter`` r: the plain circle x² + y² <= r² (the fast path, unchanged);
- ``aperture``: a :class:`ClearAperture` (shape, sizes and a decenter of the
  shape's centre), which replaces the circle of ``semi_diameter`` for clipping;
- ``obscuration`` r₀: a central disc of radius r₀ (about the surface vertex)
  that blocks rays, on top of either of the above.

A ray outside the clear aperture (or inside the obscuration) is invalid; it is
never dropped.  Points on an edge count as inside.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import ConfigurationError

APERTURE_SHAPES = ("circle", "annulus", "rectangle", "ellipse")
#: The size keys each shape needs (lens-file names, mm).
SHAPE_KEYS = {
    "circle": ("radius",),
    "annulus": ("inner", "outer"),
    "rectangle": ("half_x", "half_y"),
    "ellipse": ("half_x", "half_y"),
}


@dataclass(frozen=True)
class ClearAperture:
    """A clear aperture in the surface's local frame.

    Attributes
    ----------
    shape : str
        One of :data:`APERTURE_SHAPES`.
    sizes : tuple of float
        The shape's sizes in mm, in the order of :data:`SHAPE_KEYS`: (radius,),
        (inner, outer), (half_x, half_y).
    decenter : tuple (dx, dy)
        Centre of the shape in the local frame, mm.
    """

    shape: str
    sizes: tuple
    decenter: tuple = (0.0, 0.0)

    def __post_init__(self):
        if self.shape not in APERTURE_SHAPES:
            raise ConfigurationError(
                f"aperture shape {self.shape!r} is not one of {', '.join(APERTURE_SHAPES)}"
            )
        keys = SHAPE_KEYS[self.shape]
        if len(self.sizes) != len(keys):
            raise ConfigurationError(f"aperture shape {self.shape!r} needs {', '.join(keys)}")
        for key, value in zip(keys, self.sizes):
            if not (math.isfinite(value) and value >= 0) or (key != "inner" and value == 0):
                raise ConfigurationError(
                    f"aperture {self.shape!r}: {key} must be a positive number of mm, not {value!r}"
                )
        if self.shape == "annulus" and not self.sizes[0] < self.sizes[1]:
            raise ConfigurationError(
                f"aperture 'annulus': inner ({self.sizes[0]!r}) must be smaller than "
                f"outer ({self.sizes[1]!r})"
            )

    def contains(self, x, y):
        """True where the local point (x, y) (mm, any shape) passes the aperture."""
        dx, dy = self.decenter
        u = x - dx if dx else x
        v = y - dy if dy else y
        if self.shape == "circle":
            return u * u + v * v <= self.sizes[0] ** 2
        if self.shape == "annulus":
            r2 = u * u + v * v
            return (r2 <= self.sizes[1] ** 2) & (r2 >= self.sizes[0] ** 2)
        a, b = self.sizes
        if self.shape == "rectangle":
            return (u * u <= a * a) & (v * v <= b * b)
        return (u / a) ** 2 + (v / b) ** 2 <= 1.0

    @property
    def extent(self) -> float:
        """Largest distance (mm) of a clear point from the local origin (for plots)."""
        dx, dy = self.decenter
        if self.shape in ("rectangle", "ellipse"):
            reach = math.hypot(*self.sizes) if self.shape == "rectangle" else max(self.sizes)
        else:
            reach = self.sizes[-1]
        return reach + math.hypot(dx, dy)

    def to_spec(self) -> dict:
        """Lens-file table: shape, sizes by name, decenter when not zero."""
        spec = {"shape": self.shape}
        spec.update(zip(SHAPE_KEYS[self.shape], self.sizes))
        if any(self.decenter):
            spec["decenter"] = list(self.decenter)
        return spec


def passes(surface, x, y):
    """True where local (x, y) (mm) passes the surface's clear aperture and obscuration.

    Only call when ``surface.clips`` is True.
    """
    r2 = x * x + y * y
    if surface.aperture is not None:
        inside = surface.aperture.contains(x, y)
    elif surface.semi_diameter is not None:
        inside = r2 <= surface.semi_diameter**2
    else:
        inside = None
    if surface.obscuration is not None:
        clear = r2 >= surface.obscuration**2
        inside = clear if inside is None else inside & clear
    return inside
