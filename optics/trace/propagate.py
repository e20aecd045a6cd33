"""Sequential real-ray propagation: surface by surface from object space to the image.

Per surface: global → local frame, intersect, accumulate n·t, vignette,
refract (vector Snell) or reflect, local → global.  Rays that miss, are
totally internally reflected or vignetted are marked invalid (never dropped),
and their numbers stay finite so no NaN reaches a gradient.
"""

from __future__ import annotations

from .. import backend as be
from ..apertures import passes
from ..frames import surface_frames
from ..rays import Rays
from ..surfaces import media


def propagate(optic, rays: Rays, *, record=False, clip=True, probe=None, index=None):
    """Trace ``rays`` (global coordinates, in object space) through surfaces 1..image.

    ``clip`` applies the clear apertures: True for every ray, False for none
    (as if every aperture were open, as field solves need), or a boolean array
    broadcasting against the rays that says which rays are clipped.  With
    ``probe`` a surface index, the result is a pair: the traced rays and the
    rays at surface ``probe`` (after it, global coordinates), kept on the way.
    ``index``: an :func:`index_lookup` of the rays' wavelengths to share (the
    blocks of one trace with one wavelength look every glass up once).
    """
    surfaces = optic.surfaces
    frames = surface_frames(surfaces)
    medium = media(surfaces)
    index = index_lookup(rays.wavelength) if index is None else index
    history = [rays] if record else None
    probed = rays
    # Invalid rays carry finite garbage that may overflow; they are masked, not errors.
    # Checks that read values on the host (solver counts, glass ranges) run once, at the end.
    with be.quiet_float_errors(), be.deferred_reads():
        for i in range(1, len(surfaces)):
            before, after = medium[i - 1][0], medium[i][0]
            rays = through_surface(surfaces[i], frames[i], rays, before, after, index, clip)
            if record:
                history.append(rays)
            if i == probe:
                probed = rays
        rays = rays.replace(valid=be.logical_and(rays.valid, _representable(rays)))
        if record:
            history[-1] = rays
    result = history if record else rays
    return result if probe is None else (result, probed)


def _representable(rays):
    """Rays whose image numbers are finite and small enough to square and sum.

    A ray that crossed a 1e308 mm gap has finite but absurd coordinates that
    overflow every statistic; beyond max_float**(1/4) (1e77 mm in float64,
    4e9 mm in float32) a ray is no result.  NaN fails the comparison too.
    """
    size = be.abs(be.detach(rays.x)) + be.abs(be.detach(rays.y)) + be.abs(be.detach(rays.opd))
    return size <= float(be.finfo(rays.x).max) ** 0.25


def index_lookup(wavelength):
    """``index(material)``: the material's refractive index at ``wavelength``, computed once."""
    cache = {}

    def index(material):
        key = id(material)
        if key not in cache:
            cache[key] = material.index(wavelength)
        return cache[key]

    return index


def shared_lookup(wavelength, shared, lookups, key=None):
    """An :func:`index_lookup` of ``wavelength``, one per ``key`` when ``shared``.

    The blocks of one trace whose wavelengths were not split into blocks
    (``shared``) look every material up once: the lookup is kept in the dict
    ``lookups`` under ``key`` (the block's shape where that shapes the indices).
    """
    if not shared:
        return index_lookup(wavelength)
    if key not in lookups:
        lookups[key] = index_lookup(wavelength)
    return lookups[key]


def trace_to_surface(optic, rays: Rays, index):
    """Local (x, y) in mm on surface ``index`` and the mask of rays that reach it.

    Clear apertures are ignored (an aim or a field is geometry, not
    vignetting); a ray that misses or is totally reflected on the way is
    False in the mask, its (x, y) finite but meaningless.
    """
    surfaces = optic.surfaces
    frames = surface_frames(surfaces[: index + 1])
    medium = media(surfaces[: index + 1])
    refractive_index = index_lookup(rays.wavelength)

    with be.quiet_float_errors():
        for i in range(1, index):
            before, after = medium[i - 1][0], medium[i][0]
            rays = through_surface(
                surfaces[i], frames[i], rays, before, after, refractive_index, False
            )
        x, y, z, L, M, N = frames[index].to_local(rays.x, rays.y, rays.z, rays.L, rays.M, rays.N)
        t, hit, _ = surfaces[index].geometry.intersect_with_normal(x, y, z, L, M, N)
    return x + t * L, y + t * M, be.logical_and(rays.valid, hit)


