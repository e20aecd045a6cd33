"""Encircled and ensquared energy versus radius: from the FFT PSF and from the rays.

Diffraction: the fraction of the PSF's energy in pixels whose centres lie
within radius r (encircled) or within the square of half-width r (ensquared)
of the centre — the chief-ray image point C or the PSF centroid.
Geometric: the fraction of the quadrature-weighted valid rays within r of the
chief ray or of the rays' centroid.  Radii in mm.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import backend as be
from ..errors import ConfigurationError
from ..trace.prepared import takes_system
from ._opd import sample_wavefront
from ._psf_core import PSFResult
from ._wavefront import pupil_samples
from .spot import in_image_frame

__all__ = ["EnergyResult", "psf_encircled_energy", "geometric_encircled_energy"]

_CENTRES = ("chief", "centroid")


@dataclass(frozen=True)
class EnergyResult:
    """Energy fraction inside each radius.

    radii : array (K,) in mm; encircled, ensquared : arrays (K,) in [0, 1];
    centre : (x, y) in mm relative to the chief-ray image point.
    """

    radii: object
    encircled: object
    ensquared: object
    centre: tuple


def _check_centre(centre):
    if centre not in _CENTRES:
        raise ConfigurationError(f"energy centre must be one of {_CENTRES}, got {centre!r}")


def _fractions(dx, dy, weights, radii):
    total = be.maximum(be.sum(weights), be.machine_eps(weights))
    distance = be.sqrt(dx * dx + dy * dy)
    half_width = be.maximum(be.abs(dx), be.abs(dy))
    circle, square = [], []
    for k in range(int(radii.shape[0])):
        circle.append(be.sum(be.where(distance <= radii[k], weights, 0.0)) / total)
        square.append(be.sum(be.where(half_width <= radii[k], weights, 0.0)) / total)
    return be.stack(circle), be.stack(square)


def psf_encircled_energy(result: PSFResult, radii, centre="chief"):
    """Encircled and ensquared energy of an FFT PSF.

    Parameters
    ----------
    result : PSFResult
        From :func:`optics.analysis.psf`.
    radii : sequence of float
        Radii (encircled) and half-widths (ensquared) in mm.
    centre : {"chief", "centroid"}

    Returns
    -------
    EnergyResult
    """
    _check_centre(centre)
    image = result.image
    grid = int(image.shape[-1])
    index = be.arange(grid, dtype=be.float_dtype()) - float(grid // 2)
    x = index[None, :] * result.dx + 0.0 * image
    y = index[:, None] * result.dy + 0.0 * image
    cx, cy = 0.0 * be.sum(image), 0.0 * be.sum(image)
    if centre == "centroid":
        total = be.sum(image)
        cx, cy = be.sum(image * x) / total, be.sum(image * y) / total
    radii = be.asarray([float(r) for r in radii])
    flat = (grid * grid,)
    circle, square = _fractions(
        be.reshape(x - cx, flat), be.reshape(y - cy, flat), be.reshape(image, flat), radii
    )
    return EnergyResult(radii, circle, square, (cx, cy))


@takes_system
def geometric_encircled_energy(optic, field, radii, wavelength=None, *, centre="chief", rings=16):
    """Encircled and ensquared energy of the spot (quadrature-weighted rays).

    Parameters
    ----------
    optic : Optic or PreparedSystem
    field : (hx, hy)
        One normalized field point.
    radii : sequence of K floats
        Circle radii and square half-widths in mm.
    wavelength : float, optional
        µm; the primary wavelength by default.
    centre : {"chief", "centroid"}
        The centre of the circles and squares: the chief ray's image point or
        the spot's weighted centroid.
    rings : int
        Gauss–Legendre rings of the pupil rule (:func:`pupil_samples`).

    Returns
    -------
    EnergyResult
        ``radii`` (mm, shape (K,)), ``encircled`` and ``ensquared``: fractions
        (0 to 1) of the valid rays' quadrature weight inside each radius, shape
        (K,), and
        ``centre``: (x, y) of the centre relative to the chief ray's image point
        in mm.
    """
    _check_centre(centre)
    wavelength = optic.primary_wavelength if wavelength is None else float(wavelength)
    px, py, weights = pupil_samples(rings)
    _, valid, rays, chief = sample_wavefront(optic, [field], wavelength, px, py)
    rays, chief = in_image_frame(optic, rays), in_image_frame(optic, chief)
    w = be.where(valid[0], weights, 0.0)
    x, y = rays.x[0], rays.y[0]
    chief_x, chief_y = chief.x[0], chief.y[0]  # with apertures open; invalid: no ray is valid
    cx, cy = chief_x, chief_y
    if centre == "centroid":
        total = be.maximum(be.sum(w), be.machine_eps(w))
        cx = be.sum(w * be.where(valid[0], x, 0.0)) / total
        cy = be.sum(w * be.where(valid[0], y, 0.0)) / total
    dx, dy = be.where(valid[0], x - cx, 0.0), be.where(valid[0], y - cy, 0.0)
    radii = be.asarray([float(r) for r in radii])
    circle, square = _fractions(dx, dy, w, radii)
    return EnergyResult(radii, circle, square, (cx - chief_x, cy - chief_y))
