"""The public ray traces: the rays at the image, and the rays at every surface."""

from .. import accel
from ..fields_vignetting import vignetted_pupil_at
from ..limits import check_wavelength
from .methods import RayBatch, resolve
from .prepared import pinned_to, prepare
from .real_image_height import field_parameters


def trace_rays(system, field, pupil, wavelength=None, *, method=None, aiming=None):
    """Trace real rays: the Rays at the image surface, shaped like the broadcast inputs.

    Parameters
    ----------
    system : Optic or PreparedSystem
    field, pupil : (hx, hy), (px, py)
        Normalized field and pupil coordinates, floats or arrays (docs/tracing.md;
        a field's vignetting factors map the pupil first, :mod:`optics.fields_vignetting`).
    wavelength : float or array, any shape, optional
        Micrometres; the primary wavelength by default. Every input broadcasts.
    method : TraceMethod or str, optional
        How the batch is traced (:mod:`optics.trace.methods`).
    aiming : {"paraxial", "real"}, optional
        Overrides the optic's ``[aiming] mode``.

    Returns
    -------
    Rays
        At the image surface in global coordinates (mm), each component of the
        broadcast shape S of the inputs; ``opd`` is the optical path (mm) from
        the launch, ``valid`` False for failed or vignetted rays.
    """
    return _traced(system, field, pupil, wavelength, method, aiming, ()).rays


def trace_surfaces(system, field, pupil, wavelength=None, *, method=None, aiming=None):
    """A list of the Rays at every surface, from the launch (index 0) to the image (for plots).

    Parameters
    ----------
    system : Optic or PreparedSystem
    field, pupil : (hx, hy), (px, py)
        Normalized field and pupil coordinates, floats or arrays, as for :func:`trace_rays`.
    wavelength : float or array, any shape, optional
        Micrometres; the primary wavelength by default. Every input broadcasts.
    method : TraceMethod or str, optional
        Any method but "compiled" (it keeps no rays on the way).
    aiming : {"paraxial", "real"}, optional
        Overrides the optic's ``[aiming] mode``.

    Returns
    -------
    list of Rays
        One per surface (len = number of surfaces): index 0 the launched rays in
        object space, index i the rays leaving surface i, the last at the image;
        global coordinates (mm), each component of the inputs' broadcast shape S.
    """
    system = prepare(system, aiming)
    count = len(system.surfaces)
    traced = _traced(system, field, pupil, wavelength, method, None, tuple(range(count)))
    return [traced.kept[i] for i in range(count - 1)] + [traced.rays]


def _traced(system, field, pupil, wavelength, method, aiming, keep):
    if isinstance(wavelength, (int, float)):
        check_wavelength(wavelength)  # arrays are not read here: that would sync the device
    method = resolve(method)
    with accel.deferred_reads(), pinned_to(prepare(system, aiming)) as system:
        wavelength = system.optic.primary_wavelength if wavelength is None else wavelength
        hx, hy = field
        qx, qy = field_parameters(system, hx, hy)
        px, py = vignetted_pupil_at(system.optic.fields, hx, hy, *pupil)
        return method.trace(system, RayBatch(qx, qy, px, py, wavelength, True, keep))
