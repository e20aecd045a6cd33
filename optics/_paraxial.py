"""First-order (paraxial) data from a y–nu trace of the centred system.

Decenters and tilts are ignored here, and every surface contributes only its
base radius and conic (``geometry.base_curvature``).  The trace is linear, so
two rays launched at surface 1 — A: (y = 1, u = 0) and B: (y = 0, u = 1) —
give every other paraxial ray as a combination.  Lengths in mm; positions are
z differences (positive to the right).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from . import accel
from . import backend as be
from .errors import ConfigurationError
from .materials import index_at
from .surfaces import media


@dataclass(frozen=True)
class ParaxialData:
    """First-order properties (scalars: floats or 0-d arrays that keep gradients).

    efl: effective focal length (image space, signed); bfl: last surface vertex
    to paraxial focus; ffl: z(front focal point) − z(surface 1); fno: the
    paraxial working F/# 1/(2 |n′ u′|) of the axial marginal ray, always > 0;
    epd: entrance pupil diameter; ep_position: z(entrance pupil) − z(surface 1);
    xpd: exit pupil diameter; xp_position: z(exit pupil) − z(image surface);
    image_height: paraxial chief-ray height on the image at the largest field;
    total_track: z(image) − z(surface 1); magnification: 0 at infinite conjugates.
    Afocal systems (see :func:`is_afocal`) have efl, bfl, ffl and, for an
    object at infinity, fno equal to ``inf``.
    """

    efl: object
    bfl: object
    ffl: object
    fno: object
    epd: object
    ep_position: object
    xpd: object
    xp_position: object
    image_height: object
    total_track: object
    magnification: object

    def as_floats(self) -> dict:
        """Every value as a Python float (for reports and JSON)."""
        return {k: float(be.item(v)) for k, v in asdict(self).items()}


@dataclass(frozen=True)
class _BasisRays:
    """Heights y and slopes u (after refraction) at every surface for rays A and B.

    ``n_object`` and ``n_image`` are the signed indices of object space and of
    image space (the medium after the last optical surface, in which the image
    forms); negative after an odd number of mirrors.
    """

    yA: list
    uA: list
    yB: list
    uB: list
    n_object: object
    n_image: object
    power_scale: object  # Σ |y Δn c| of ray A over the surfaces (1/mm): the round-off scale

    def ray(self, y1, u0, i):
        """(y, u) at surface i of the ray with height y1 at surface 1 and slope u0 before it."""
        return y1 * self.yA[i] + u0 * self.yB[i], y1 * self.uA[i] + u0 * self.uB[i]


def _signed_indices(optic, wavelength):
    return [
        direction * index_at(material, wavelength) for material, direction in media(optic.surfaces)
    ]


def basis_rays(optic, wavelength=None) -> _BasisRays:
    """Trace the two basis rays through surfaces 1..image at ``wavelength`` (µm)."""
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    n = _signed_indices(optic, wavelength)
    surfaces = optic.surfaces
    rays, scales = [], []
    for y, u in ((1.0, 0.0), (0.0, 1.0)):
        ys, us = [None], [u]
        nu = n[0] * u
        scale = 0.0
        for i in range(1, len(surfaces)):
            if i > 1:
                y = y + surfaces[i - 1].thickness * nu / n[i - 1]
            bend = y * (n[i] - n[i - 1]) * surfaces[i].geometry.base_curvature
            # An ideal lens's power, a phase surface's quadratic term (optics.geometry.diffractive).
            power = getattr(surfaces[i].geometry, "paraxial_power", None)
            if power is not None:
                bend = bend + y * power(wavelength)
            nu = nu - bend
            scale = scale + be.abs(bend)
            ys.append(y)
            us.append(nu / n[i])
        rays.append((ys, us))
        scales.append(scale)
    (yA, uA), (yB, uB) = rays
    # The image forms in the medium after the last optical surface: media() never
    # enters the image surface's own material, so n[-1] is that medium.
    return _BasisRays(yA, uA, yB, uB, n[0], n[-1], scales[0])


# Afocal when the power is this many round-offs (of the dtype) of the surface powers' sum.
AFOCAL_ROUNDOFF_FACTOR = 64


def is_afocal(rays: _BasisRays) -> bool:
    """True when the system's power is round-off against the sum of its surface powers.

    The power is −n′u′ of ray A (y = 1 at surface 1, parallel to the axis),
    the sum of the surface contributions −y Δn c.  It counts as zero when
    |n′u′| <= AFOCAL_ROUNDOFF_FACTOR · eps · Σ |y Δn c|, eps the machine
    epsilon of the arrays' dtype: a relative test, independent of the units
    and of the system's size; a system of plane surfaces (scale 0) is afocal.
    """
    return bool(be.item(afocal_mask(rays)))


def afocal_mask(rays: _BasisRays):
    """:func:`is_afocal` as a 0-d boolean array (no host read, for traces)."""
    nu_image = rays.uA[-2] * rays.n_image
    eps = be.machine_eps(be.asarray(nu_image))
    return be.abs(be.asarray(nu_image)) <= AFOCAL_ROUNDOFF_FACTOR * eps * rays.power_scale


@be.pinned
def paraxial(optic, wavelength=None) -> ParaxialData:
    """First-order data of ``optic`` at ``wavelength`` (µm; default the primary).

    Afocal systems (:func:`is_afocal`) get infinite focal lengths (and F/# at
    infinite conjugates) and telecentric ones an exit pupil at infinity (inf,
    not an error).  docs/tracing.md states every definition and sign.

    Parameters
    ----------
    optic : Optic
    wavelength : float, optional
        µm; the primary wavelength by default.

    Returns
    -------
    ParaxialData
        ``efl``, ``bfl``, ``ffl``, ``epd``, ``ep_position``, ``xpd``,
        ``xp_position``, ``image_height`` and ``total_track`` in mm, ``fno`` and
        ``magnification`` unitless: each a float or a 0-d array that keeps the
        gradients of the lens's parameters.
    """
    # Plain-number systems are evaluated with NumPy where each backend operation is a
    # slow dispatch (JAX; see accel.on_host): microseconds instead of milliseconds.
    return accel.on_host(_quiet_paraxial, optic, wavelength)


def _quiet_paraxial(optic, wavelength):
    with be.quiet_float_errors():
        return _paraxial(optic, wavelength)


def _paraxial(optic, wavelength):
    rays = basis_rays(optic, wavelength)
    stop, k, image = optic.stop_index, optic.image_index - 1, optic.image_index
    surfaces = optic.surfaces
    _fail_if_zero(
        rays.yA[stop], f"the stop (surface {stop}) is imaged to infinity: no entrance pupil"
    )
    ep = rays.yB[stop] / rays.yA[stop]
    # Afocal or not is a value, not a branch: no host read (a device sync) in a trace.
    afocal = afocal_mask(rays)
    u_a = be.where(afocal, 1.0, rays.uA[k])  # finite in the discarded branch (gradients)
    efl = be.where(afocal, math.inf, -1.0 / u_a)
    bfl = be.where(afocal, math.inf, -rays.yA[k] / u_a)
    ffl = be.where(afocal, math.inf, rays.uB[k] / u_a)
    infinite = optic.object_at_infinity
    t0 = surfaces[0].thickness
    epd = entrance_pupil_diameter(optic, rays, ep, afocal)
    if infinite:
        y1m, u0m = epd / 2, 0.0
    else:
        u0m = (epd / 2) / (ep + t0)
        y1m = u0m * t0
    ym, um = rays.ray(y1m, u0m, k)
    # The exit pupil is the image of the stop: any ray through the stop centre
    # (height 0 there) locates it, so it does not depend on the fields.
    ys, us = rays.ray(-ep, 1.0 + 0.0 * ep, k)
    t_last = surfaces[k].thickness
    to_xp = -ys / us  # exit pupil z − last surface z
    if infinite:
        fno = be.where(afocal, math.inf, _working_fno(rays, be.where(afocal, 1.0, um)))
        magnification = 0.0 * epd
    else:
        fno = _working_fno(rays, um)
        magnification = rays.n_object * u0m / (rays.n_image * um)
    y1c, u0c = chief_ray_start(optic, rays, ep)
    return ParaxialData(
        efl=efl,
        bfl=bfl,
        ffl=ffl,
        fno=fno,
        epd=epd,
        ep_position=ep,
        xpd=2.0 * be.abs(ym + um * to_xp),
        xp_position=to_xp - t_last,
        image_height=rays.ray(y1c, u0c, image)[0],
        total_track=sum(s.thickness for s in surfaces[1:image]),
        magnification=magnification,
    )


def _working_fno(rays, u_image):
    """1 / (2 |n′ u′|): the paraxial working F/# of a marginal ray with image slope u′."""
    return 1.0 / (2.0 * be.abs(rays.n_image * u_image))


