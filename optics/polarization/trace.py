"""Polarization ray tracing: the 3x3 PRT matrix of every ray (docs/polarization.md).

The rays are traced once by :func:`optics.trace.trace_surfaces` (the surface loop is
not touched, so an unpolarized trace costs nothing more); the polarization ray-tracing
matrices of Chipman, Lam & Young (*Polarized Light and Optical Systems*, ch. 9-10) are
then built from each surface's incident and outgoing directions::

    P_q = a_s s sᵀ + a_p p_out p_inᵀ + k_out k_inᵀ,   P = P_Q ... P_2 P_1

with s the unit vector along k_in × k_out (the normal of the plane of incidence),
p_in = k_in × s, p_out = k_out × s in transmission and s × k_out in reflection (the
convention of :mod:`optics.coatings.fresnel`: rp = rs at normal incidence).  The
plane of incidence and the angle of incidence follow from Snell's law itself
(n2 k_out − n1 k_in is along the normal), so no surface is evaluated again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import backend as be
from ..coatings.fresnel import fresnel_amplitudes
from ..surfaces import media
from ..trace import prepare, trace_surfaces
from ._vectors import apply_dyads, cross, dot, unit_normal_to
from .absorption import absorption_of

__all__ = ["PolarizationTrace", "polarization_trace"]


@dataclass(frozen=True)
class PolarizationTrace:
    """The polarization ray trace of a batch of rays (every array in the rays' shape S).

    Attributes
    ----------
    prt : nested 3x3 tuple of arrays, each shape S
        The accumulated PRT matrix P (global coordinates; real where every interface is
        bare and lossless, complex with coatings): the exit field is ``P @ E_in``.
    k_in, k_out : tuples of 3 arrays, shape S
        Object-space and image-space unit directions (global).
    flux : array, shape S
        Product over the interfaces of Re(n2 cos θt)/(n1 cos θi): the ratio of power to
        |E|² across them, so the power transmittance is ``flux * |P E|² / |E|²``.
    valid : bool array, shape S
        The rays that reached the image (TIR, vignetted and missed rays are False; the
        analyses give them zero transmission).
    entrance_axes, exit_axes : tuples of three global unit 3-vectors
        The (x, y, z) axes the double-pole bases of :mod:`optics.polarization.jones` are
        built about: object space's global axes; image space's, the image surface's frame
        with y and z reversed after an odd number of mirrors.
    rays : Rays
        The rays at the image surface.
    """

    prt: Any
    k_in: Any
    k_out: Any
    flux: Any
    valid: Any
    entrance_axes: tuple
    exit_axes: tuple
    rays: Any


def polarization_trace(system, field, pupil, wavelength=None, *, method=None, aiming=None):
    """Trace rays and their PRT matrices through every surface.

    Parameters
    ----------
    system : Optic or PreparedSystem
    field, pupil : (hx, hy), (px, py)
        Normalized field and pupil coordinates, as :func:`optics.trace.trace_rays`.
    wavelength : float or array, optional
        Micrometres; the primary wavelength by default.
    method, aiming : optional
        As :func:`optics.trace.trace_rays` (any method that keeps the rays at every surface).

    Returns
    -------
    PolarizationTrace
        ``jones_pupil``, ``transmission``, ``diattenuation`` and ``retardance`` of
        :mod:`optics.polarization.jones` read it.

    Notes
    -----
    A surface's ``coating`` attribute (None by default), when set, supplies the
    amplitudes through ``coating.amplitudes(n1, n2, cos_i, wavelength_um) -> (rs, rp,
    ts, tp)``; a bare refracting surface uses :func:`~optics.coatings.fresnel.fresnel_amplitudes`
    and a bare mirror is a perfect conductor (rs = rp = −1).  A medium whose material
    has an ``absorption`` coefficient (:mod:`optics.polarization.absorption`) attenuates
    the amplitude by exp(−α d / 2) over the geometric path d.  Ideal lenses and gratings
    (surfaces that redirect rays) are taken as non-polarizing (a_s = a_p = 1).
    """
    system = prepare(system, aiming)
    optic = system.optic
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    at = trace_surfaces(system, field, pupil, wavelength, method=method)
    surfaces = optic.surfaces
    indices = system.indices(wavelength)
    mediums = media(surfaces)
    prt, flux = None, None
    for i in range(1, len(surfaces)):
        surface = surfaces[i]
        k_in = _directions(at[i - 1])
        k_out = _directions(at[i])
        n1, n2 = indices[i - 1], indices[i]
        coating = getattr(surface, "coating", None)
        redirects = getattr(surface.geometry, "redirect", None) is not None
        alpha = absorption_of(mediums[i - 1][0], wavelength) if i > 1 else None
        if alpha is not None:
            d = tuple(a - b for a, b in zip(_points(at[i]), _points(at[i - 1])))
            loss = be.exp(-0.5 * alpha * be.sqrt(dot(d, d)))
            prt = _scaled(prt, loss, k_in)
        if not (surface.is_mirror or redirects or coating is not None) and n2 is n1:
            continue  # the same medium on both sides: the identity
        c = dot(k_in, k_out)
        s = unit_normal_to(k_in, k_out)
        p_in = cross(k_in, s)
        if surface.is_mirror:
            p_out = cross(s, k_out)
            cos_i = be.sqrt(be.clip(0.5 * (1.0 - c), 0.0, 1.0))
            if coating is None:
                a_s = a_p = -1.0
            else:
                a_s, a_p, _, _ = coating.amplitudes(n1, n1, cos_i, wavelength)
            step = 1.0
        else:
            p_out = cross(k_out, s)
            if redirects:
                a_s = a_p = step = 1.0
            else:
                a_s, a_p, step = _refraction(n1, n2, c, coating, wavelength)
        terms = ((a_s, s, s), (a_p, p_out, p_in), (1.0, k_out, k_in))
        prt = apply_dyads(terms, prt)
        flux = step if flux is None else flux * step
    exit_rays = at[-1]
    valid = exit_rays.valid
    k_in, k_out = _directions(at[0]), _directions(exit_rays)
    if prt is None:
        prt = _scaled(None, be.ones_like(k_in[0]), k_in)
    flux = be.where(valid, be.ones_like(exit_rays.x) * (1.0 if flux is None else flux), 0.0)
    prt = tuple(tuple(be.where(valid, v, 0.0 * v) for v in row) for row in prt)
    return PolarizationTrace(
        prt, k_in, k_out, flux, valid, _axes(system.frames[0], 1),
        _axes(system.frames[-1], mediums[-1][1]), exit_rays,
    )


def _refraction(n1, n2, c, coating, wavelength):
    """(a_s, a_p, flux factor) of a refraction whose directions have k_in · k_out = c."""
    # v = n2 k_out − n1 k_in lies along the normal: cos θi = |k_in·v|/|v|, cos θt = |k_out·v|/|v|.
    along_i = be.abs(n2 * c - n1)
    along_t = be.abs(n2 - n1 * c)
    norm2 = n1 * n1 + n2 * n2 - 2.0 * n1 * n2 * c
    same = norm2 <= be.machine_eps(along_i)
    inv = 1.0 / be.sqrt(be.where(same, 1.0, norm2))
    cos_i = be.where(same, 1.0, along_i * inv)
    cos_t = be.where(same, 1.0, along_t * inv)
    if coating is None:
        # A valid (not totally reflected) ray on real indices: the coefficients are real.
        _, _, ts, tp = fresnel_amplitudes(n1, n2, cos_i)
        ts, tp = be.fft.real(ts), be.fft.real(tp)
    else:
        _, _, ts, tp = coating.amplitudes(n1, n2, cos_i, wavelength)
    return ts, tp, (n2 * cos_t) / (n1 * cos_i)


def _directions(rays):
    return (rays.L, rays.M, rays.N)


def _points(rays):
    return (rays.x, rays.y, rays.z)


def _scaled(prt, factor, k_in):
    """``factor * prt`` (prt None: the identity, shaped like ``k_in``'s components)."""
    if prt is None:
        zero = 0.0 * k_in[0]
        return tuple(
            tuple(factor + zero if r == c else zero for c in range(3)) for r in range(3)
        )
    return tuple(tuple(factor * v for v in row) for row in prt)


def _axes(frame, direction):
    """A frame's global (x, y, z) axes; y and z reversed when ``direction`` is −1."""
    axes = []
    for local in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)):
        vector = frame.to_global(0.0, 0.0, 0.0, *local)[3:]
        axes.append(tuple(float(be.to_numpy(be.asarray(v))) for v in vector))
    if direction < 0:
        axes[1] = tuple(-v for v in axes[1])
        axes[2] = tuple(-v for v in axes[2])
    return tuple(axes)
