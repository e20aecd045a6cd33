"""FLOA with a stop that has no semi-diameter: size the stop from the other surfaces' DIAM.

OpticStudio's "float by stop size" aperture takes the beam from the stop's
semi-diameter.  Some exported files (the corpus's deeplens-ef35mm_f2.0) leave
the stop's DIAM out, which leaves the beam undefined.  The approximation used
instead: the largest stop semi-diameter s at which the real on-axis marginal
ray (pupil (0, 1), the file's own aiming mode) passes inside every other
surface's stated semi-diameter (DIAM); one surface then limits it exactly.
The real ray heights scale nearly linearly with s, so s is found by the
fixed point s ← s · min_i(DIAM_i / r_i(s)), r_i the ray's radial height in
surface i's local frame.  A stated DIAM usually also covers the off-axis
beams, so s is an upper bound of the designer's stop: the reader says so in a
:class:`ZemaxWarning` with the EPD and F/# that result (docs/zemax.md).
"""

from __future__ import annotations

import math
import warnings

from ... import backend as be
from ..._paraxial import paraxial
from ...errors import LensFileError
from ...frames import surface_frames
from ...system import Aperture
from ...trace.entry import trace_surfaces
from ._glass import ZemaxWarning

MAX_ITERATIONS = 50
CONVERGED_ULPS = 64  # the fixed point has converged within this many float64 round-offs


def size_stop(optic, limits, source):
    """Set ``optic.aperture`` to the stop diameter the surfaces' DIAM values allow.

    Parameters
    ----------
    optic : Optic
        Built with any ``stop_diameter`` aperture.
    limits : dict
        {surface index: stated semi-diameter in mm} of the surfaces other than
        the object, the stop and the image.
    source : str
        The file, for messages.
    """
    stop = optic.stop_index
    where = f"{source}: surface {stop} (the stop)"
    if not limits:
        raise LensFileError(
            f"{where}: FLOA (float by stop size) needs the stop's semi-diameter, but its DIAM "
            "is missing or 0 and no other surface states one: the beam size is undefined"
        )
    frames = surface_frames(optic.surfaces)
    tolerance = CONVERGED_ULPS * float(be.machine_eps(be.asarray(1.0)))
    semi = 1.0
    for _ in range(MAX_ITERATIONS):
        optic.aperture = Aperture("stop_diameter", 2.0 * semi)
        path = trace_surfaces(optic, (0.0, 0.0), (0.0, 1.0))
        ratio = math.inf
        for index, limit in limits.items():
            ray = path[index]
            x, y = frames[index].to_local(ray.x, ray.y, ray.z, ray.L, ray.M, ray.N)[:2]
            height = math.hypot(float(be.item(x)), float(be.item(y)))
            ratio = min(ratio, limit / height if height > 0 else math.inf)
        if not math.isfinite(ratio) or ratio <= 0:
            raise LensFileError(
                f"{where}: FLOA (float by stop size) without the stop's semi-diameter: the "
                "on-axis marginal ray used to size the stop from the other surfaces' DIAM "
                "cannot be traced; the beam size is undefined"
            )
        semi *= ratio
        if abs(ratio - 1.0) <= tolerance:
            break
    optic.aperture = Aperture("stop_diameter", 2.0 * semi)
    first_order = paraxial(optic).as_floats()
    warnings.warn(
        f"{where}: FLOA (float by stop size) but the stop has no semi-diameter (DIAM); "
        f"using {semi:.6g} mm, the largest at which the on-axis marginal ray passes every "
        f"other surface's DIAM (EPD {first_order['epd']:.6g} mm, F/# {first_order['fno']:.4g}); "
        "the designer's stop may be smaller",
        ZemaxWarning,
        stacklevel=4,
    )
