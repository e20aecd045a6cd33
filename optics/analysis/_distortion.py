"""Distortion of the real chief ray against a distortion-free reference, and grid distortion.

percent = 100 (y_real − y_ref) / y_ref at each normalized field hy (hx = 0),
y_real the real chief ray's height on the image surface at that wavelength
(in the image surface's frame).  The reference is linear in the object-space
field parameter q (:func:`optics.trace.real_image_height.field_parameters`):
y_ref = f q with f the paraxial image height per unit q at that wavelength,
traced from the primary wavelength's entrance pupil to the image surface.
For an object at infinity q = tan θ, so y_ref = f tan θ with f the limit of
y/tan θ as θ → 0 (the ``"f-tan"`` reference; ``"f-theta"`` uses f θ
instead); for a finite object q is the object height and y_ref the
paraxial image height.  Positive is pincushion, negative barrel; on axis the
value is 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import backend as be
from .._notebook import NotebookView
from .._paraxial import basis_rays
from ..errors import ConfigurationError
from ..limits import MAX_FIELDS, check_size
from ..trace import prepare, trace_rays
from ..trace.prepared import takes_system
from ..trace.real_image_height import field_parameters
from ._field_curvature import normalized_fields
from .spot import in_image_frame

__all__ = ["REFERENCES", "DistortionResult", "GridDistortion", "distortion", "grid_distortion"]

REFERENCES = ("f-tan", "f-theta")


@dataclass(frozen=True, repr=False)
class DistortionResult(NotebookView):
    """Distortion in percent and the heights behind it (mm), each shape (wavelengths, fields)."""

    fields: list
    wavelengths: list
    reference: str
    percent: object
    real: object
    ideal: object

    def as_dict(self) -> dict:
        """The ``optics distortion --json`` object."""
        return {
            "fields": [float(f) for f in self.fields],
            "wavelengths": [float(w) for w in self.wavelengths],
            "percent": be.to_numpy(self.percent).tolist(),
        }


@dataclass(frozen=True)
class GridDistortion:
    """Real and reference chief-ray points (mm) on an n × n grid of normalized fields."""

    hx: object
    hy: object
    wavelength: float
    real_x: object
    real_y: object
    ideal_x: object
    ideal_y: object


def unit_image_height(system, wavelength):
    """f: the paraxial image height (mm) per unit field parameter q at ``wavelength``.

    The paraxial chief ray through the centre of the primary wavelength's
    entrance pupil, traced at ``wavelength`` to the image surface.
    ``system``: an Optic or a PreparedSystem.
    """
    system = prepare(system)
    optic, first_order = system.optic, system.first_order
    rays = basis_rays(optic, wavelength)
    ep = first_order.ep_position
    if optic.object_at_infinity:
        y1, u0 = -ep, 1.0
    else:
        t0 = optic.surfaces[0].thickness
        u0 = -1.0 / (ep + t0)
        y1 = 1.0 + u0 * t0
    return rays.ray(y1, u0, optic.image_index)[0]


def _reference(optic, q, per_q, reference):
    if reference == "f-tan":
        return per_q * q
    if not optic.object_at_infinity:
        raise ConfigurationError(
            "distortion reference 'f-theta' needs an object at infinity (field angles); "
            "this lens has a finite object: use 'f-tan' (the paraxial image height)"
        )
    return per_q * be.arctan(q)


def _check_reference(reference):
    if reference not in REFERENCES:
        raise ConfigurationError(
            f"distortion reference must be one of {', '.join(REFERENCES)}, not {reference!r}"
        )


@takes_system
def distortion(
    optic, fields=None, wavelengths=None, points=21, reference="f-tan"
) -> DistortionResult:
    """Distortion (percent) of the real chief ray versus normalized field.

    Parameters
    ----------
    optic : Optic
    fields : sequence of float, optional
        Normalized field heights hy (hx = 0); default ``points`` from 0 to 1.
    wavelengths : sequence of float, optional
        µm (default: the lens's wavelengths).
    points : int
    reference : {"f-tan", "f-theta"}

    Returns
    -------
    DistortionResult
        ``percent``, ``real``, ``ideal`` shaped (W, F); NaN where a chief ray fails.
    """
    _check_reference(reference)
    fields = normalized_fields(points) if fields is None else [float(f) for f in fields]
    wavelengths = list(optic.wavelengths.values) if wavelengths is None else list(wavelengths)
    system = prepare(optic)
    hy = be.asarray(fields)
    _, q = field_parameters(system, be.zeros_like(hy), hy)
    percent, real, ideal = [], [], []
    for wavelength in wavelengths:
        y_real, y_ref = chief_heights(system, hy, q, wavelength, reference)
        on_axis = be.abs(y_ref) == 0.0
        ratio = (y_real - y_ref) / be.where(on_axis, 1.0, y_ref)
        percent.append(be.where(on_axis, 0.0, 100.0 * ratio))
        real.append(y_real)
        ideal.append(y_ref)
    return DistortionResult(
        fields, wavelengths, reference, be.stack(percent), be.stack(real), be.stack(ideal)
    )


def chief_heights(system, hy, q, wavelength, reference="f-tan"):
    """(y_real, y_ref) in mm at normalized fields ``hy`` with field parameters ``q``."""
    system = prepare(system)
    optic = system.optic
    rays = trace_rays(system, (be.zeros_like(hy), hy), (0.0, 0.0), wavelength)
    rays = in_image_frame(optic, rays)
    y_real = be.where(rays.valid, rays.y, float("nan"))
    per_q = unit_image_height(system, wavelength)
    return y_real, _reference(optic, q, per_q, reference)


@takes_system
def grid_distortion(optic, points=11, wavelength=None, reference="f-tan") -> GridDistortion:
    """Chief-ray points on a square grid of fields and their distortion-free positions.

    The grid spans normalized fields −1..1 in x and y (``points`` per side;
    the lens's largest field magnitude is 1; for field angles and the f-tan
    reference, angles whose tangents are evenly spaced, so that the reference
    grid is square on the image), the reference being
    ``f · q`` (or, for ``"f-theta"``, ``f · atan|q|`` along ``q``).

    Parameters
    ----------
    optic : Optic or PreparedSystem
    points : int
        Grid points per side, n: 2 to ``optics.limits.MAX_FIELDS``.
    wavelength : float, optional
        µm; the primary wavelength by default.
    reference : {"f-tan", "f-theta"}
        The distortion-free mapping; ``"f-theta"`` needs an object at infinity.

    Returns
    -------
    GridDistortion
        ``hx``, ``hy``: the normalized fields, arrays of shape (n, n) (row: hy,
        column: hx); ``wavelength`` (µm); ``real_x``, ``real_y``: the real
        chief-ray points in the image surface's frame (mm, shape (n, n), NaN
        where the chief ray fails); ``ideal_x``, ``ideal_y``: the reference
        points (mm, shape (n, n)).
    """
    _check_reference(reference)
    wavelength = optic.primary_wavelength if wavelength is None else float(wavelength)
    points = check_size(points, MAX_FIELDS, "grid points", lowest=2)  # points² chief rays
    steps = [2.0 * i / (points - 1) - 1.0 for i in range(points)]
    if optic.fields.type == "angle" and optic.object_at_infinity and reference == "f-tan":
        # Angles whose tangents are evenly spaced: the reference grid is square on the image.
        top = math.radians(optic.fields.max_magnitude)
        steps = [math.atan(s * math.tan(top)) / top for s in steps]
    hx = be.asarray([[s for s in steps] for _ in steps])
    hy = be.asarray([[t for _ in steps] for t in steps])
    flat_x, flat_y = be.reshape(hx, (-1,)), be.reshape(hy, (-1,))
    system = prepare(optic)
    qx, qy = field_parameters(system, flat_x, flat_y)
    rays = in_image_frame(optic, trace_rays(system, (flat_x, flat_y), (0.0, 0.0), wavelength))
    per_q = unit_image_height(system, wavelength)
    radial = be.sqrt(qx * qx + qy * qy)  # f-theta is radial: f atan|q| along q/|q|
    safe = be.where(radial == 0.0, 1.0, radial)
    scale = per_q * _reference(optic, safe, 1.0, reference) / safe
    nan = float("nan")
    shape = hx.shape
    return GridDistortion(
        hx,
        hy,
        wavelength,
        be.reshape(be.where(rays.valid, rays.x, nan), shape),
        be.reshape(be.where(rays.valid, rays.y, nan), shape),
        be.reshape(scale * qx, shape),
        be.reshape(scale * qy, shape),
    )
