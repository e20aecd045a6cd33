"""Footprint diagram: where the rays of every field cross one surface, and its clear aperture.

The rays of each field (a hexapolar pupil, the lens's aiming) are traced with
:func:`optics.trace_surfaces`; their intersections with surface k are taken in
that surface's local frame (x, y in mm, so that a tilted or decentred surface
shows its own aperture).  A ray counts as ``reached`` when it arrives at the
surface, and as ``passed`` when it also reaches the image (not vignetted
later).  The clear aperture is the surface's semi-diameter (or its
:class:`~optics.apertures.ClearAperture`); where the lens states none, the
beam's largest radius on the surface stands for it (as Zemax draws its
automatic semi-diameter).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError
from ..sampling import hexapolar
from ..trace import prepare, trace_surfaces
from ..trace.prepared import frames_of, takes_system

__all__ = ["FootprintResult", "footprint"]


@dataclass(frozen=True)
class FootprintResult:
    """Ray intersections with one surface, per field (NumPy arrays, mm).

    Attributes
    ----------
    surface : int
        Surface index as in the lens file (the object is 0).
    fields : list of (hx, hy)
        Normalized fields, length F.
    wavelength : float
        µm.
    x, y : ndarray, shape (F, P)
        Intersections in the surface's local frame (NaN where a ray did not reach it).
    reached, passed : ndarray of bool, shape (F, P)
        The ray reached the surface; it also reached the image.
    semi_diameter : float or None
        The stated clear semi-diameter (None: none stated).
    aperture : ClearAperture or None
        The stated non-circular clear aperture, if any.
    beam_radius : float
        The largest radius of the rays that reached the surface (mm).
    """

    surface: int
    fields: list
    wavelength: float
    x: np.ndarray
    y: np.ndarray
    reached: np.ndarray
    passed: np.ndarray
    semi_diameter: object
    aperture: object
    beam_radius: float

    def as_dict(self) -> dict:
        """The ``optics footprint --json`` object (per field: extent and counts)."""
        rows = []
        for f, field in enumerate(self.fields):
            ok = self.reached[f]
            x, y = self.x[f][ok], self.y[f][ok]
            radius = np.hypot(x, y)
            rows.append(
                {
                    "field": [float(v) for v in field],
                    "x_range": [float(x.min()), float(x.max())] if ok.any() else None,
                    "y_range": [float(y.min()), float(y.max())] if ok.any() else None,
                    "max_radius": float(radius.max()) if ok.any() else None,
                    "n_rays": int(ok.size),
                    "n_reached": int(ok.sum()),
                    "n_passed": int(self.passed[f].sum()),
                }
            )
        return {
            "surface": self.surface,
            "wavelength": float(self.wavelength),
            "semi_diameter": None if self.semi_diameter is None else float(self.semi_diameter),
            "beam_radius": float(self.beam_radius),
            "fields": rows,
        }


@takes_system
def footprint(system, surface, fields=None, wavelength=None, rings=8) -> FootprintResult:
    """Ray intersections of every field with surface ``surface``.

    Parameters
    ----------
    system : Optic or PreparedSystem
    surface : int
        Surface index as in the lens file (1 .. the image; negative counts from the image).
    fields : list of (hx, hy), optional
        Normalized fields; the lens's fields by default.
    wavelength : float, optional
        µm (default: the primary wavelength).
    rings : int
        Hexapolar pupil rings (1 + 3R(R+1) rays per field).

    Returns
    -------
    FootprintResult
    """
    system = prepare(system)
    optic = system.optic
    count = len(optic.surfaces)
    index = int(surface) + count if int(surface) < 0 else int(surface)
    if not 1 <= index < count:
        raise ConfigurationError(
            f"footprint surface must be 1 .. {count - 1} (the object is 0), not {surface}"
        )
    fields = optic.fields.normalized() if fields is None else [tuple(f) for f in fields]
    wavelength = optic.primary_wavelength if wavelength is None else float(wavelength)
    px, py = hexapolar(int(rings))
    hx = be.asarray([[float(f[0])] for f in fields])
    hy = be.asarray([[float(f[1])] for f in fields])
    traced = trace_surfaces(system, (hx, hy), (px[None, :], py[None, :]), wavelength)
    at, image = traced[index], traced[-1]
    frame = frames_of(optic)[index]
    x, y, *_ = frame.to_local(at.x, at.y, at.z, at.L, at.M, at.N)
    reached = _reached(optic, traced, index)
    x = np.where(reached, be.to_numpy(x), np.nan)
    y = np.where(reached, be.to_numpy(y), np.nan)
    passed = reached & np.asarray(be.to_numpy(image.valid), dtype=bool)
    radius = np.hypot(x[reached], y[reached])
    stated = optic.surfaces[index]
    semi = stated.semi_diameter
    return FootprintResult(
        index,
        fields,
        wavelength,
        x,
        y,
        reached,
        passed,
        None if semi is None else float(be.item(semi)),
        stated.aperture,
        float(radius.max()) if radius.size else 0.0,
    )


def _reached(optic, traced, index):
    """Rays valid on arrival at ``index``: valid after the surface before, and not lost by the
    geometry at this one (its own clear aperture clips it, which the footprint shows)."""
    before = np.asarray(be.to_numpy(traced[index - 1].valid), dtype=bool)
    at = traced[index]
    finite = np.isfinite(be.to_numpy(at.x)) & np.isfinite(be.to_numpy(at.y))
    return before & finite