def entrance_pupil_diameter(optic, rays, ep, afocal=False):
    """EPD in mm from the aperture specification.

    An ``image_fno`` aperture F means 1 / (2 |n′ u′|) = F for the axial
    marginal ray, at both conjugates (the same F/# that :func:`paraxial`
    reports).  For an object at infinity that needs a focal system.
    """
    kind, value = optic.aperture.type, optic.aperture.value
    infinite = optic.object_at_infinity
    if kind == "epd":
        return value + 0.0 * ep
    if kind == "stop_diameter":
        # The paraxial marginal ray meets the stop at D/2; for either conjugate its
        # stop height per unit half-EPD is the basis ray A's height there.
        return value / be.abs(rays.yA[optic.stop_index])
    if kind == "object_na":
        if infinite:
            raise ConfigurationError(
                "aperture type 'object_na' needs an object at a finite distance"
            )
        n0 = be.abs(rays.n_object)
        sin_u = value / n0
        return 2.0 * (ep + optic.surfaces[0].thickness) * sin_u / be.sqrt(1.0 - sin_u * sin_u)
    # image_fno: the F/# of a marginal ray of unit height at the entrance pupil scales as 1/height.
    k = optic.image_index - 1
    if infinite:

        def message():
            return (
                f"aperture type 'image_fno' (value {float(be.item(value)):g}) needs a focal "
                "system: this one is afocal (its power is zero to round-off), so an F/# sets "
                "no pupil; use aperture type 'epd'"
            )

        _fail_if_zero(be.logical_not(be.asarray(afocal)), message)
        _, u_image = rays.ray(1.0 + 0.0 * ep, 0.0, k)
    else:
        t0 = optic.surfaces[0].thickness
        u0 = 1.0 / (ep + t0)
        _, u_image = rays.ray(u0 * t0, u0, k)
    return 2.0 * _working_fno(rays, u_image) / value


