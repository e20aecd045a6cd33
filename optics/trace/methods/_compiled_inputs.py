"""The inputs of a compiled trace (:mod:`.compiled`): padding, per-ray views, topology."""

from __future__ import annotations

import copy
import dataclasses

from ... import backend as be
from ...surfaces import media


class PerRayViews:
    """Scalars that record gradients as per-ray (stride-0) views; all else unchanged.

    A scalar's gradient summed at every surface would split Inductor's backward into a loop
    per surface (docs/performance.md); only for tape autodiff: on JAX a broadcast is a real
    array.  Surfaces, frames and paraxial data are shallow-copied, never modified.
    """

    def __init__(self, bucket):
        self.bucket = bucket
        self.active = be.grad_active() and be.autodiff_kind() == "tape"

    def __call__(self, value):
        if self.active and be.is_array(value) and value.ndim == 0 and be.requires_grad(value):
            return be.broadcast_to(value, (self.bucket,))
        return value

    def _changed(self, items):
        viewed = ((name, value, self(value)) for name, value in items)
        return {name: view for name, value, view in viewed if view is not value}

    def dataclass(self, obj):
        """A frozen dataclass with its scalar fields viewed per ray."""
        changes = self._changed((f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj))
        return dataclasses.replace(obj, **changes) if changes else obj

    def frame(self, frame):
        """A frame with its vertex and rotation entries viewed per ray."""
        changes = self._changed((name, getattr(frame, name)) for name in ("x", "y", "z"))
        if frame.rotation is not None:
            rotation = tuple(tuple(self(v) for v in row) for row in frame.rotation)
            if any(a is not b for r, q in zip(rotation, frame.rotation) for a, b in zip(r, q)):
                changes["rotation"] = rotation
        return dataclasses.replace(frame, **changes) if changes else frame

    def surface(self, surface):
        """A surface whose geometry's scalar attributes are viewed per ray (nested lists stay)."""
        changes = self._changed(vars(surface.geometry).items()) if self.active else {}
        if not changes:
            return surface
        geometry = copy.copy(surface.geometry)
        vars(geometry).update(changes)
        return dataclasses.replace(surface, geometry=geometry)


def padded(array, shape, n, bucket):
    """``array`` broadcast to ``shape``, flattened and padded to ``bucket`` with its first value."""
    flat = be.reshape(be.broadcast_to(array, shape), (n,))
    if bucket == n:
        return flat
    # The first entry repeated: a real ray of this batch, so the padding stays finite.
    return be.concatenate([flat, be.broadcast_to(flat[:1], (bucket - n,))])


def unpadded(array, shape, n):
    """The first n entries of a padded result, in the broadcast ``shape``."""
    if not array.ndim:
        return array
    return be.reshape(array if array.shape[0] == n else array[:n], shape)


def topology(optic):
    """What fixes the structure of the graph, besides the parameter values."""
    first_seen = {}
    rows = []
    for surface, (material, direction) in zip(optic.surfaces, media(optic.surfaces)):
        slot = first_seen.setdefault(id(material), len(first_seen))
        kind = (type(surface.geometry).__qualname__, surface.is_mirror, slot, direction)
        limits = (surface.semi_diameter is None, surface.aperture, surface.obscuration is None)
        rows.append((*kind, *limits, surface.has_frame))
    return (optic.object_at_infinity, optic.fields.object_telecentric, tuple(rows))
