"""Field points in object space and the launch of real rays.

A normalized field (hx, hy) is a field divided by the largest field
magnitude.  Each field type maps it to object-space field parameters
q = (qx, qy): ray slopes (tan of the angles) for an object at infinity, object
heights in mm for an object at a finite distance.  Rays are then aimed at the
paraxial entrance pupil: normalized pupil (px, py) is the point
(px, py) * EPD/2 on the entrance-pupil plane.
"""

from __future__ import annotations

import math

import numpy as np

from . import backend as be
from .errors import ConfigurationError
from .paraxial import basis_rays, paraxial
from .rays import Rays


def object_space_field(optic, hx, hy, first_order=None):
    """Object-space field parameters (qx, qy) for normalized fields (hx, hy).

    Returns slopes for an object at infinity and heights (mm) otherwise.
    """
    kind = optic.fields.type
    top = optic.fields.max_magnitude
    infinite = optic.object_at_infinity
    if kind == "real_image_height":
        from .field_solve import solve_real_image_height

        return solve_real_image_height(optic, hx, hy, first_order)
    first_order = paraxial(optic) if first_order is None else first_order
    distance = None if infinite else first_order.ep_position + optic.surfaces[0].thickness
    if kind == "angle":
        degrees_to_radians = math.pi / 180.0
        qx = be.tan(be.asarray(hx) * (top * degrees_to_radians))
        qy = be.tan(be.asarray(hy) * (top * degrees_to_radians))
        return (qx, qy) if infinite else (-distance * qx, -distance * qy)
    if kind == "object_height":
        if infinite:
            raise ConfigurationError(
                "field type 'object_height' needs an object at a finite distance"
            )
        return be.asarray(hx) * top, be.asarray(hy) * top
    # paraxial_image_height: q scales linearly with the paraxial image height.
    per_unit = top / unit_field_image_height(optic, first_order)
    return be.asarray(hx) * per_unit, be.asarray(hy) * per_unit


def unit_field_image_height(optic, first_order):
    """Paraxial image height (mm) for q = 1 (unit slope, or 1 mm of object height)."""
    rays = basis_rays(optic)
    ep = first_order.ep_position
    if optic.object_at_infinity:
        y1, u0 = -ep, 1.0
    else:
        u0 = -1.0 / (ep + optic.surfaces[0].thickness)
        y1 = 1.0 + u0 * optic.surfaces[0].thickness
    return rays.ray(y1, u0, optic.image_index)[0]


def _broadcast(*arrays):
    shape = np.broadcast_shapes(*(tuple(a.shape) for a in arrays))
    return [a if tuple(a.shape) == shape else be.broadcast_to(a, shape) for a in arrays]


def launch_rays(optic, qx, qy, px, py, wavelength, first_order):
    """Rays leaving the object toward the paraxial entrance pupil.

    Parameters
    ----------
    qx, qy : array
        Object-space field parameters from :func:`object_space_field`.
    px, py : array
        Normalized pupil coordinates; all inputs broadcast together.
    wavelength : array
        Wavelength(s) in micrometres.
    first_order : ParaxialData
        Provides the entrance pupil position and diameter.
    """
    radius = first_order.epd / 2
    z_pupil = first_order.ep_position
    px, py = be.asarray(px), be.asarray(py)
    if optic.object_at_infinity:
        inv = 1.0 / be.sqrt(qx * qx + qy * qy + 1.0)
        L, M, N = qx * inv, qy * inv, inv
        ax, ay = px * radius, py * radius
        # Start on the plane through the pupil centre normal to the beam, so
        # the optical path is measured from a wavefront of the incoming beam.
        s = ax * L + ay * M
        x, y, z = ax - s * L, ay - s * M, z_pupil - s * N
    else:
        x0, y0, z0 = qx, qy, -optic.surfaces[0].thickness
        dx, dy, dz = px * radius - x0, py * radius - y0, z_pupil - z0
        inv = 1.0 / be.sqrt(dx * dx + dy * dy + dz * dz)
        L, M, N = dx * inv, dy * inv, dz * inv
        x, y, z = x0 + 0.0 * px, y0 + 0.0 * py, z0 + 0.0 * inv
    x, y, z, L, M, N = _broadcast(*(be.asarray(v) for v in (x, y, z, L, M, N)))
    # What is the same for every ray (one field's direction; the start intensity,
    # path and mask) stays a read-only broadcast view: no pass over memory to
    # fill it here; the first surface's arithmetic makes full arrays.
    shape = tuple(x.shape)
    seed = be.zeros_like(x if not shape else be.reshape(x, (-1,))[:1])
    return Rays(
        x=x,
        y=y,
        z=z,
        L=L,
        M=M,
        N=N,
        wavelength=be.asarray(wavelength),
        intensity=be.broadcast_to(seed + 1.0, shape),
        opd=be.broadcast_to(seed, shape),
        valid=be.broadcast_to(be.isfinite(seed), shape),
    )
