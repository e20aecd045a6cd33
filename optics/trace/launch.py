"""The launch of real rays toward the entrance pupil (conventions: docs/tracing.md, aiming.md)."""

import numpy as np

from .. import backend as be
from ..rays import Rays
from .prepared import prepare


def launch_rays(system, qx, qy, px, py, wavelength):
    """Rays (global coordinates, object space) leaving the object toward the entrance pupil.

    Parameters
    ----------
    system : Optic or PreparedSystem
        Its first-order data give the paraxial entrance pupil's position and
        diameter (mm).
    qx, qy, px, py : array, shapes broadcasting to one shape S
        Object-space field parameters (:mod:`optics.trace.object_field`: slopes, or mm)
        and normalized pupil coordinates; every input broadcasts together.
    wavelength : float or array, shape S or broadcastable to it
        Micrometres.

    Returns
    -------
    Rays
        Positions (mm, global) and unit direction cosines of shape S: for an
        object at infinity on the plane through the entrance pupil's centre
        normal to the beam, else at the object point; ``intensity`` 1, ``opd``
        0 and ``valid`` True, broadcast to S; ``wavelength`` as given.
    """
    system = prepare(system)
    return launch_from(system.optic, system.first_order, qx, qy, px, py, wavelength)


def launch_from(optic, first_order, qx, qy, px, py, wavelength):
    """:func:`launch_rays` of ``optic`` with its first-order data given (detached or viewed).

    For the trace's own solves and compiled kernels, which hold a detached or per-ray
    viewed copy of the data.

    Parameters
    ----------
    optic : Optic
    first_order : ParaxialData
        The paraxial entrance pupil's position and diameter (mm).
    qx, qy, px, py, wavelength : array
        As in :func:`launch_rays`.

    Returns
    -------
    Rays
        As in :func:`launch_rays`.
    """
    radius, z_pupil = first_order.epd / 2, first_order.ep_position
    px, py = be.asarray(px), be.asarray(py)
    if optic.object_at_infinity:
        inv = 1.0 / be.sqrt(qx * qx + qy * qy + 1.0)
        L, M, N = qx * inv, qy * inv, inv
        ax, ay = px * radius, py * radius
        # Start on the plane through the pupil centre normal to the beam: a wavefront.
        s = ax * L + ay * M
        x, y, z = ax - s * L, ay - s * M, z_pupil - s * N
    else:
        x0, y0, z0 = qx, qy, -optic.surfaces[0].thickness
        if optic.fields.object_telecentric:
            n0 = optic.surfaces[0].material.index(be.asarray(optic.primary_wavelength))
            sine = optic.aperture.value / n0  # sin U = NA / n_object: slopes in units of tan U
            slope = sine / be.sqrt(1.0 - sine * sine)
            dx, dy, dz = px * slope, py * slope, 1.0 + 0.0 * z0
        else:
            # The line through object and pupil point, travelled toward +z: for a virtual
            # object or a pupil before the object the path to surface 1 counts negative.
            forward = be.where(be.asarray(z_pupil - z0) < 0, -1.0, 1.0)
            dx, dy = (px * radius - x0) * forward, (py * radius - y0) * forward
            dz = (z_pupil - z0) * forward
        inv = 1.0 / be.sqrt(dx * dx + dy * dy + dz * dz)
        L, M, N = dx * inv, dy * inv, dz * inv
        x, y, z = x0 + 0.0 * px, y0 + 0.0 * py, z0 + 0.0 * inv
    # What is the same for every ray stays a broadcast view: no pass over memory to
    # fill it here; the first surface's arithmetic makes full arrays.
    arrays = [be.asarray(v) for v in (x, y, z, L, M, N)]
    shape = np.broadcast_shapes(*(tuple(a.shape) for a in arrays))
    x, y, z, L, M, N = (a if tuple(a.shape) == shape else be.broadcast_to(a, shape) for a in arrays)
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
