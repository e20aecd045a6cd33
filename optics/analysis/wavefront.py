"""Optical path difference against the reference sphere, and wavefront statistics.

Conventions (docs/wavefront.md): per field and wavelength the reference sphere
is centred on the chief ray's intercept C with the image surface; its radius
is |C − E|, E the paraxial exit-pupil point on the image-space axis
(``xp_position`` from the image vertex).  Each ray, at its image point P with
direction D, is taken back along −D to the sphere (the intersection on the
incoming side); its path to the sphere is S = OPL(P) − n′t.  The OPD in waves
is W = (S_chief − S_ray) / λ: positive when the ray's path is shorter than the
chief ray's, and W(chief) = 0.

Statistics are pupil-area means with the Gauss–Legendre pupil rule of
:func:`optics.sampling.gauss_pupil`, so they converge with the sampling
instead of weighting the rim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import backend as be
from ..frames import vertex_z
from ..paraxial import paraxial
from ..polynomials.zernike import zernike_basis
from ..sampling import gauss_pupil
from ..surfaces import media
from ..trace import trace_rays
from .zernike_fit import ZernikeFit, zernike_fit

__all__ = [
    "WavefrontResult",
    "opd",
    "opd_waves",
    "sample_wavefront",
    "wavefront",
    "wavefront_statistics",
]

_MM_PER_UM = 1e-3


@dataclass(frozen=True)
class WavefrontResult:
    """The OPD of one field at one wavelength over the pupil quadrature, with statistics.

    Attributes
    ----------
    field : tuple
        Normalized field (hx, hy).
    wavelength : float
        Micrometres.
    px, py, weights : arrays, shape (P,)
        Pupil samples (Gauss–Legendre nodes, then a rim ring of weight 0 that
        only P-V sees) and their area weights (sum 1 over the nodes).
    opd : array, shape (P,)
        W in waves (0 where ``valid`` is False).
    valid : bool array, shape (P,)
    rms, rms_piston_removed, rms_to_centroid, pv : 0-d arrays
        RMS to the chief ray (nothing removed), with piston removed, with
        piston and tilt removed, and P-V with piston and tilt removed (waves).
    zernike : ZernikeFit
        Fringe (default) or Noll coefficients in waves.
    """

    field: tuple
    wavelength: float
    px: object
    py: object
    weights: object
    opd: object
    valid: object
    rms: object
    rms_piston_removed: object
    rms_to_centroid: object
    pv: object
    zernike: ZernikeFit

    def as_dict(self) -> dict:
        """Plain Python values (for JSON): the CLI's per-field record without Strehl."""
        key = "zernike_fringe" if self.zernike.ordering == "fringe" else "zernike_noll"
        return {
            "field": [float(v) for v in self.field],
            "wavelength": float(self.wavelength),
            "rms_waves": float(be.item(self.rms)),
            "rms_piston_removed_waves": float(be.item(self.rms_piston_removed)),
            "rms_to_centroid_waves": float(be.item(self.rms_to_centroid)),
            "pv_waves": float(be.item(self.pv)),
            key: self.zernike.as_list(),
        }


def image_index_of_refraction(optic, wavelength):
    """n′, the (positive) index of the medium the rays reach the image in."""
    material = media(optic.surfaces)[optic.image_index - 1][0]
    return material.index(be.asarray(wavelength))


def exit_pupil_z(optic, first_order):
    """Global z of E, the paraxial exit-pupil point on the image-space axis (mm)."""
    return vertex_z(optic.surfaces)[optic.image_index] + first_order.xp_position


