"""The rays a compiled trace left unconverged, traced again eagerly (see :mod:`.compiled`).

A compiled graph takes a fixed number of masked Newton steps per Newton
surface, with no data-dependent exit.  A ray that reached a Newton surface
valid and is not converged after those steps would be lost where the eager
loop would have gone on, up to the geometry's ``max_iter``.  The graph
returns the mask of such rays; they are traced again eagerly, from the start
(a small batch, usually none), and their results replace the graph's.  So a
compiled trace equals the eager one for every ray: the eager solve iterates
to its own limit, warns once for the rays it still rejects, and records
their gradients, which pass through the replacement (a scatter) as through
any other operation.

One host read per trace, after the graph: the count of such rays.  Under a
caller's own ``jax.jit`` nothing can be read; the fixed count decides there,
as before.
"""

from __future__ import annotations

from ... import backend as be
from ...solvers import forced_iterations
from ..launch import launch_rays
from ..prepared import propagate

#: Fields the replacement writes; the wavelength is the caller's input.
_REPLACED = ("x", "y", "z", "L", "M", "N", "intensity", "opd", "valid")


def retrace_unconverged(system, inputs, rays, unconverged):
    """``rays`` with the rays flagged in ``unconverged`` traced again eagerly.

    Parameters
    ----------
    system : PreparedSystem
        The system traced.
    inputs : list
        The kernel's inputs (qx, qy, px, py, wavelength) before padding,
        broadcasting to ``rays``' shape.
    rays : Rays
        The graph's result, in the broadcast shape.
    unconverged : bool array
        The graph's mask of rays to trace again, in the same shape.

    Returns
    -------
    Rays
        ``rays``, or a copy whose flagged rays hold the eager results.
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

    def subset(value):
        return flat(value)[mask]

    # The eager loop's own step limit, whatever count a caller forced on the graph.
    with forced_iterations(None):
        launched = launch_rays(system.optic, *map(subset, inputs), system.first_order)
        again = propagate(system, launched)
    replaced = {
        name: be.reshape(be.scatter(flat(getattr(rays, name)), mask, getattr(again, name)), shape)
        for name in _REPLACED
    }
    return rays.replace(**replaced)
