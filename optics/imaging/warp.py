"""Distortion and relative illumination from real rays, and the geometric warp.

Distortion.  On the imaging copy of the lens (paraxial-image-height fields,
see :mod:`optics.imaging.scene`) a normalized field h has its paraxial image
h · top from the axis; its real chief ray lands at R(h).  R is sampled at K
equally spaced fields (real chief rays through ``optics.trace_rays``) and
interpolated linearly.  A sensor pixel at radius ρ receives the object point
of field h(ρ) = R⁻¹(ρ) in the same azimuth (a rotationally symmetric lens), so
the scene is sampled at ideal position (pixel position) · h(ρ) · top / ρ.  The
inverse is exact for the piecewise-linear R: the segment is found on detached
values and the position inside it, (ρ − R_k)/(R_{k+1} − R_k), carries the
gradient with respect to the lens.

Relative illumination: :func:`optics.analysis.illumination_ratio` (one
implementation for the analysis and the image simulation; the projected solid
angle of the real image-space ray cone over the on-axis one).
"""

from __future__ import annotations

import numpy as np

from .. import backend as be
from ..analysis._illumination import illumination_ratio as relative_illumination
from ..errors import SolveError
from ..trace import trace_rays
from ..trace.prepared import takes_system
from ._arrays import real

__all__ = [
    "RadialMap",
    "radial_map",
    "chief_ray_heights",
    "relative_illumination",
    "interpolate_uniform",
    "bilinear_sample",
]


class RadialMap:
    """R(h) and RI(h) of one wavelength on K equally spaced fields 0 … h_top.

    Attributes
    ----------
    fields : ndarray, shape (K,)
        Normalized fields h_k (Python floats).
    heights : array, shape (K,)
        Real chief-ray image heights R(h_k) in mm (differentiable).
    illumination : array, shape (K,)
        RI(h_k), 1 on axis (differentiable).
    top : float
        mm per unit of normalized field (paraxial).
    """

    def __init__(self, fields, heights, illumination, top):
        self.fields = np.asarray(fields, dtype=float)
        self.heights = heights
        self.illumination = illumination
        self.top = float(top)
        host = be.to_numpy(heights)
        if not np.all(np.isfinite(host)) or np.any(np.diff(host) <= 0.0):
            raise SolveError(
                "imaging: the real chief-ray image height does not grow monotonically with the "
                f"field up to {self.fields[-1] * self.top:.4g} mm (the distortion folds the "
                "image, or chief rays fail); use a smaller sensor or field of view"
            )
        self._host = host

    def with_tables(self, heights, illumination):
        """The same map with other (equal-valued) table arrays, e.g. a recomputation's inputs."""
        copy = object.__new__(RadialMap)
        copy.__dict__.update(self.__dict__)
        copy.heights, copy.illumination = heights, illumination
        return copy

    def field_at(self, radius):
        """h(ρ) for radii in mm (array of any shape); differentiable in ``heights``."""
        rho = be.to_numpy(radius)
        index = np.clip(np.searchsorted(self._host, rho) - 1, 0, len(self._host) - 2)
        lo = self.heights[be.asarray(index)]
        hi = self.heights[be.asarray(index + 1)]
        step = float(self.fields[1] - self.fields[0])
        start = real(self.fields[index])
        return start + step * (radius - lo) / (hi - lo)

    def illumination_at(self, field):
        """RI(h) by linear interpolation (differentiable in ``illumination`` and ``field``)."""
        step = float(self.fields[1] - self.fields[0])
        return interpolate_uniform(self.illumination, step, field)


def interpolate_uniform(table, step, x):
    """Linear interpolation of ``table`` (K,) sampled at 0, step, 2·step … at points x.

    The segment index is read from detached values; the weights carry the
    gradient of x and of the table.  Beyond the table the end segments extend.
    """
    count = int(be.size(table))
    index = np.clip(np.floor(be.to_numpy(x) / step).astype(np.int64), 0, count - 2)
    lo = table[be.asarray(index)]
    hi = table[be.asarray(index + 1)]
    frac = x / step - real(index)
    return lo + (hi - lo) * frac


def chief_ray_heights(optic, fields, wavelength):
    """Real chief-ray image heights (mm) of normalized fields (0, h) at one wavelength."""
    h = real(fields)
    rays = trace_rays(optic, (0.0 * h, h), (0.0, 0.0), float(wavelength))
    if not bool(np.all(be.to_numpy(rays.valid))):
        bad = np.asarray(fields)[~be.to_numpy(rays.valid).astype(bool)]
        raise SolveError(
            f"imaging: the chief ray fails at normalized field(s) {list(bad)[:3]} at "
            f"{wavelength} um; use a smaller sensor or field of view"
        )
    return rays.y


@takes_system
def radial_map(optic, top, wavelength, h_top, count=33, illumination=True):
    """The :class:`RadialMap` of ``optic`` at ``wavelength`` on fields 0 … ``h_top``.

    With ``illumination=False`` the relative-illumination table is all ones
    (not traced: its really aimed pupil rays cost more than the chief rays).
    """
    fields = np.linspace(0.0, float(h_top), int(count))
    heights = chief_ray_heights(optic, fields, wavelength)
    if illumination:
        illumination = relative_illumination(optic, fields, wavelength)
    else:
        illumination = real(np.ones(len(fields)))
    return RadialMap(fields, heights, illumination, top)


def bilinear_sample(image, rows, cols):
    """Bilinear samples of ``image`` (C, H, W) at fractional (rows, cols), 0 outside.

    ``rows`` and ``cols`` are arrays of one shape Q (pixel-centre units: row 0
    is the centre of the first row); returns (C, *Q).  Differentiable in the
    coordinates and the image.
    """
    channels, height, width = tuple(image.shape)
    flat = be.reshape(image, (channels, height * width))
    r0 = np.floor(be.to_numpy(rows)).astype(np.int64)
    c0 = np.floor(be.to_numpy(cols)).astype(np.int64)
    fr = rows - real(r0)
    fc = cols - real(c0)
    total = 0.0
    for dr, wr in ((0, 1.0 - fr), (1, fr)):
        for dc, wc in ((0, 1.0 - fc), (1, fc)):
            r, c = r0 + dr, c0 + dc
            ok = (r >= 0) & (r < height) & (c >= 0) & (c < width)
            index = be.asarray(np.where(ok, r * width + c, 0).ravel())
            values = be.reshape(flat[:, index], (channels, *r.shape))
            total = total + values * (wr * wc * real(ok))[None]
    return total
