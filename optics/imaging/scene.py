"""Placing a scene in front of the lens: its size in object space and on the sensor.

A scene is a picture of the object: an (H, W, C) array of linear radiances
(RGB, C = 3, or multispectral, one channel per wavelength) centred on the
optical axis.  Its size is given by its full diagonal field of view (degrees,
object at infinity) or its half-diagonal object height (mm, finite object);
the scene is *rectilinear*: its pixels are equally spaced in object-space ray
slope (at infinity) or in object height, so the paraxial (distortion-free)
image of the scene is the scene scaled uniformly.  Everything downstream is
expressed through that paraxial image: the imaging copy of the lens has
``paraxial_image_height`` fields, normalized to the sensor's half-diagonal, so
a normalized field h lands (paraxially) h · half-diagonal from the axis and
the real chief ray's height R(h) measures the distortion.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from .. import backend as be
from .._paraxial import paraxial
from ..errors import ConfigurationError
from ..system import Fields

__all__ = ["Scene", "Placement", "place_scene", "scene_half_diagonal"]


@dataclass
class Scene:
    """A picture of the object.

    Attributes
    ----------
    image : array, shape (H, W, C)
        Linear radiance (1 = white), axis 0 top to bottom, axis 1 left to right.
    wavelengths : sequence of float, optional
        Micrometres, one per channel: a multispectral scene.  None (the
        default): an RGB scene, C = 3, channels red, green, blue.
    field_of_view : float, optional
        Full diagonal field of view in degrees (object at infinity).
    object_height : float, optional
        Half-diagonal of the scene in mm (object at a finite distance).
    object_distance : float, optional
        Object distance in mm (``inf`` at infinity); None keeps the lens's.
    """

    image: object
    wavelengths: tuple | None = None
    field_of_view: float | None = None
    object_height: float | None = None
    object_distance: float | None = None

    def __post_init__(self):
        shape = tuple(getattr(self.image, "shape", ()))
        if len(shape) == 2:
            self.image = self.image[:, :, None]
            shape = (*shape, 1)
        if len(shape) != 3 or shape[0] < 1 or shape[1] < 1:
            raise ConfigurationError(f"scene image: need an (H, W, C) array, not shape {shape}")
        channels = shape[2]
        if self.wavelengths is None:
            if channels == 1:  # grey: the same radiance in R, G and B
                self.image = be.concatenate([self.image] * 3, axis=2)
            elif channels != 3:
                raise ConfigurationError(
                    f"scene image: an RGB scene needs 3 channels, not {channels} "
                    "(give wavelengths= for a multispectral scene)"
                )
        elif len(self.wavelengths) != channels:
            raise ConfigurationError(
                f"scene: {len(self.wavelengths)} wavelengths for {channels} channels"
            )
        if self.field_of_view is not None and self.object_height is not None:
            raise ConfigurationError("scene: give field_of_view or object_height, not both")
        if self.field_of_view is not None and not 0.0 < self.field_of_view < 180.0:
            raise ConfigurationError(
                f"scene: field_of_view must be in (0, 180) degrees, not {self.field_of_view}"
            )
        if self.object_height is not None and not self.object_height > 0.0:
            raise ConfigurationError(
                f"scene: object_height must be > 0 mm, not {self.object_height}"
            )

    @property
    def shape(self) -> tuple:
        """(H, W, C)."""
        return tuple(self.image.shape)


@dataclass(frozen=True)
class Placement:
    """Where the scene lands: the imaging copy of the lens and the paraxial scales.

    Attributes
    ----------
    optic : Optic
        The lens (its surfaces shared, so gradients reach them) with
        ``paraxial_image_height`` fields normalized to ``top``.
    top : float
        Field normalization in mm (the sensor's half-diagonal).
    scene_half_diagonal : float
        Paraxial image height of the scene's corner (mm).
    scene_pitch : float
        Size of one scene pixel on the image plane (mm).
    """

    optic: object
    top: float
    scene_half_diagonal: float
    scene_pitch: float


def scene_half_diagonal(optic, scene) -> float | None:
    """Paraxial image height (mm) of the scene's corner, or None when the scene has no size."""
    if scene.field_of_view is not None:
        if not optic.object_at_infinity:
            raise ConfigurationError(
                "scene: field_of_view needs an object at infinity; give object_height for an "
                "object at a finite distance"
            )
        half = scene.field_of_view / 2.0
        probe = dataclasses.replace(optic, fields=Fields("angle", [(0.0, 0.0), (0.0, half)]))
    elif scene.object_height is not None:
        if optic.object_at_infinity:
            raise ConfigurationError(
                "scene: object_height needs an object at a finite distance; give "
                "field_of_view for an object at infinity"
            )
        top = float(scene.object_height)
        probe = dataclasses.replace(optic, fields=Fields("object_height", [(0.0, 0.0), (0.0, top)]))
    else:
        return None
    return abs(float(be.item(paraxial(probe).image_height)))


def lens_half_diagonal(optic) -> float:
    """Paraxial image height (mm) of the lens's largest field."""
    if optic.fields.type == "real_image_height":
        return float(optic.fields.max_magnitude)
    return abs(float(be.item(paraxial(optic).image_height)))


def with_object_distance(optic, distance):
    """A copy of ``optic`` whose object surface is ``distance`` mm in front (surfaces shared)."""
    if distance is None:
        return optic
    first = dataclasses.replace(optic.surfaces[0], thickness=float(distance))
    return dataclasses.replace(optic, surfaces=[first, *optic.surfaces[1:]])


def place_scene(optic, scene, sensor_half_diagonal, *, aiming=None) -> Placement:
    """The imaging copy of ``optic`` and the scene's scale on the image plane.

    Parameters
    ----------
    optic : Optic
    scene : Scene
    sensor_half_diagonal : float
        mm; the field normalization (h = 1 at the sensor's corner, paraxially).
    aiming : {"paraxial", "real"}, optional
        Ray aiming of the copy; the lens's own mode by default.

    Returns
    -------
    Placement
    """
    optic = with_object_distance(optic, scene.object_distance)
    half = scene_half_diagonal(optic, scene)
    if half is None:
        half = float(sensor_half_diagonal)
    top = float(sensor_half_diagonal)
    if not (math.isfinite(half) and half > 0.0 and top > 0.0):
        raise ConfigurationError(
            f"scene: its paraxial image ({half} mm) and the sensor ({top} mm) need a positive size"
        )
    fields = Fields("paraxial_image_height", [(0.0, 0.0), (0.0, top)])
    copy = dataclasses.replace(optic, fields=fields, aiming=aiming or optic.aiming)
    height, width = scene.shape[:2]
    pitch = 2.0 * half / math.hypot(height, width)
    return Placement(optic=copy, top=top, scene_half_diagonal=half, scene_pitch=pitch)