def opd_waves(rays, chief, pupil_z, n_image):
    """W in waves of rays at the image relative to their chief ray's reference sphere.

    Parameters
    ----------
    rays : Rays
        Rays at the image surface (global coordinates), any shape S.
    chief : Rays
        The chief ray of each ray, components broadcastable to S (e.g. shaped
        (F, 1) against rays shaped (F, P)); its ``opd`` is the optical path
        from the same launch wavefront as the rays', its ``valid`` says
        whether it reached the image.
    pupil_z : float or 0-d array
        Global z of the exit-pupil point E on the axis (x = y = 0).
    n_image : float or array broadcastable to S
        Index of the image-space medium at the rays' wavelength.

    Returns
    -------
    opd : array, shape S
        W = (S_chief − S_ray) / λ, 0 where ``valid`` is False.
    valid : bool array, shape S
        Valid ray, valid chief ray and a real intersection with the sphere.
    """
    cx, cy, cz = chief.x, chief.y, chief.z
    radius2 = cx * cx + cy * cy + (cz - pupil_z) ** 2
    dx, dy, dz = rays.x - cx, rays.y - cy, rays.z - cz
    b = rays.L * dx + rays.M * dy + rays.N * dz
    disc = b * b - (dx * dx + dy * dy + dz * dz - radius2)
    meets = disc >= 0
    root = be.sqrt(be.where(meets, disc, radius2))
    near, far = b - root, b + root
    t = be.where(near >= 0, near, far)  # the first crossing met going back along −D
    path = rays.opd - n_image * t
    chief_path = chief.opd - n_image * be.sqrt(radius2)  # t = R for the chief ray
    valid = be.logical_and(be.logical_and(rays.valid, meets), chief.valid)
    waves = (chief_path - path) / (rays.wavelength * _MM_PER_UM)
    return be.where(valid, waves, 0.0), valid


def opd(optic, hx, hy, px, py, wavelength=None):
    """Ray-level OPD in waves against each field's chief ray and reference sphere.

    Parameters
    ----------
    optic : Optic
    hx, hy : float or array
        Normalized field; arrays broadcast with the pupil coordinates.
    px, py : float or array
        Normalized pupil coordinates.
    wavelength : float, optional
        Micrometres; the primary wavelength by default.

    Returns
    -------
    opd : array, broadcast shape of the inputs
        Waves; 0 (never NaN) where ``valid`` is False.
    valid : bool array, same shape
    """
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    rays = trace_rays(optic, hx, hy, px, py, wavelength)
    chief = trace_rays(optic, hx, hy, 0.0, 0.0, wavelength)
    pupil_z = exit_pupil_z(optic, paraxial(optic))
    return opd_waves(rays, chief, pupil_z, image_index_of_refraction(optic, wavelength))


def wavefront_statistics(waves, px, py, weights, valid):
    """RMS and P-V figures of a sampled wavefront (pupil-area statistics).

    Parameters
    ----------
    waves : array, shape (..., P)
        OPD in waves.
    px, py : arrays, shape (P,)
        Normalized pupil coordinates of the samples.
    weights : array, shape (P,)
        Area weights of the samples (0 for samples that only P-V should see).
    valid : bool array, shape (..., P)

    Returns
    -------
    dict of arrays shaped (...)
        ``rms`` (to the chief ray), ``rms_piston_removed``, ``rms_to_centroid``
        (piston and tilt removed), ``pv`` (piston and tilt removed, over the
        valid samples including zero-weight ones) and ``mean``.
    """
    w = be.where(valid, weights, 0.0)
    total = be.maximum(be.sum(w, axis=-1), be.machine_eps(waves))
    mean = be.sum(w * waves, axis=-1) / total
    mean_square = be.sum(w * waves * waves, axis=-1) / total
    variance = be.sum(w * (waves - mean[..., None]) ** 2, axis=-1) / total
    plane = zernike_fit(px, py, waves, w, terms=3)
    c = plane.coefficients
    residual = waves - c[..., 0:1] - c[..., 1:2] * px - c[..., 2:3] * py
    big = be.max(be.abs(residual), axis=None) + 1.0
    high = be.max(be.where(valid, residual, -big), axis=-1)
    low = be.min(be.where(valid, residual, big), axis=-1)
    return {
        "rms": be.sqrt(mean_square),
        "rms_piston_removed": be.sqrt(variance),
        "rms_to_centroid": plane.residual_rms,
        "pv": high - low,
        "mean": mean,
    }


