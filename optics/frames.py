"""Where each surface sits: vertex positions along z, decenters and tilts.

Surface 1's vertex is at z = 0 and each later vertex sits at the cumulative
thickness; the object surface sits at minus its thickness.  A decentered or
tilted surface has a local frame with global = vertex + Rz(rz) Ry(ry) Rx(rx) local
(angles in degrees), applied to that surface alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from . import backend as be


@dataclass(frozen=True)
class Frame:
    """Placement of one surface: vertex (x, y, z) in mm and a rotation or None."""

    x: object
    y: object
    z: object
    rotation: tuple | None  # 3x3 nested tuples, global = vertex + R @ local

    def to_local(self, x, y, z, L, M, N):
        """Global position and direction components to this surface's frame."""
        dx, dy, dz = _shift(x, self.x, -1.0), _shift(y, self.y, -1.0), _shift(z, self.z, -1.0)
        R = self.rotation
        if R is None:
            return dx, dy, dz, L, M, N
        return (*_apply_transpose(R, dx, dy, dz), *_apply_transpose(R, L, M, N))

    def to_global(self, x, y, z, L, M, N):
        """Local position and direction components back to global coordinates."""
        R = self.rotation
        if R is not None:
            x, y, z = _apply(R, x, y, z)
            L, M, N = _apply(R, L, M, N)
        return _shift(x, self.x, 1.0), _shift(y, self.y, 1.0), _shift(z, self.z, 1.0), L, M, N


def _shift(a, offset, sign):
    """a + sign * offset, skipping a plain zero offset (a whole-array pass saved per axis)."""
    if isinstance(offset, (int, float)) and offset == 0:
        return a
    return a + offset if sign > 0 else a - offset


def _apply(R, a, b, c):
    return tuple(R[i][0] * a + R[i][1] * b + R[i][2] * c for i in range(3))


def _apply_transpose(R, a, b, c):
    return tuple(R[0][i] * a + R[1][i] * b + R[2][i] * c for i in range(3))


def rotation_matrix(rx, ry, rz):
    """Rz(rz) @ Ry(ry) @ Rx(rx) for angles in degrees, as nested tuples of scalars."""
    rad = math.pi / 180.0
    cx, sx = be.cos(be.asarray(rx) * rad), be.sin(be.asarray(rx) * rad)
    cy, sy = be.cos(be.asarray(ry) * rad), be.sin(be.asarray(ry) * rad)
    cz, sz = be.cos(be.asarray(rz) * rad), be.sin(be.asarray(rz) * rad)
    return (
        (cz * cy, cz * sy * sx - sz * cx, cz * sy * cx + sz * sx),
        (sz * cy, sz * sy * sx + cz * cx, sz * sy * cx - cz * sx),
        (-sy, cy * sx, cy * cx),
    )


def vertex_z(surfaces) -> list:
    """Vertex z of every surface in mm: surface 1 at 0, the object at −thickness₀."""
    z = [None] * len(surfaces)
    z[0] = -surfaces[0].thickness
    position = 0.0
    for i in range(1, len(surfaces)):
        z[i] = position
        position = position + surfaces[i].thickness
    return z


def surface_frames(surfaces) -> list[Frame]:
    """The frame of every surface (index 0, the object, sits at −thickness₀).

    A ``coordinate_break`` surface (optics.geometry.coordinate_break) moves the
    frame of every later surface; without one, each vertex is on the z axis.
    """
    if any(getattr(s.geometry, "is_coordinate_break", False) for s in surfaces):
        return _chained_frames(surfaces)
    frames = []
    for surface, z in zip(surfaces, vertex_z(surfaces)):
        dx, dy = surface.decenter if surface.decenter is not None else (0.0, 0.0)
        rotation = rotation_matrix(*surface.tilt) if surface.tilt is not None else None
        frames.append(Frame(dx, dy, z, rotation))
    return frames


def _chained_frames(surfaces) -> list[Frame]:
    """Frames when coordinate breaks move the axis: origin and axes carried surface to surface."""
    first = surfaces[0]
    dx, dy = first.decenter if first.decenter is not None else (0.0, 0.0)
    tilt = rotation_matrix(*first.tilt) if first.tilt is not None else None
    frames = [Frame(dx, dy, -first.thickness, tilt)]
    origin, axes = (0.0, 0.0, 0.0), None  # axes: None is the identity
    for surface in surfaces[1:]:
        decenter = surface.decenter if surface.decenter is not None else (0.0, 0.0)
        tilt = surface.tilt if surface.tilt is not None else (0.0, 0.0, 0.0)
        if getattr(surface.geometry, "is_coordinate_break", False):
            frames.append(Frame(*origin, axes))
            turns = [rotation_matrix(*angles) for angles in _axis_tilts(tilt)]
            if surface.geometry.order == 1:
                turns.reverse()  # tilt z, then y, then x; decenter last
                axes = _compose(axes, *turns)
            origin = _moved(origin, axes, (decenter[0], decenter[1], 0.0))
            if surface.geometry.order != 1:
                axes = _compose(axes, *turns)
        else:
            vertex = _moved(origin, axes, (decenter[0], decenter[1], 0.0))
            own = rotation_matrix(*surface.tilt) if surface.tilt is not None else None
            frames.append(Frame(*vertex, _compose(axes, own)))
        origin = _moved(origin, axes, (0.0, 0.0, surface.thickness))
    return frames


def _axis_tilts(tilt):
    """(rx, 0, 0), (0, ry, 0), (0, 0, rz): one rotation per axis."""
    rx, ry, rz = tilt
    return (rx, 0.0, 0.0), (0.0, ry, 0.0), (0.0, 0.0, rz)


def _compose(axes, *turns):
    """axes @ turns[0] @ turns[1] ... with None standing for the identity."""
    for turn in turns:
        if turn is None:
            continue
        if axes is None:
            axes = turn
            continue
        axes = tuple(
            tuple(sum(axes[i][k] * turn[k][j] for k in range(3)) for j in range(3))
            for i in range(3)
        )
    return axes


def _moved(origin, axes, step):
    """origin + axes @ step (a plain step when the axes are the identity)."""
    if axes is None:
        return tuple(o + s for o, s in zip(origin, step))
    return tuple(origin[i] + sum(axes[i][k] * step[k] for k in range(3)) for i in range(3))
