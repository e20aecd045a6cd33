"""Field curvature: tangential and sagittal foci of the real chief ray versus field.

At each normalized field hy (hx = 0) two pairs of parabasal real rays are
traced with :func:`optics.trace_rays`, symmetric about the chief ray in the
pupil: (px, py) = (0, ±δ) in the tangential plane and (±δ, 0) in the
sagittal plane, δ = :data:`PARABASAL_OFFSET` of the normalized pupil.  Each
pair's two lines (projected on the y–z and x–z planes) intersect at the
tangential and sagittal focus; the symmetric pair cancels the first-order
error in δ, so the result is the differential-ray (Coddington) focus to
O(δ²).  δ = 1e-4 balances that truncation (~1e-8 mm on the samples) against
round-off, which grows as 1/δ (~1e-10 mm; Optiland's 1e-5 gives ~1e-9 mm,
too rough for finite-difference gradients).  The value is the z of that
intersection minus the z where the chief ray meets the image surface, signed
along the direction of travel (positive: the focus lies beyond the image
surface), in mm — the quantity Zemax and Optiland plot.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import backend as be
from ..limits import MAX_FIELDS, check_size
from ..trace import trace_rays
from ..trace.prepared import takes_system
from ._checks import require_focus
from .spot import in_image_frame

__all__ = ["PARABASAL_OFFSET", "FieldCurvatureResult", "field_curvature", "normalized_fields"]

PARABASAL_OFFSET = 1e-4
"""δ: the pupil offset (normalized) of the parabasal rays about the chief ray (float64;
in float32 it is eps^(1/3) ≈ 5e-3, where a 1e-4 offset would drown in round-off)."""


@dataclass(frozen=True)
class FieldCurvatureResult:
    """Tangential and sagittal focus shifts (mm), shape (wavelengths, fields)."""

    fields: list
    wavelengths: list
    tangential: object
    sagittal: object

    def as_dict(self) -> dict:
        """The ``optics field-curvature --json`` object."""
        return {
            "fields": [float(f) for f in self.fields],
            "wavelengths": [float(w) for w in self.wavelengths],
            "tangential": be.to_numpy(self.tangential).tolist(),
            "sagittal": be.to_numpy(self.sagittal).tolist(),
        }


def normalized_fields(points):
    """``points`` evenly spaced normalized fields from 0 to 1 (a list of floats).

    ``points`` must be 2 .. :data:`optics.limits.MAX_FIELDS` (a BudgetError otherwise, before
    anything is allocated).
    """
    points = check_size(points, MAX_FIELDS, "points", lowest=2)
    return [i / (points - 1) for i in range(points)]


@takes_system
def field_curvature(optic, fields=None, wavelengths=None, points=21) -> FieldCurvatureResult:
    """Tangential and sagittal focus of the real chief ray against the image surface.

    Parameters
    ----------
    optic : Optic
    fields : sequence of float, optional
        Normalized field heights hy (hx = 0); default ``points`` from 0 to 1.
    wavelengths : sequence of float, optional
        µm (default: the lens's wavelengths).
    points : int
        Number of fields when ``fields`` is None.

    Returns
    -------
    FieldCurvatureResult
        ``tangential`` and ``sagittal`` of shape (W, F) in mm; NaN where a
        parabasal ray fails.

    Raises
    ------
    ConfigurationError
        When the system is afocal (:func:`optics.analysis.require_focus`): its foci are at
        infinity.
    """
    fields = normalized_fields(points) if fields is None else [float(f) for f in fields]
    wavelengths = list(optic.wavelengths.values) if wavelengths is None else list(wavelengths)
    require_focus(optic, "field curvature")
    tangential, sagittal = [], []
    for wavelength in wavelengths:
        t, s = focus_shifts(optic, be.asarray(fields), wavelength)
        tangential.append(t)
        sagittal.append(s)
    return FieldCurvatureResult(fields, wavelengths, be.stack(tangential), be.stack(sagittal))


def focus_shifts(optic, hy, wavelength):
    """(tangential, sagittal) focus shifts (mm) at normalized fields ``hy`` (array, shape (F,))."""
    # Round-off grows as eps/δ and truncation as δ²: in float32 the offset is eps^(1/3).
    d = max(PARABASAL_OFFSET, be.machine_eps(hy) ** (1.0 / 3.0))
    zeros = be.zeros_like(hy)
    # Five rays per field: chief, tangential −δ/+δ, sagittal −δ/+δ.
    px = be.asarray([0.0, 0.0, 0.0, -d, d])
    py = be.asarray([0.0, -d, d, 0.0, 0.0])
    rays = trace_rays(optic, (zeros[:, None], hy[:, None]), (px[None, :], py[None, :]), wavelength)
    rays = in_image_frame(optic, rays)
    chief_z = rays.z[:, 0]
    direction = be.where(rays.N[:, 0] < 0, -1.0, 1.0)
    tangential = _crossing(rays.y, rays.M, rays.z, rays.N, 1, 2) - chief_z
    sagittal = _crossing(rays.x, rays.L, rays.z, rays.N, 3, 4) - chief_z
    ok = be.all(rays.valid, axis=1)
    nan = float("nan")
    return (
        be.where(ok, direction * tangential, nan),
        be.where(ok, direction * sagittal, nan),
    )


def _crossing(h, dh, z, dz, a, b):
    """z where rays a and b (transverse coordinate h, direction (dh, dz)) cross, per field."""
    ma, mb = dh[:, a] / dz[:, a], dh[:, b] / dz[:, b]
    ha, hb = h[:, a] - ma * z[:, a], h[:, b] - mb * z[:, b]
    return (hb - ha) / (ma - mb)
