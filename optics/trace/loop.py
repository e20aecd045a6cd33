"""The one surface loop every trace method's rays go through; failed rays stay, marked invalid."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial
from typing import Any

from .. import accel
from .. import backend as be
from ..apertures import passes
from ..frames import surface_frames
from ..geometry.newton_base import NewtonRaphsonGeometry
from ..materials import index_at
from ..rays import Rays
from ..surfaces import media

#: The per-ray fields of a Rays, in the order of a loop state.
RAY_FIELDS = tuple(f.name for f in dataclasses.fields(Rays))


@dataclass(frozen=True)
class Traced:
    """What the surface loop returns: the rays at the image, and what was asked for.

    ``kept``: surface index in ``keep`` → the rays just after it (0: the rays given);
    ``roots``: the detached Newton roots, one flat array per Newton surface, if collected;
    ``unconverged``: the rays valid at a Newton surface that left it unconverged, if flagged.
    """

    rays: Rays
    kept: dict
    roots: tuple = ()
    unconverged: Any = None


def media_indices(surfaces, wavelength):
    """The medium's index after each surface at ``wavelength`` (µm); one object per material."""
    by_material, out = {}, []
    for material, _ in media(surfaces):
        key = id(material)
        if key not in by_material:
            by_material[key] = index_at(material, wavelength)
        out.append(by_material[key])
    return tuple(out)


def surface_loop(
    surfaces,
    frames,
    indices,
    rays: Rays,
    *,
    clip=True,
    keep=(),
    roots=None,
    collect_roots=False,
    flag_unconverged=False,
    stage=None,
) -> Traced:
    """Trace flat rays (n,), global coordinates in object space, through surfaces 1..image.

    Parameters
    ----------
    surfaces, frames, indices : sequence
        The surfaces, their frames and their :func:`media_indices`.
    clip : bool or bool array
        Apply the clear apertures: to every ray, to none, or to the rays masked True.
    keep, roots : sequence, optional
        Surfaces whose outgoing rays to keep (0: the rays given); prior Newton roots to start from.
    collect_roots, flag_unconverged, stage : optional
        Return the Newton roots / the unconverged-rays mask (:class:`Traced`);
        ``stage(step, state)`` runs one surface (``accel.compiled_stage`` in a graph).
    """
    given = iter(roots) if roots is not None else None
    collected = [] if collect_roots else None  # local to this call: nothing kept on a geometry
    kept = {0: rays} if 0 in keep else {}
    state = tuple(getattr(rays, name) for name in RAY_FIELDS)
    if flag_unconverged:
        state += (be.full_like(rays.valid, False),)
    # Collecting roots needs their values out of every step: no stages then.
    run = (lambda step, state: step(state)) if stage is None or collect_roots else stage
    for i in range(1, len(surfaces)):
        newton = isinstance(surfaces[i].geometry, NewtonRaphsonGeometry)
        root = next(given) if given is not None and newton else None
        before, after = indices[i - 1], indices[i]
        step = partial(_step, surfaces[i], frames[i], before, after, clip, root, collected)
        state = run(step, state)
        if i in keep:
            kept[i] = Rays(*state[: len(RAY_FIELDS)])
    traced = Rays(*state[: len(RAY_FIELDS)])
    traced = traced.replace(valid=be.logical_and(traced.valid, _representable(traced)))
    unconverged = state[-1] if flag_unconverged else None
    return Traced(traced, kept, tuple(collected or ()), unconverged)


def _step(surface, frame, before, after, clip, root, collected, state):
    """One surface as a function of the state: the ray fields, then any unconverged mask."""
    given = Rays(*state[: len(RAY_FIELDS)])
    rays, found = through_surface(surface, frame, given, before, after, clip, root)
    out = tuple(getattr(rays, name) for name in RAY_FIELDS)
    if found.root is not None and collected is not None:
        collected.append(found.root)
    if len(state) == len(RAY_FIELDS):
        return out
    flag = state[-1]
    if found.unconverged is not None:
        flag = be.logical_or(flag, be.logical_and(found.unconverged, given.valid))
    return (*out, flag)


def _representable(rays):
    """Rays whose numbers square and sum: below max_float**(1/4) (1e77 mm in float64), not NaN."""
    size = be.abs(be.detach(rays.x)) + be.abs(be.detach(rays.y)) + be.abs(be.detach(rays.opd))
    return size <= float(be.finfo(rays.x).max) ** 0.25


