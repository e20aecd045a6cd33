"""The kernels of the compiled trace: what runs inside the graph (see :mod:`.compiled`).

The launch and the one surface loop of :mod:`optics.trace.loop`, each surface
a :func:`optics.backend.compiled_stage` (on JAX a stage of its own, so XLA does
not recompute the earlier surfaces inside every later one; elsewhere a plain
call).  Two-pass Newton graphs return the Newton roots (:func:`roots_only`)
or are given them (``roots``); with ``flagged`` the rays a graph's fixed
Newton step count leaves unconverged come out as a mask.  Roots and flags
are arguments and results, never state on a geometry.
"""

from __future__ import annotations

from ... import accel
from ..launch import launch_rays
from ..loop import surface_loop

# The kernels take no default or keyword-only arguments: the torch path compiles
# a private copy of their code, which does not carry defaults.


def launch_and_trace(surfaces, frames, indices, context, roots, flagged, qx, qy, px, py, wl):
    """The compiled kernel of a compiled trace: (rays, unconverged mask or None)."""
    rays = _launch(context, qx, qy, px, py, wl)
    traced = surface_loop(
        surfaces,
        frames,
        indices,
        rays,
        roots=roots or None,
        flag_unconverged=flagged,
        stage=accel.compiled_stage,
    )
    return traced.rays, traced.unconverged


def roots_only(surfaces, frames, indices, context, roots, flagged, qx, qy, px, py, wl):
    """The no-grad kernel of the first of two passes: the Newton roots, surface by surface.

    Not staged: the roots are results of every surface's solve, and a stage's
    values leave it only as its outputs.
    """
    rays = _launch(context, qx, qy, px, py, wl)
    return surface_loop(surfaces, frames, indices, rays, collect_roots=True).roots


def _launch(context, qx, qy, px, py, wavelength):
    optic, first_order = context
    return launch_rays(optic, qx, qy, px, py, wavelength, first_order)
