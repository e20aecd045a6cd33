"""The surface loop: every trace method's rays go through it, surface by surface.

Per surface: global → local frame, intersect, accumulate n·t, vignette,
refract (vector Snell) or reflect, local → global.  Rays that miss, are
totally internally reflected or vignetted are marked invalid (never dropped),
and their numbers stay finite so no NaN reaches a gradient.

What an iterative intersection solves is data, not state: the detached Newton
roots of each Newton surface and the mask of rays its step limit left
unconverged come back in :class:`Traced`, and roots of an earlier pass go in
through ``roots=``.  Nothing is written on a surface or geometry.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
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
    """What the surface loop returns.

    Attributes
    ----------
    rays : Rays
        The rays at the image surface (global coordinates).
    kept : dict
        Surface index → the rays just after that surface, for the indices
        asked for with ``keep`` (0: the rays given to the loop).
    roots : tuple
        The detached Newton roots (flat arrays), one per Newton surface in
        order; empty without Newton surfaces or unless ``collect_roots``.
    unconverged : bool array or None
        Rays that reached a Newton surface valid and left it unconverged
        (``flag_unconverged``); None otherwise.
    """

    rays: Rays
    kept: dict
    roots: tuple = ()
    unconverged: Any = None


def media_indices(surfaces, wavelength):
    """Index of the medium after each surface; one array object per distinct material.

    The identity says which neighbouring surfaces share a medium (no
    refraction between them).  ``wavelength``: µm, a Python number (evaluated
    once on the host) or an array the indices broadcast like.
    """
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
    """Trace flat rays (n,) through surfaces 1..image.

    Parameters
    ----------
    surfaces, frames : sequence
        The system's surfaces and their frames (:func:`optics.frames.surface_frames`).
    indices : sequence of array
        :func:`media_indices`: the medium after each surface.
    rays : Rays
        Global coordinates, in object space.
    clip : bool or bool array
        Apply the clear apertures: True for every ray, False for none (as
        field and aim solves need), or a per-ray mask of the clipped rays.
    keep : collection of int
        Surfaces whose outgoing rays to keep (0: the rays given).
    roots : sequence of array, optional
        Newton roots of an earlier pass, one per Newton surface, to start from.
    collect_roots, flag_unconverged : bool
        Return the Newton roots / the unconverged-rays mask.
    stage : callable, optional
        ``stage(step, state)`` runs one surface (``accel.compiled_stage`` in a
        compiled graph); by default the step is called directly.
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
        step = _Step(surfaces[i], frames[i], indices[i - 1], indices[i], clip, root, collected)
        state = run(step, state)
        if i in keep:
            kept[i] = Rays(*state[: len(RAY_FIELDS)])
    traced = Rays(*state[: len(RAY_FIELDS)])
    traced = traced.replace(valid=be.logical_and(traced.valid, _representable(traced)))
    unconverged = state[-1] if flag_unconverged else None
    return Traced(traced, kept, tuple(collected or ()), unconverged)


@dataclass(frozen=True)
class _Step:
    """One surface of the loop as a function of the ray state (a compiled stage when staged).

    The state is the ray fields, then (when flagged) the unconverged-rays
    mask; ``collected`` is the loop call's own list of Newton roots, or None.
    """

    surface: object
    frame: object
    before: object
    after: object
    clip: object
    root: object
    collected: object

    def __call__(self, state):
        given = Rays(*state[: len(RAY_FIELDS)])
        rays, found = through_surface(
            self.surface, self.frame, given, self.before, self.after, self.clip, self.root
        )
        out = tuple(getattr(rays, name) for name in RAY_FIELDS)
        if found.root is not None and self.collected is not None:
            self.collected.append(found.root)
        if len(state) == len(RAY_FIELDS):
            return out
        flag = state[-1]
        if found.unconverged is not None:
            flag = be.logical_or(flag, be.logical_and(found.unconverged, given.valid))
        return (*out, flag)


def _representable(rays):
    """Rays whose image numbers are finite and small enough to square and sum.

    A ray that crossed a 1e308 mm gap has finite but absurd coordinates that
    overflow every statistic; beyond max_float**(1/4) (1e77 mm in float64,
    4e9 mm in float32) a ray is no result.  NaN fails the comparison too.
    """
    size = be.abs(be.detach(rays.x)) + be.abs(be.detach(rays.y)) + be.abs(be.detach(rays.opd))
    return size <= float(be.finfo(rays.x).max) ** 0.25


def through_surface(surface, frame, rays, n_before, n_after, clip=True, root=None):
    """The rays after one surface (intersection, path length, refraction) and the intersection.

    ``n_before``, ``n_after``: the media's indices (the same object means the
    same medium).  ``clip`` applies the surface's clear aperture (rays outside
    become invalid): True, False, or a per-ray boolean array.  ``root``: a
    Newton surface's root from an earlier pass.  Returns ``(Rays, Intersection)``.
    """
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


def trace_to_surface(optic, rays: Rays, index):
    """Local (x, y) in mm on surface ``index`` and the mask of rays that reach it.

    Clear apertures are ignored (an aim or a field is geometry, not
    vignetting); a ray that misses or is totally reflected on the way is
    False in the mask, its (x, y) finite but meaningless.
    """
    surfaces = optic.surfaces[: index + 1]
    frames = surface_frames(surfaces)
    indices = media_indices(surfaces, rays.wavelength)
    with be.quiet_float_errors():
        rays = surface_loop(surfaces[:index], frames, indices, rays, clip=False).rays
        x, y, z, L, M, N = frames[index].to_local(rays.x, rays.y, rays.z, rays.L, rays.M, rays.N)
        found = surfaces[index].geometry.solve_intersection(x, y, z, L, M, N)
    return x + found.t * L, y + found.t * M, be.logical_and(rays.valid, found.hit)


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
    """Mirror reflection d' = d − 2 (d·n) n."""
    g = 2.0 * (L * nx + M * ny + N * nz)
    return L - g * nx, M - g * ny, N - g * nz