def through_surface(surface, frame, rays, n_before, n_after, clip=True, root=None):
    """``(Rays, Intersection)`` after one surface from medium ``n_before`` into ``n_after``."""
    x, y, z, L, M, N = frame.to_local(rays.x, rays.y, rays.z, rays.L, rays.M, rays.N)
    geometry = surface.geometry
    found = geometry.solve_intersection(x, y, z, L, M, N, root)
    t, normal = found.t, found.normal
    x, y, z = accel.add_product(x, t, L), accel.add_product(y, t, M), accel.add_product(z, t, N)
    valid = be.logical_and(rays.valid, found.hit)
    if clip is not False and surface.semi_diameter is not None and surface.clear_is_circle:
        inside = accel.add_product(x * x, y, y) <= surface.semi_diameter**2
        valid = be.logical_and(valid, inside if clip is True else inside | ~clip)
    elif clip is not False and surface.clips:
        inside = passes(surface, x, y)
        valid = be.logical_and(valid, inside if clip is True else inside | ~clip)
    opd = accel.add_product(rays.opd, n_before, t)
    redirect = getattr(geometry, "redirect", None)  # ideal lenses, gratings, phase surfaces
    if redirect is not None:
        L, M, N, path, passed = redirect(
            x, y, z, L, M, N, normal, n_before, n_after, rays.wavelength, surface.is_mirror
        )
        opd = opd + path
        if passed is not None:
            valid = be.logical_and(valid, passed)
    elif surface.is_mirror:
        nx, ny, nz = normal(x, y, z)
        L, M, N = reflect(L, M, N, nx, ny, nz)
    elif n_after is not n_before:
        nx, ny, nz = normal(x, y, z)
        # A sphere's intersection knows the incidence cosine already (two passes, not five).
        cos_i = normal.incidence_cosine() if hasattr(normal, "incidence_cosine") else None
        L, M, N, transmitted = refract(L, M, N, nx, ny, nz, n_before / n_after, cos_i)
        valid = be.logical_and(valid, transmitted)
    x, y, z, L, M, N = frame.to_global(x, y, z, L, M, N)
    return Rays(x, y, z, L, M, N, rays.wavelength, rays.intensity, opd, valid), found


def trace_to_surface(optic, rays: Rays, index, frames=None, indices=None):
    """Local (x, y) in mm on surface ``index`` and the mask of rays that reach it, unclipped.

    ``frames`` and ``indices`` (of at least surfaces 0..index) are built when not given.
    """
    surfaces = optic.surfaces[: index + 1]
    frames = surface_frames(surfaces) if frames is None else frames
    indices = media_indices(surfaces, rays.wavelength) if indices is None else indices
    with be.quiet_float_errors():
        rays = surface_loop(surfaces[:index], frames, indices, rays, clip=False).rays
        x, y, z, L, M, N = frames[index].to_local(rays.x, rays.y, rays.z, rays.L, rays.M, rays.N)
        found = surfaces[index].geometry.solve_intersection(x, y, z, L, M, N)
    return x + found.t * L, y + found.t * M, be.logical_and(rays.valid, found.hit)


def refract(L, M, N, nx, ny, nz, mu, cos_i=None):
    """Vector Snell's law, mu = n_before / n_after: new (L, M, N) and a mask, False on TIR.

    Either normal sign; ``cos_i`` = d · n unless given; a TIR direction is finite, meaningless.

    Parameters
    ----------
    L, M, N : arrays, shapes broadcasting to one shape S
        Unit direction cosines of the incident rays.
    nx, ny, nz : arrays broadcastable to shape S
        Unit surface normals at the intersections (either sign).
    mu : float or array broadcastable to shape S
        n_before / n_after, the indices at the rays' wavelengths.
    cos_i : array broadcastable to shape S, optional
        d · n, when the caller has it already.

    Returns
    -------
    L, M, N : arrays, shape S
        Unit direction cosines of the refracted rays.
    transmitted : bool array, shape S
        False where the ray is totally internally reflected.
    """
    if cos_i is None:
        cos_i = L * nx + M * ny + N * nz
    mu2 = mu * mu  # a scalar (or per-ray with per-ray wavelengths)
    k = accel.add_product(1.0 - mu2, mu2, cos_i * cos_i)
    transmitted = k >= 0
    cos_t = be.sqrt(be.where(transmitted, k, 1.0))
    g = accel.add_product(be.copysign(cos_t, cos_i), -mu, cos_i)
    return (
        accel.add_product(mu * L, g, nx),
        accel.add_product(mu * M, g, ny),
        accel.add_product(mu * N, g, nz),
        transmitted,
    )


def reflect(L, M, N, nx, ny, nz):
    """Mirror reflection d' = d − 2 (d·n) n.

    Parameters
    ----------
    L, M, N : arrays, shapes broadcasting to one shape S
        Unit direction cosines of the incident rays.
    nx, ny, nz : arrays broadcastable to shape S
        Unit surface normals at the intersections (either sign).

    Returns
    -------
    L, M, N : arrays, shape S
        Unit direction cosines of the reflected rays.
    """
    g = 2.0 * (L * nx + M * ny + N * nz)
    return L - g * nx, M - g * ny, N - g * nz
