"""The coordinate break: a dummy plane after which every later surface sits in a new frame.

A ``coordinate_break`` surface is a plane in the frame of the surfaces before
it (rays pass it unchanged).  Its ``decenter`` [dx, dy] (mm) and ``tilt``
[rx, ry, rz] (degrees) then move the coordinate system of every following
surface, and its ``thickness`` runs along the new z axis.  ``order`` says in
which order: 0 decenters first and then tilts about x, the new y and the new z
(R = Rx Ry Rz); 1 tilts about z, the new y and the new x first (R = Rz Ry Rx)
and then decenters along the tilted axes.  This is OpticStudio's coordinate
break (docs/zemax.md); :func:`optics.frames.surface_frames` applies it.
"""

from __future__ import annotations

from ..errors import LensFileError
from .base import register
from .conic import Standard


@register
class CoordinateBreak(Standard):
    """A plane that changes the frame of all later surfaces (see the module docstring).

    Parameters
    ----------
    order : int
        0: decenter, then tilt x, y, z; 1: tilt z, y, x, then decenter.
    """

    type_name = "coordinate_break"
    spec_keys = ("order",)
    is_coordinate_break = True

    def __init__(self, order=0):
        super().__init__()
        self.order = order

    @classmethod
    def from_spec(cls, spec, where):
        order = spec.get("order", 0)
        if order not in (0, 1) or isinstance(order, bool):
            raise LensFileError(f"{where}: key 'order' must be 0 or 1, not {order!r}")
        return cls(int(order))

    def to_spec(self):
        return {"order": self.order} if self.order else {}
