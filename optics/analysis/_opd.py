"""Ray-level optical path difference against each field's reference sphere, on bundles.

Conventions (docs/wavefront.md): per field and wavelength the reference sphere
is centred on the chief ray's intercept C with the image surface; its radius
is |C − E|, E the paraxial exit-pupil point on the image-space axis
(``xp_position`` from the image vertex, at x = y = 0).  Each ray, at its image
point P with direction D, is taken back along −D to the sphere (the first
crossing met going back, the incoming side, also for a virtual exit pupil);
its path to the sphere is S = OPL(P) − n′t, OPL measured from the launch
wavefront (object at infinity) or the object point.  The OPD in waves is
W = (S_chief − S_ray) / λ: positive when the ray's path is shorter than the
chief ray's, and W(chief) = 0.  The chief ray is the bundle's, traced with
clear apertures open, so a vignetted chief ray still serves as the reference;
a chief ray that fails geometrically leaves its field's rays invalid.
"""

from __future__ import annotations

import numpy as np

from .. import backend as be
from ..frames import vertex_z
from ..surfaces import media
from ..trace import trace_bundle, trace_rays
from ..trace.prepared import optic_of, takes_system

__all__ = [
    "bundle_opd",
    "exit_pupil_z",
    "image_index_of_refraction",
    "opd",
    "opd_waves",
    "sample_wavefront",
]

_MM_PER_UM = 1e-3


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
        whether it is a usable reference.
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


@takes_system
def bundle_opd(optic, bundle):
    """OPD in waves of every ray of a :class:`~optics.trace.Bundle`.

    Parameters
    ----------
    optic : Optic or PreparedSystem
        The system the bundle was traced through.
    bundle : Bundle
        From :func:`optics.trace_bundle`: rays shaped (W, F, P), chief rays (W, F).

    Returns
    -------
    opd : array, shape (W, F, P)
        Waves against each (wavelength, field)'s chief ray and reference sphere.
    valid : bool array, shape (W, F, P)
        False for failed or vignetted rays and where the chief ray fails; the
        OPD is 0 there.
    """
    chief = bundle.chief.replace(valid=bundle.chief_valid)
    lead = chief.map(lambda component: component[..., None])
    wavelengths = be.reshape(be.asarray(list(bundle.wavelengths)), (-1, 1, 1))
    n_image = image_index_of_refraction(optic, wavelengths)
    return opd_waves(bundle.rays, lead, exit_pupil_z(optic, bundle.first_order), n_image)


def sample_wavefront(system, fields, wavelength, px, py, *, method=None):
    """OPD of several fields at pupil points, one bundle trace.

    Parameters
    ----------
    fields : sequence of (hx, hy), length F
    wavelength : float
        Micrometres.
    px, py : arrays, shape (P,)
    method : TraceMethod or str, optional
        How the pupil rays are traced (:mod:`optics.trace.methods`);
        :class:`~optics.trace.Streamed` bounds the trace's memory for large
        samplings (the same numbers as one batch).

    Returns
    -------
    opd : array, shape (F, P)
        Waves, 0 where invalid.
    valid : bool array, shape (F, P)
    rays : Rays, shape (F, P)
        The rays at the image (for geometric analyses).
    chief : Rays, shape (F,)
        The chief rays (apertures open), ``valid`` False where one failed.
    """
    bundle = trace_bundle(system, tuple(fields), (float(wavelength),), (px, py), method=method)
    waves, valid = bundle_opd(optic_of(system), bundle)
    rays = bundle.rays.map(lambda component: component[0])
    chief = bundle.chief.replace(valid=bundle.chief_valid)
    chief = chief.map(lambda component: component[0])
    return waves[0], valid[0], rays, chief


@takes_system
def opd(optic, hx, hy, px, py, wavelength=None):
    """Ray-level OPD in waves against each ray's field's chief ray and reference sphere.

    Parameters
    ----------
    optic : Optic
    hx, hy : float or array, any shape
        Normalized field; all inputs broadcast together.
    px, py : float or array, any shape
        Normalized pupil coordinates.
    wavelength : float or array, any shape, optional
        Micrometres; the primary wavelength by default.

    Returns
    -------
    opd : array, broadcast shape of the inputs
        Waves; 0 (never NaN) where ``valid`` is False.
    valid : bool array, same shape
        False for failed or vignetted rays and for fields whose chief ray fails.
    """
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    rays = trace_rays(optic, (hx, hy), (px, py), wavelength)
    shape = tuple(rays.x.shape)
    host = [np.broadcast_to(be.to_numpy(be.asarray(v)), shape) for v in (hx, hy, wavelength)]
    fields = sorted({(float(a), float(b)) for a, b in zip(host[0].ravel(), host[1].ravel())})
    waves = sorted({float(w) for w in host[2].ravel()})
    field_index = {f: i for i, f in enumerate(fields)}
    wave_index = {w: i for i, w in enumerate(waves)}
    pairs = zip(host[0].ravel(), host[1].ravel())
    fi = be.asarray(np.array([field_index[(float(a), float(b))] for a, b in pairs]))
    wi = be.asarray(np.array([wave_index[float(w)] for w in host[2].ravel()]))
    zero = be.zeros_like(be.asarray([0.0]))
    bundle = trace_bundle(optic, tuple(fields), tuple(waves), (zero, zero))
    chief = bundle.chief.replace(valid=bundle.chief_valid)
    picked = chief.map(lambda component: be.reshape(component[wi, fi], shape))
    n_image = image_index_of_refraction(optic, rays.wavelength)
    return opd_waves(rays, picked, exit_pupil_z(optic, bundle.first_order), n_image)
