"""Object-space field parameters for the field types that need no solve (docs/fields.md).

``real_image_height`` fields are solved one layer up, in :mod:`.real_image_height`.
"""

from __future__ import annotations

import math

from .. import backend as be
from .._paraxial import basis_rays, paraxial
from ..errors import ConfigurationError


def object_space_field(optic, hx, hy, first_order=None):
    """(qx, qy) for normalized fields: slopes for an object at infinity, else heights in mm."""
    kind = optic.fields.type
    top = optic.fields.max_magnitude
    infinite = optic.object_at_infinity
    if kind == "real_image_height":
        raise ConfigurationError(
            "real_image_height fields need the field solve: use "
            "optics.trace.real_image_height.field_parameters"
        )
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
    """Paraxial image height (mm) of the chief ray for q = 1 (unit slope, or 1 mm of height).

    In telecentric object space the chief ray leaves parallel to the axis (the magnification).
    """
    rays = basis_rays(optic)
    ep = first_order.ep_position
    if optic.object_at_infinity:
        y1, u0 = -ep, 1.0
    elif optic.fields.object_telecentric:  # the chief ray leaves the object parallel to the axis
        y1, u0 = 1.0, 0.0
    else:
        u0 = -1.0 / (ep + optic.surfaces[0].thickness)
        y1 = 1.0 + u0 * optic.surfaces[0].thickness
    return rays.ray(y1, u0, optic.image_index)[0]
