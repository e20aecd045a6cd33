"""Image-height fields in telecentric object space: converted to object heights at load.

optics' telecentric launch (``[fields] object_telecentric``) takes object
heights: the chief ray leaves each object point parallel to the axis.  A .zmx
file may ask for telecentric object space with paraxial or real image heights
(FTYP 2 or 3, as the corpus's US05831776 projection lens does).  In telecentric
object space the chief ray of an object point is fixed by the point alone, so
an image height names exactly one object height; the reader solves for it
once, at load, and keeps object-height fields:

- paraxial image height h′: h = h′ / m, m the paraxial magnification;
- real image height h′: the object point whose axis-parallel real chief ray
  meets the image surface at h′ (x and y), found by secant steps on each
  coordinate, h ← h − (image point − h′) / slope, the first slope m.  It
  stops when the miss is within round-off of the system's lengths, or no
  longer improves within a thousand times that.

The field type written back to a .zmx is then object height (FTYP 1), which
reads back to the same numbers (docs/zemax.md).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ... import backend as be
from ..._paraxial import paraxial
from ...errors import LensFileError
from ...frames import surface_frames
from ...solvers import ROUND_OFF_CONSTANT
from ...trace.launch import launch_rays
from ...trace.prepared import propagate
from ._glass import ZemaxWarning

IMAGE_HEIGHT_TYPES = ("paraxial_image_height", "real_image_height")
MAX_ITERATIONS = 100
ACCEPT_FACTOR = 1e3  # a stalled iteration is accepted within this many tolerances


def to_object_heights(optic, kind, targets, source):
    """Set ``optic.fields`` to the object heights of image-height ``targets`` (x, y pairs, mm).

    ``optic`` must already be built with telecentric object-height fields (any values).
    """
    m = float(be.item(paraxial(optic).magnification))
    if not math.isfinite(m) or m == 0:
        raise LensFileError(
            f"{source}: FTYP: image-height fields in telecentric object space need a finite, "
            f"nonzero paraxial magnification, not {m!r}"
        )
    target = np.asarray(targets, dtype=float).reshape(-1, 2)
    heights = target / m
    if kind == "real_image_height":
        heights = _solve_real(optic, target, heights, m, source)
    optic.fields.values = [(float(x), float(y)) for x, y in heights]
    shown = ", ".join(f"{y:.10g}" if x == 0 else f"({x:.10g}, {y:.10g})" for x, y in heights)
    warnings.warn(
        f"{source}: FTYP: {kind.replace('_', ' ')} fields in telecentric object space are "
        f"read as the object heights that image there: {shown} mm",
        ZemaxWarning,
        stacklevel=4,
    )


def _solve_real(optic, target, heights, m, source):
    """Object heights whose axis-parallel real chief rays meet the image at ``target``."""
    first_order = paraxial(optic)
    wavelength = be.asarray(optic.primary_wavelength)
    image = surface_frames(optic.surfaces)[-1]
    lengths = [1.0, float(np.max(np.abs(target)))]
    lengths += [abs(float(be.item(s.thickness))) for s in optic.surfaces[:-1]]
    tol = ROUND_OFF_CONSTANT * float(be.machine_eps(be.asarray(1.0))) * sum(lengths)
    best, previous, slope = math.inf, None, np.full_like(heights, m)
    for _ in range(MAX_ITERATIONS):
        qx, qy = be.asarray(heights[:, 0]), be.asarray(heights[:, 1])
        rays = propagate(optic, launch_rays(optic, qx, qy, 0.0, 0.0, wavelength, first_order))
        local = image.to_local(rays.x, rays.y, rays.z, rays.L, rays.M, rays.N)
        miss = np.stack([be.to_numpy(local[0]), be.to_numpy(local[1])], axis=-1) - target
        size = float(np.max(np.abs(miss)))
        if not math.isfinite(size):
            break
        if size <= tol or (size >= best and size <= ACCEPT_FACTOR * tol):
            return heights
        best = min(best, size)
        if previous is not None:  # secant slopes, each coordinate on its own
            step, change = heights - previous[0], miss - previous[1]
            usable = (step != 0) & (change != 0)
            slope = np.where(usable, change / np.where(usable, step, 1.0), slope)
        previous = heights, miss
        heights = heights - miss / slope
    raise LensFileError(
        f"{source}: FTYP: real-image-height fields in telecentric object space: no object "
        f"height images at {target[:, 1].tolist()} mm with an axis-parallel chief ray (the "
        "chief ray misses, or the solve does not converge)"
    )
