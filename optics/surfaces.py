"""The sequential surface: a shape, the medium after it, and where it sits."""

from __future__ import annotations

from dataclasses import dataclass

from .geometry import Geometry, Standard
from .materials import AIR, Material


@dataclass(eq=False)
class Surface:
    """One surface of a sequential system.

    Attributes
    ----------
    geometry : Geometry
        The shape in the surface's local frame.
    thickness : float or 0-d tensor
        Axial distance in mm from this vertex to the next one (``inf`` for an
        object at infinity on surface 0).
    material : Material
        The medium after the surface ("mirror" reflects; the medium after a
        mirror is the one before it).
    semi_diameter : float or None
        Clear semi-aperture in mm; rays landing outside are vignetted.
    decenter : tuple (dx, dy) or None
        Vertex offset in mm, applied to this surface alone.
    tilt : tuple (rx, ry, rz) or None
        Rotation in degrees about the vertex: global = vertex + Rz Ry Rx local.
    is_stop : bool
        True on the aperture stop.
    aperture : ClearAperture or None
        A physical clear aperture (:mod:`optics.apertures`) that replaces the
        circle of ``semi_diameter`` for clipping rays.
    obscuration : float or None
        Radius in mm of a central obscuration (a disc about the vertex that
        blocks rays).
    coating : object or None
        A thin-film coating (:mod:`optics.coatings`: anything with
        ``amplitudes(n1, n2, cos_i, wavelength)``); None is the bare interface.
    """

    geometry: Geometry = None
    thickness: object = 0.0
    material: Material = AIR
    semi_diameter: object = None
    decenter: object = None
    tilt: object = None
    is_stop: bool = False
    aperture: object = None
    obscuration: object = None
    coating: object = None

    def __post_init__(self):
        if self.geometry is None:
            self.geometry = Standard()

    @property
    def is_mirror(self) -> bool:
        """True when the surface reflects."""
        return self.material.is_mirror

    @property
    def clear_is_circle(self) -> bool:
        """True when the clear aperture is at most the plain circle of ``semi_diameter``."""
        return self.aperture is None and self.obscuration is None

    @property
    def clips(self) -> bool:
        """True when the surface vignettes rays (semi-diameter, aperture or obscuration)."""
        return not (self.semi_diameter is None and self.clear_is_circle)

    @property
    def has_frame(self) -> bool:
        """True when the surface is decentered or tilted."""
        return self.decenter is not None or self.tilt is not None


def media(surfaces) -> list:
    """(material, direction) of the medium after each surface.

    A mirror leaves the medium unchanged and reverses the direction of travel
    (+1 toward +z, −1 after an odd number of mirrors), which paraxial optics
    encodes as a sign on the index.  The last surface (the image) ends the
    trace in the medium its rays reach it in: its own material is not entered,
    so image-space directions stay unit vectors and an image formed inside
    glass is not refracted out of it.
    """
    out, current, direction = [], surfaces[0].material, 1
    last = len(surfaces) - 1
    for i, surface in enumerate(surfaces):
        if surface.is_mirror:
            direction = -direction
        elif i < last or i == 0:
            current = surface.material
        out.append((current, direction))
    return out
