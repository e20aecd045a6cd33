"""The launch of real rays from object-space field parameters toward the pupil.

Rays are aimed at the paraxial entrance pupil: normalized pupil (px, py) is
the point (px, py) * EPD/2 on the entrance-pupil plane.  In object-space
telecentric systems (``[fields] object_telecentric``) the chief ray leaves the
object parallel to the axis and (px, py) are ray slopes in units of tan U,
sin U = NA / n_object (so the rim of the pupil is the object-space NA cone).  The field parameters
q = (qx, qy) come from :mod:`optics.trace.object_field` (ray slopes for an
object at infinity, object heights in mm otherwise).  Rays from a finite object
travel toward +z, also from a virtual object (a negative object distance: the
object plane lies behind surface 1 and the beam converges toward it).
"""

from __future__ import annotations

import numpy as np

from .. import backend as be
from ..rays import Rays


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
        if optic.fields.object_telecentric:
            slope = telecentric_slope(optic)
            dx, dy, dz = px * slope, py * slope, 1.0 + 0.0 * z0
        else:
            # The line through the object point and the pupil point, travelled toward +z
            # (object space runs to +z): for a virtual object (negative object distance,
            # the object plane behind surface 1) or a pupil before the object, that is
            # from the pupil point toward the object point; the ray then reaches surface
            # 1 at a negative distance, its path counted negative, as OpticStudio does.
            forward = be.where(be.asarray(z_pupil - z0) < 0, -1.0, 1.0)
            dx, dy = (px * radius - x0) * forward, (py * radius - y0) * forward
            dz = (z_pupil - z0) * forward
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


def telecentric_slope(optic):
    """tan U of the object-space marginal ray, sin U = NA / n_object (object_na aperture).

    The object medium's index is taken at the primary wavelength, as for the
    paraxial entrance pupil.
    """
    n0 = optic.surfaces[0].material.index(be.asarray(optic.primary_wavelength))
    sine = optic.aperture.value / n0
    return sine / be.sqrt(1.0 - sine * sine)
