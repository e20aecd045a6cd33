"""The kernels of the compiled trace: what runs inside the graph (see :mod:`.compiled`).

The launch and, surface by surface, exactly the eager code of
:func:`optics.trace.propagate.through_surface`; each surface is a
:func:`optics.backend.compiled_stage` (on JAX a stage of its own, so XLA does
not recompute the earlier surfaces inside every later one; elsewhere a plain
call).  Two-pass Newton graphs collect or are given the Newton roots
(:func:`with_roots`); the rays a graph's fixed Newton step count leaves
unconverged come out as a mask (:func:`with_flags`).
"""

from __future__ import annotations

import copy
import dataclasses

from .. import backend as be
from ..geometry.newton_base import NewtonRaphsonGeometry
from ..rays import Rays
from .launch import launch_rays
from .propagate import through_surface

RAY_FIELDS = ("x", "y", "z", "L", "M", "N", "wavelength", "intensity", "opd", "valid")


def _same(index):
    """The media are passed as their indices already."""
    return index


def _surface_loop(surfaces, frames, indices, rays, staged):
    """Surfaces 1..image; the same array object before and after means the same medium.

    ``staged``: each surface a :func:`optics.backend.compiled_stage` (XLA would
    otherwise recompute the earlier surfaces inside every later one).

    Returns the rays and, when a Newton geometry collects its unconverged rays
    (:func:`with_flags`), the mask of rays that reached a Newton surface valid
    and left it unconverged (else None).
    """
    flagged = any(hasattr(s.geometry, "unconverged_sink") for s in surfaces)
    state = tuple(getattr(rays, name) for name in RAY_FIELDS)
    if flagged:
        state += (be.full_like(rays.valid, False),)
    for i in range(1, len(surfaces)):
        step = _Surface(surfaces[i], frames[i], indices[i - 1], indices[i], flagged)
        state = be.compiled_stage(step, state) if staged else step(state)
    return Rays(*state[: len(RAY_FIELDS)]), (state[-1] if flagged else None)


@dataclasses.dataclass(frozen=True)
class _Surface:
    """One surface of the loop as a function of the ray fields (a compiled stage).

    ``flagged``: the state ends with the unconverged-rays mask, which a Newton
    surface's ``unconverged_sink`` adds to.
    """

    surface: object
    frame: object
    before: object
    after: object
    flagged: bool = False

    def __call__(self, state):
        given = Rays(*state[: len(RAY_FIELDS)])
        rays = through_surface(self.surface, self.frame, given, self.before, self.after, _same)
        out = tuple(getattr(rays, name) for name in RAY_FIELDS)
        if not self.flagged:
            return out
        flag, sink = state[-1], getattr(self.surface.geometry, "unconverged_sink", None)
        if sink:
            flag = be.logical_or(flag, be.logical_and(sink.pop(), given.valid))
        return (*out, flag)


# The kernels take no default or keyword-only arguments: the torch path compiles
# a private copy of their code, which does not carry defaults.


def launch_and_trace(surfaces, frames, indices, context, qx, qy, px, py, wavelength):
    """The compiled kernel of :func:`.compiled.trace_rays_compiled`: (rays, unconverged or None)."""
    return _surface_loop(
        surfaces, frames, indices, _launch(context, qx, qy, px, py, wavelength), True
    )


def trace_only(surfaces, frames, indices, context, *components):
    """The compiled kernel of :func:`.compiled.propagate_compiled`: (rays, unconverged or None)."""
    return _surface_loop(surfaces, frames, indices, Rays(*components), True)


def _launch(context, qx, qy, px, py, wavelength):
    optic, first_order = context
    return launch_rays(optic, qx, qy, px, py, wavelength, first_order)


def roots_only(surfaces, frames, indices, context, *inputs):
    """The no-grad kernel of the first of two passes: the Newton roots, surface by surface.

    Not staged: the roots are collected while the surfaces are traced, and a
    stage's values do not leave it except as its outputs.
    """
    rays = Rays(*inputs) if context is None else _launch(context, *inputs)
    _surface_loop(surfaces, frames, indices, rays, False)
    for surface in surfaces:  # every Newton surface appended to the same list, in order
        sink = getattr(surface.geometry, "root_sink", None)
        if sink is not None:
            return tuple(sink)
    return ()


def with_roots(surfaces, roots):
    """Surfaces whose Newton geometries collect (list) or are given (tuple) their roots."""
    given = iter(roots) if isinstance(roots, tuple) else None

    def change(geometry):
        if given is None:
            geometry.root_sink = roots
        else:
            geometry.given_root = next(given)

    return _newton_copies(surfaces, change)


def with_flags(surfaces):
    """Surfaces whose Newton geometries collect their unconverged rays (a list each)."""
    return _newton_copies(surfaces, lambda geometry: setattr(geometry, "unconverged_sink", []))


def _newton_copies(surfaces, change):
    """``surfaces`` with each Newton geometry a shallow copy that ``change`` has modified."""
    out = []
    for surface in surfaces:
        if isinstance(surface.geometry, NewtonRaphsonGeometry):
            geometry = copy.copy(surface.geometry)
            change(geometry)
            surface = dataclasses.replace(surface, geometry=geometry)
        out.append(surface)
    return out
