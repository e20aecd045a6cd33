"""Colour: chromatic focal shift versus wavelength and lateral colour versus field.

Chromatic focal shift is paraxial: the distance from the last lens surface
to the paraxial image of the axial object point (the back focal length for
an object at infinity) at each wavelength, minus the same distance at the
primary wavelength (mm; positive: that wavelength focuses further along the
direction of travel).  Lateral colour is real: the image height of the real
chief ray at the shortest wavelength of the lens minus that at the longest
(mm), every wavelength aimed at the primary wavelength's entrance pupil as
in every trace.  Both are backend arithmetic and keep gradients.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import backend as be
from .._paraxial import basis_rays
from ..errors import ConfigurationError
from ..limits import MAX_WAVELENGTHS, check_size
from ..trace import trace_rays
from ..trace.prepared import takes_system
from ._checks import require_focus
from ._field_curvature import normalized_fields
from .spot import in_image_frame

__all__ = [
    "FocalShiftResult",
    "LateralColorResult",
    "back_focus",
    "chromatic_focal_shift",
    "lateral_color",
]


@dataclass(frozen=True)
class FocalShiftResult:
    """Focal shift (mm, shape (W,)) at ``wavelengths`` (µm) against ``primary``."""

    wavelengths: list
    primary: float
    shift: object

    def as_dict(self) -> dict:
        """The ``optics chromatic-focal-shift --json`` object."""
        return {
            "wavelengths": [float(w) for w in self.wavelengths],
            "shift": be.to_numpy(self.shift).tolist(),
        }


@dataclass(frozen=True)
class LateralColorResult:
    """Chief-ray height at ``short`` minus at ``long`` (mm, shape (F,)) per normalized field."""

    fields: list
    short: float
    long: float
    difference: object

    def as_dict(self) -> dict:
        """The ``optics lateral-color --json`` object."""
        return {
            "fields": [float(f) for f in self.fields],
            "difference": be.to_numpy(self.difference).tolist(),
        }


def back_focus(optic, wavelength):
    """Last surface to the paraxial image of the axial object point at ``wavelength`` (mm).

    Signed along z (negative after an odd number of mirrors, as the image lies
    toward −z); the back focal length for an object at infinity.

    Raises
    ------
    ConfigurationError
        When the system is afocal at that wavelength (no focus).
    """
    rays = basis_rays(optic, wavelength)
    if optic.object_at_infinity:
        require_focus(optic, "the chromatic focal shift", wavelength)
        y1, u0 = 1.0, 0.0
    else:
        y1, u0 = optic.surfaces[0].thickness, 1.0  # a ray from the axial object point
    y, u = rays.ray(y1, u0, optic.image_index - 1)
    return -y / u


@takes_system
def chromatic_focal_shift(
    optic, wavelengths=None, start=None, stop=None, points=21
) -> FocalShiftResult:
    """Paraxial back focus at each wavelength minus the primary wavelength's (mm).

    Parameters
    ----------
    optic : Optic
    wavelengths : sequence of float, optional
        µm; default ``points`` evenly spaced from ``start`` to ``stop``, which
        default to the shortest and longest wavelength of the lens.
    start, stop : float, optional
        µm.
    points : int
        Number of wavelengths W when ``wavelengths`` is not given: 2 to
        ``optics.limits.MAX_WAVELENGTHS``.

    Returns
    -------
    FocalShiftResult
        ``wavelengths`` (list of W floats, µm), ``primary`` (µm) and ``shift``:
        an array of shape (W,) in mm, positive along the light (also behind a
        mirror), 0 at the primary wavelength.

    Raises
    ------
    ConfigurationError
        Bad ``start``, ``stop`` or ``points``, or an afocal system with the object at
        infinity (:func:`optics.analysis.require_focus`).
    """
    if wavelengths is None:
        values = optic.wavelengths.values
        start = min(values) if start is None else float(start)
        stop = max(values) if stop is None else float(stop)
        if not 0 < start <= stop:
            raise ConfigurationError(
                f"chromatic focal shift: need 0 < from <= to, not from {start:g} to {stop:g} µm"
            )
        points = check_size(points, MAX_WAVELENGTHS, "points", lowest=2)
        wavelengths = [start + (stop - start) * i / (points - 1) for i in range(points)]
    wavelengths = [float(w) for w in wavelengths]
    primary = optic.primary_wavelength
    reference = back_focus(optic, primary)
    shift = be.stack([be.asarray(back_focus(optic, w) - reference) for w in wavelengths])
    direction = be.where(be.asarray(reference) < 0, -1.0, 1.0)  # along the light (mirrors)
    return FocalShiftResult(wavelengths, primary, direction * shift)


@takes_system
def lateral_color(optic, fields=None, points=21) -> LateralColorResult:
    """Real chief-ray image height at the shortest minus the longest wavelength (mm).

    Parameters
    ----------
    optic : Optic
    fields : sequence of float, optional
        Normalized field heights hy (hx = 0); default ``points`` from 0 to 1.
    points : int
        Number of fields F when ``fields`` is not given (at least 2).

    Returns
    -------
    LateralColorResult
        ``fields`` (list of F floats), ``short`` and ``long`` (the lens's
        shortest and longest wavelengths, µm) and ``difference``: an array of
        shape (F,), the real chief-ray image height at ``short`` minus at
        ``long`` in mm (NaN where a chief ray fails).
    """
    fields = normalized_fields(points) if fields is None else [float(f) for f in fields]
    short, long = min(optic.wavelengths.values), max(optic.wavelengths.values)
    return LateralColorResult(fields, short, long, height_difference(optic, be.asarray(fields)))


def height_difference(optic, hy):
    """Chief-ray y at the shortest minus at the longest wavelength, at fields ``hy`` (mm)."""
    short, long = min(optic.wavelengths.values), max(optic.wavelengths.values)
    heights = []
    for wavelength in (short, long):
        rays = in_image_frame(
            optic, trace_rays(optic, (be.zeros_like(hy), hy), (0.0, 0.0), wavelength)
        )
        heights.append(be.where(rays.valid, rays.y, float("nan")))
    return heights[0] - heights[1]
