"""The public ray traces: the rays at the image, and the rays at every surface."""

from __future__ import annotations

from .. import accel
from ..fields_vignetting import vignetted_pupil_at
from ..limits import check_wavelength
from .methods import RayBatch, resolve
from .prepared import prepare
from .real_image_height import field_parameters


def trace_rays(system, field, pupil, wavelength=None, *, method=None, aiming=None):
    """Trace real rays to the image surface.

    Parameters
    ----------
    system : Optic or PreparedSystem
        The system (:func:`optics.trace.prepare` once to share its frames,
        first-order data and field solves between calls).
    field : (hx, hy)
        Normalized field coordinates (field / largest field magnitude),
        floats or arrays.
    pupil : (px, py)
        Normalized pupil coordinates, floats or arrays: on the paraxial
        entrance pupil (``[aiming] mode = "paraxial"``) or on the stop, in
        units of the stop radius (``"real"``; see :mod:`optics.trace.aim`).
        A field with vignetting factors (``optic.fields.vignetting``) maps
        them onto its vignetted pupil first (:mod:`optics.fields_vignetting`).
    wavelength : float or array, optional
        Wavelength(s) in micrometres; the primary wavelength by default.
        Every input broadcasts together.
    method : TraceMethod or str, optional
        How the batch is traced (:mod:`optics.trace.methods`: "eager",
        "blocked", "streamed", "compiled"); the default blocks large batches
        where the backend gains.
    aiming : {"paraxial", "real"}, optional
        Overrides the optic's ``[aiming] mode``.

    Returns
    -------
    Rays
        The rays at the image surface, in global coordinates, shaped like
        the broadcast inputs.
    """
    return _traced(system, field, pupil, wavelength, method, aiming, ()).rays


def trace_surfaces(system, field, pupil, wavelength=None, *, method=None, aiming=None):
    """The rays at every surface, from the launch (index 0) to the image (for plots).

    Parameters as :func:`trace_rays`; the method must keep the rays along the
    way (every method but "compiled").

    Returns
    -------
    list of Rays
        One per surface, in global coordinates, shaped like the broadcast inputs.
    """
    system = prepare(system, aiming)
    count = len(system.surfaces)
    traced = _traced(system, field, pupil, wavelength, method, None, tuple(range(count)))
    return [traced.kept[i] for i in range(count - 1)] + [traced.rays]


def _traced(system, field, pupil, wavelength, method, aiming, keep):
    # The checks that read values on the host run once, after the trace.
    if isinstance(wavelength, (int, float)):
        check_wavelength(wavelength)  # arrays are not read here: that would sync the device
    method = resolve(method)
    with accel.deferred_reads():
        system = prepare(system, aiming)
        wavelength = system.optic.primary_wavelength if wavelength is None else wavelength
        hx, hy = field
        qx, qy = field_parameters(system, hx, hy)
        px, py = vignetted_pupil_at(system.optic.fields, hx, hy, *pupil)
        batch = RayBatch(qx, qy, px, py, wavelength, True, keep)
        return method.trace(system, batch)
