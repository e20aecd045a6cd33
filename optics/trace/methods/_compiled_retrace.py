"""The rays a compiled trace left unconverged, traced again eagerly (see :mod:`.compiled`).

A graph's fixed Newton step count would lose rays the eager loop goes on with up to the
geometry's ``max_iter``; traced again from the start (usually none), their results replace
the graph's through a scatter that gradients pass through, so every ray equals the eager
trace's.  One host read per trace; under a caller's ``jax.jit`` the fixed count decides.
"""

from __future__ import annotations

from ... import backend as be
from ...solvers import forced_iterations
from ..launch import launch_rays
from ..loop import RAY_FIELDS
from ..prepared import propagate

#: Fields the replacement writes; the wavelength is the caller's input.
_REPLACED = tuple(name for name in RAY_FIELDS if name != "wavelength")


def retrace_unconverged(system, inputs, rays, unconverged):
    """``rays`` (the graph's result) with those flagged in ``unconverged`` traced again eagerly.

    ``inputs`` are the kernel's (qx, qy, px, py, wavelength) before padding, broadcasting
    to the shape of ``rays`` and ``unconverged``.
    """
    if be.is_compiling(unconverged):
        return rays
    unconverged = be.detach(unconverged)  # under an eager jax.grad: the concrete mask
    if not be.item(be.any(unconverged)):  # the one host read
        return rays
    shape = tuple(unconverged.shape)
    mask = be.reshape(unconverged, (-1,))

    def flat(value):
        return be.reshape(be.broadcast_to(be.asarray(value), shape), (-1,))

    # The eager loop's own step limit, whatever count a caller forced on the graph.
    with forced_iterations(None):
        subset = [flat(value)[mask] for value in inputs]
        launched = launch_rays(system.optic, *subset, system.first_order)
        again = propagate(system, launched)
    replaced = {
        name: be.reshape(be.scatter(flat(getattr(rays, name)), mask, getattr(again, name)), shape)
        for name in _REPLACED
    }
    return rays.replace(**replaced)
