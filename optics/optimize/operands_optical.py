"""Operands of colour, ray angles, magnification and image height, and user operands.

Each operand is a function of the :class:`~optics.optimize.operands.MeritContext`
and its lens-file keys, returning a 0-d array that keeps gradients (paraxial
data and real rays through ``be``, so Torch and JAX differentiate them
exactly).  Wavelength arguments are 0-based indices into the optic's
wavelengths; (hx, hy), (px, py) normalized field and pupil coordinates.

User operands (Python functions registered by name) live in
:mod:`optics.optimize.operands_user`.
"""

from __future__ import annotations

import math

from .. import backend as be
from .._paraxial import paraxial
from ..errors import ConfigurationError

_DEGREES = 180.0 / math.pi


def _along_field(x, y, hx, hy):
    """The component of (x, y) along the field direction (hx, hy); y on axis."""
    norm = (hx * hx + hy * hy) ** 0.5
    return (x * hx + y * hy) / norm if norm > 0 else y


def _pair(ctx, wavelengths, what):
    """The two wavelengths (µm) of a colour operand: indices, default first and last."""
    count = len(ctx.optic.wavelengths.values)
    if wavelengths is None:
        if count < 2:
            raise ConfigurationError(f"{what} needs two wavelengths; the optic has {count}")
        wavelengths = (0, count - 1)
    if not isinstance(wavelengths, (list, tuple)) or len(wavelengths) != 2:
        raise ConfigurationError(
            f"{what}: 'wavelengths' must be two wavelength indices, not {wavelengths!r}"
        )
    return ctx.wavelength(wavelengths[0]), ctx.wavelength(wavelengths[1])


def axial_color(ctx, wavelengths=None):
    """Axial colour (mm): paraxial focus of the first wavelength minus that of the second.

    The difference of the back focal lengths at the two wavelengths (default
    the optic's first and last), i.e. how far apart along the axis their
    paraxial images form.
    """
    short, long = _pair(ctx, wavelengths, "axial_color")
    return paraxial(ctx.optic, short).bfl - paraxial(ctx.optic, long).bfl


def lateral_color(ctx, hx=0.0, hy=1.0, wavelengths=None):
    """Lateral colour (mm): real chief-ray image height at the first wavelength minus the second.

    Heights along the field direction of (hx, hy) on the image surface.
    """
    heights = []
    for wavelength in _pair(ctx, wavelengths, "lateral_color"):
        ray = ctx.ray(hx, hy, 0.0, 0.0, wavelength, "lateral_color")
        heights.append(_along_field(ray.x, ray.y, hx, hy))
    return heights[0] - heights[1]


def real_ray_angle(ctx, hx=0.0, hy=0.0, px=0.0, py=1.0, wavelength=None, plane="y"):
    """Angle (degrees) of the real ray (hx, hy, px, py) to the z axis at the image.

    ``plane = "y"``: atan(M / N), the angle in the y–z plane (signed);
    ``"x"``: atan(L / N); ``"total"``: the angle to the axis, acos(|N|).
    """
    ray = ctx.ray(hx, hy, px, py, ctx.wavelength(wavelength), "real_ray_angle")
    if plane == "y":
        return be.arctan2(ray.M, ray.N) * _DEGREES
    if plane == "x":
        return be.arctan2(ray.L, ray.N) * _DEGREES
    if plane == "total":
        return be.arctan2(be.sqrt(ray.L * ray.L + ray.M * ray.M), be.abs(ray.N)) * _DEGREES
    raise ConfigurationError(f"real_ray_angle plane must be 'x', 'y' or 'total', not {plane!r}")


def chief_ray_angle(ctx, hx=0.0, hy=1.0, wavelength=None):
    """Chief-ray angle (degrees) at the image, signed along the field direction.

    0 for an image-space telecentric lens; the CRA a sensor's microlenses
    accept is an ``at_most`` limit on it.
    """
    ray = ctx.ray(hx, hy, 0.0, 0.0, ctx.wavelength(wavelength), "chief_ray_angle")
    return be.arctan2(_along_field(ray.L, ray.M, hx, hy), ray.N) * _DEGREES


def magnification(ctx):
    """Paraxial lateral magnification (0 for an object at infinity)."""
    return be.asarray(ctx.first_order.magnification) + 0.0


def image_height(ctx):
    """Paraxial image height (mm) of the chief ray at the largest field."""
    return ctx.first_order.image_height


def clear_aperture(ctx, surface, fields=None, wavelength=None):
    """Largest radial height (mm) of the marginal and chief rays on surface ``surface``.

    The rays (px, py) = (0, ±1), (±1, 0) and (0, 0) of each chosen field
    (indices, default all) at ``wavelength``, traced with ``record=True``;
    heights in global coordinates (a centred system).  A ``max`` on it keeps
    the beam inside a semi-diameter.
    """
    from ..trace import trace_surfaces

    count = len(ctx.optic.surfaces)
    if isinstance(surface, bool) or not isinstance(surface, int) or not 1 <= surface < count:
        raise ConfigurationError(
            f"clear_aperture surface must be 1 to {count - 1}, not {surface!r}"
        )
    ids = range(len(ctx.optic.fields.values)) if fields is None else fields
    pupil = ((0.0, 1.0), (0.0, -1.0), (1.0, 0.0), (-1.0, 0.0), (0.0, 0.0))
    hx = be.asarray([ctx.field(i)[0] for i in ids for _ in pupil])
    hy = be.asarray([ctx.field(i)[1] for i in ids for _ in pupil])
    px = be.asarray([p[0] for _ in ids for p in pupil])
    py = be.asarray([p[1] for _ in ids for p in pupil])
    rays = trace_surfaces(ctx.optic, (hx, hy), (px, py), ctx.wavelength(wavelength))[surface]
    radius2 = be.where(rays.valid, rays.x * rays.x + rays.y * rays.y, 0.0)
    return be.sqrt(be.max(radius2) + be.machine_eps(radius2))


OPTICAL_OPERANDS = {
    "axial_color": axial_color,
    "lateral_color": lateral_color,
    "real_ray_angle": real_ray_angle,
    "chief_ray_angle": chief_ray_angle,
    "magnification": magnification,
    "image_height": image_height,
    "clear_aperture": clear_aperture,
}
