"""The public ray-trace entry: eager or compiled, chosen above both."""

from __future__ import annotations

from .. import backend as be
from .._paraxial import paraxial
from ..errors import ConfigurationError
from ..limits import check_wavelength
from .aim import launch, with_aiming
from .blocks import in_blocks
from .compiled import trace_rays_compiled
from .propagate import propagate, shared_lookup
from .real_image_height import field_parameters


def trace_rays(
    optic, hx, hy, px, py, wavelength=None, *, record=False, compiled=False, aiming=None
):
    """Trace real rays to the image surface.

    Parameters
    ----------
    optic : Optic
        The system.
    hx, hy : float or array
        Normalized field coordinates (field / largest field magnitude).
    px, py : float or array
        Normalized pupil coordinates: on the paraxial entrance pupil
        (``[aiming] mode = "paraxial"``) or on the stop, in units of the stop
        radius (``"real"``; see :mod:`optics.trace.aim`).
    wavelength : float or array, optional
        Wavelength(s) in micrometres; the primary wavelength by default.
    record : bool
        Also return the rays at every surface (for plots).
    compiled : bool
        Run the launch and the whole surface loop as one compiled graph
        (torch or jax backend; see :mod:`optics.trace.compiled`).  Not
        combinable with ``record``.
    aiming : {"paraxial", "real"}, optional
        Overrides the optic's ``[aiming] mode``.

    Returns
    -------
    Rays
        The rays at the image surface, in global coordinates (all inputs
        broadcast together); with ``record=True`` a list of Rays, one per
        surface from the launch point (index 0) to the image.
    """
    # The checks that read values on the host run once, after the trace.
    if isinstance(wavelength, (int, float)):
        check_wavelength(wavelength)  # arrays are not read here: that would sync the device
    with be.deferred_reads():
        optic = with_aiming(optic, aiming)
        return _trace_rays(optic, hx, hy, px, py, wavelength, record, compiled)


def _trace_rays(optic, hx, hy, px, py, wavelength, record, compiled):
    if compiled:
        if record:
            raise ConfigurationError("trace_rays: record=True is not available with compiled=True")
        return trace_rays_compiled(optic, hx, hy, px, py, wavelength)
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    first_order = paraxial(optic)
    qx, qy = field_parameters(optic, hx, hy, first_order)
    lookups = {}

    def run(qx, qy, px, py, part):
        rays = launch(optic, qx, qy, px, py, part, first_order)
        index = shared_lookup(rays.wavelength, part is wavelength, lookups)
        return propagate(optic, rays, record=record, index=index)

    # Without a gradient to record, large batches run in cache-sized blocks (optics.trace.blocks).
    return in_blocks(run, (qx, qy, px, py, wavelength))
