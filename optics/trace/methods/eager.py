"""The eager method: the whole batch at once (what gradients and a caller's jit/vmap see)."""

from __future__ import annotations

from dataclasses import dataclass

from ... import accel
from ... import backend as be
from ..aim import launch
from ..loop import Traced, surface_loop
from .base import RayBatch, TraceMethod


@dataclass(frozen=True, repr=False)
class Eager(TraceMethod):
    """Trace the batch in one piece."""

    name = "eager"

    def trace(self, system, batch: RayBatch) -> Traced:
        shape = batch.shape
        optic = system.optic
        q, p = (batch.qx, batch.qy), (batch.px, batch.py)
        rays = launch(optic, *q, *p, batch.wavelength, system.first_order)
        flat = len(shape) != 1
        clip, wavelength = batch.clip, batch.wavelength
        if flat:
            rays = rays.map(lambda v: be.reshape(be.broadcast_to(v, shape), (-1,)))
            if clip is not True and clip is not False:
                clip = be.reshape(be.broadcast_to(clip, shape), (-1,))
        # Every surface looks its media up once per wavelength value, laid out like the rays.
        indices = _laid_out(system.indices(wavelength), shape, flat)
        # Invalid rays carry finite garbage that may overflow; they are masked, not errors.
        # Checks that read values on the host (solver counts, glass ranges) run once, at the end.
        with be.quiet_float_errors(), accel.deferred_reads():
            traced = surface_loop(
                system.surfaces, system.frames, indices, rays, clip=clip, keep=batch.keep
            )
        if not flat:
            return traced
        restore = lambda v: be.reshape(v, shape)  # noqa: E731
        kept = {i: r.map(restore) for i, r in traced.kept.items()}
        return Traced(traced.rays.map(restore), kept)


def _laid_out(indices, shape, flat):
    """Indices broadcast and flattened like the rays (one object per distinct material)."""
    if not flat:
        return indices
    done = {}
    for n in indices:
        if id(n) not in done:
            value = be.asarray(n)
            if value.ndim and be.size(value) > 1:
                value = be.broadcast_to(value, shape)
            done[id(n)] = be.reshape(value, (-1,)) if value.ndim else value
    return tuple(done[id(n)] for n in indices)