def through_surface(surface, frame, rays, before, after, index, clip=True):
    """The rays after one surface (intersection, path length, refraction).

    ``clip`` applies the surface's clear aperture (rays outside become invalid):
    True, False, or a per-ray boolean array (see :func:`propagate`).
    """
    x, y, z, L, M, N = frame.to_local(rays.x, rays.y, rays.z, rays.L, rays.M, rays.N)
    geometry = surface.geometry
    t, hit, normal = geometry.intersect_with_normal(x, y, z, L, M, N)
    x, y, z = be.add_product(x, t, L), be.add_product(y, t, M), be.add_product(z, t, N)
    valid = be.logical_and(rays.valid, hit)
    if clip is not False and surface.semi_diameter is not None and surface.clear_is_circle:
        inside = be.add_product(x * x, y, y) <= surface.semi_diameter**2
        valid = be.logical_and(valid, inside if clip is True else inside | ~clip)
    elif clip is not False and surface.clips:
        inside = passes(surface, x, y)
        valid = be.logical_and(valid, inside if clip is True else inside | ~clip)
    n_before = index(before)
    opd = be.add_product(rays.opd, n_before, t)
    if getattr(geometry, "is_ideal_lens", False):  # type "paraxial": optics.geometry.ideal_lens
        opd = opd + index(after) * geometry.path_change(x, y)
        L, M, N = geometry.bend(x, y, L, M, N, n_before, index(after))
    elif surface.is_mirror:
        nx, ny, nz = normal(x, y, z)
        L, M, N = reflect(L, M, N, nx, ny, nz)
    elif after is not before:
        nx, ny, nz = normal(x, y, z)
        # A sphere's intersection knows the incidence cosine already (two passes, not five).
        cos_i = normal.incidence_cosine() if hasattr(normal, "incidence_cosine") else None
        L, M, N, transmitted = refract(L, M, N, nx, ny, nz, n_before / index(after), cos_i)
        valid = be.logical_and(valid, transmitted)
    x, y, z, L, M, N = frame.to_global(x, y, z, L, M, N)
    return Rays(x, y, z, L, M, N, rays.wavelength, rays.intensity, opd, valid)


def refract(L, M, N, nx, ny, nz, mu, cos_i=None):
    """Vector Snell's law with relative index mu = n_before / n_after.

    Works for either orientation of the unit normal.  Returns the new
    direction and a mask that is False on total internal reflection (where the
    direction is left finite but meaningless).  ``cos_i``, the cosine
    (L, M, N) · (nx, ny, nz), is computed unless given.
    """
    if cos_i is None:
        cos_i = L * nx + M * ny + N * nz
    mu2 = mu * mu  # a scalar (or per-ray with per-ray wavelengths)
    k = be.add_product(1.0 - mu2, mu2, cos_i * cos_i)
    transmitted = k >= 0
    cos_t = be.sqrt(be.where(transmitted, k, 1.0))
    g = be.add_product(be.copysign(cos_t, cos_i), -mu, cos_i)
    return (
        be.add_product(mu * L, g, nx),
        be.add_product(mu * M, g, ny),
        be.add_product(mu * N, g, nz),
        transmitted,
    )


def reflect(L, M, N, nx, ny, nz):
    """Mirror reflection d' = d − 2 (d·n) n."""
    g = 2.0 * (L * nx + M * ny + N * nz)
    return L - g * nx, M - g * ny, N - g * nz