def chief_ray_start(optic, rays, ep):
    """(y at surface 1, slope before it) of the paraxial chief ray at the largest field."""
    kind = optic.fields.type
    top = optic.fields.max_magnitude
    infinite = optic.object_at_infinity
    t0 = 0.0 if infinite else optic.surfaces[0].thickness
    if kind == "angle":
        u0 = math.tan(math.radians(top))
        return -u0 * ep, u0 + 0.0 * ep
    if kind == "object_height":
        if infinite:
            raise ConfigurationError(
                "field type 'object_height' needs an object at a finite distance"
            )
        u0 = -top / (ep + t0)
        return top + u0 * t0, u0
    # Image-height fields: scale the unit-field chief ray to the requested height.
    if infinite:
        y1, u0 = -ep, 1.0 + 0.0 * ep
    else:
        u0 = -1.0 / (ep + t0)
        y1 = 1.0 + u0 * t0
    unit_height = rays.ray(y1, u0, optic.image_index)[0]
    _fail_if_zero(
        unit_height, "the paraxial image height does not depend on the field: cannot scale fields"
    )
    scale = top / unit_height
    return y1 * scale, u0 * scale


def _fail_if_zero(value, message):
    """Raise ConfigurationError(message) when ``value`` is 0 (``message`` may be a callable).

    ``value`` may be an array (systems stacked along leading axes,
    :func:`optics.configurations.stacked`): it fails when any entry is 0.

    A host read: inside a trace it is deferred and read with the trace's
    other checks, once, after the trace (:func:`optics.backend.deferred_reads`);
    the quantities it would have guarded are then inf or NaN until it raises.
    """

    def check(values):
        if values[0] == 0.0:
            raise ConfigurationError(message() if callable(message) else message)

    if (
        be.is_array(value) and value.ndim
    ):  # a batch of systems (stacked configurations): zero anywhere fails
        value = be.min(be.abs(value))
    accel.read_later((value,), check)