def pupil_samples(rings=16, arms=None):
    """The wavefront's pupil samples: Gauss–Legendre nodes, then P-V-only samples.

    The nodes carry the area weights; the centre and a rim ring of
    ``4 * arms`` points follow with weight 0, so P-V sees the pupil centre and
    edge where a wavefront's extremes usually sit.

    Returns
    -------
    px, py, weights : arrays, shape (rings * arms + 1 + 4 * arms,)
    """
    px, py, weights = gauss_pupil(rings, arms)
    rim = 4 * (4 * rings if arms is None else arms)
    angle = be.linspace(0.0, 2.0 * math.pi, rim + 1)[:rim]
    centre = be.zeros_like(angle[:1])
    return (
        be.concatenate([px, centre, be.cos(angle)]),
        be.concatenate([py, centre, be.sin(angle)]),
        be.concatenate([weights, centre, be.zeros_like(angle)]),
    )


def sample_wavefront(optic, fields, wavelength, px, py):
    """OPD of several fields at pupil points (one chief ray and reference per field).

    Parameters
    ----------
    fields : sequence of (hx, hy), length F
    wavelength : float
        Micrometres.
    px, py : arrays, shape (P,)

    Returns
    -------
    opd : array, shape (F, P)
        Waves, 0 where invalid.
    valid : bool array, shape (F, P)
    rays : Rays, shape (F, P)
        The rays at the image (for geometric analyses).
    """
    hx = be.asarray([float(f[0]) for f in fields])
    hy = be.asarray([float(f[1]) for f in fields])
    rays = trace_rays(optic, hx[:, None], hy[:, None], px[None, :], py[None, :], wavelength)
    chief = trace_rays(optic, hx[:, None], hy[:, None], 0.0, 0.0, wavelength)
    pupil_z = exit_pupil_z(optic, paraxial(optic))
    waves, valid = opd_waves(rays, chief, pupil_z, image_index_of_refraction(optic, wavelength))
    return waves, valid, rays


_BASIS_CACHE: dict = {}


def _cached_basis(px, py, key):
    """The Zernike basis at the (constant) pupil samples, built once per sampling and array type.

    The samples depend on no parameter, so the cached array carries no graph.
    """
    key = (*key, type(px), str(px.dtype), be.device_of(px))
    basis = _BASIS_CACHE.get(key)
    if basis is None:
        rings, arms, terms, ordering = key[:4]
        basis = _BASIS_CACHE[key] = zernike_basis(terms, px, py, ordering, axis=0)
    return basis


def wavefront(optic, field, wavelength=None, *, rings=16, arms=None, terms=37, ordering="fringe"):
    """OPD map, RMS/P-V statistics and Zernike fit of one field.

    Parameters
    ----------
    optic : Optic
    field : (hx, hy)
        Normalized field.
    wavelength : float, optional
        Micrometres; the primary wavelength by default.
    rings, arms : int
        Gauss–Legendre pupil rule (see :func:`optics.sampling.gauss_pupil`).
    terms : int
        Zernike terms to fit (37: the Fringe set).
    ordering : {"fringe", "noll"}

    Returns
    -------
    WavefrontResult
    """
    wavelength = optic.primary_wavelength if wavelength is None else float(wavelength)
    px, py, weights = pupil_samples(rings, arms)
    waves, valid, _ = sample_wavefront(optic, [field], wavelength, px, py)
    waves, valid = waves[0], valid[0]
    stats = wavefront_statistics(waves, px, py, weights, valid)
    basis = _cached_basis(px, py, (rings, arms, terms, ordering))
    fit = zernike_fit(px, py, waves, be.where(valid, weights, 0.0), terms, ordering, basis)
    return WavefrontResult(
        field=tuple(float(v) for v in field),
        wavelength=wavelength,
        px=px,
        py=py,
        weights=weights,
        opd=waves,
        valid=valid,
        rms=stats["rms"],
        rms_piston_removed=stats["rms_piston_removed"],
        rms_to_centroid=stats["rms_to_centroid"],
        pv=stats["pv"],
        zernike=fit,
    )
