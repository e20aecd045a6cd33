"""Per-ray power fractions of a ghost path: R and T at each ray's own incidence angle.

Each crossing's cosine of incidence comes from the ray's directions before and after the
surface (k_in · k_out = c): a reflection has cos θ = √((1 − c)/2); a refraction from n1
into n2 has cos θ = |n2 c − n1| / |n2 k_out − n1 k_in|.  The power fractions are those of
:func:`optics.coatings.interface_amplitudes` (the coating or bare Fresnel) through
:func:`optics.coatings.power_from_amplitudes`, averaged over s and p (unpolarized light).
"""

from __future__ import annotations

from .. import backend as be
from ..frames import surface_frames
from ..trace.loop import media_indices, surface_loop
from ._energy import medium_indices


def _cosines(before, after, n1, n2, reflection):
    """cos θi per ray from the directions before and after one crossing."""
    c = before.L * after.L + before.M * after.M + before.N * after.N
    if reflection:
        return be.sqrt(be.clip(0.5 * (1.0 - c), 0.0, 1.0))
    norm2 = n1 * n1 + n2 * n2 - 2.0 * n1 * n2 * c
    tiny = be.machine_eps(norm2) * (n1 + n2) ** 2
    apart = norm2 > tiny
    cos_i = be.abs(n2 * c - n1) / be.sqrt(be.where(apart, norm2, 1.0))
    return be.clip(be.where(apart, cos_i, 1.0), 0.0, 1.0)


def _fraction(surface, n1, n2, cos_i, wavelength, reflect):
    """(s, p) R (``reflect``) or T per ray of one crossing."""
    from ..coatings import interface_amplitudes, power_from_amplitudes

    coating = getattr(surface, "coating", None)
    amplitudes = [be.asarray(a) for a in interface_amplitudes(coating, n1, n2, cos_i, wavelength)]
    rs, rp, ts, tp = power_from_amplitudes(n1, n2, cos_i, *amplitudes)
    return (rs, rp) if reflect else (ts, tp)


def ray_fractions(optic, traced_optic, path, rays, wavelength, polarization="unpolarized"):
    """Per-ray product of the power fractions along ``path`` through ``traced_optic``.

    Parameters
    ----------
    optic : Optic
        The original lens (its surfaces' coatings and media give the fractions).
    traced_optic : Optic
        The system the rays go through: ``optic`` itself (the primary path) or its
        :func:`optics.ghosts.ghost_optic`; its surfaces 1 .. image-1 are ``path``'s crossings.
    path : list of (int, int)
        (surface of ``optic``, direction) per crossing: +1 forward, −1 backward, 0 a
        reflection (:func:`optics.ghosts.ghost_path`; the primary path is all +1).
    rays : Rays
        Object-space rays (global, shape (n,)) from :func:`optics.ghosts.ghost_rays`.
    wavelength : float
        Vacuum wavelength, µm.
    polarization : {"unpolarized", "s", "p"}
        The products of the s fractions, of the p fractions, or their mean (unpolarized:
        each polarization kept through the path, as in a plane of incidence that does
        not turn: exact for meridional rays of a centred lens and for a plate).

    Returns
    -------
    array, shape (n,)
        Product of R at the reflections and T at the other crossings, each at the
        ray's own incidence angle; 0 for a ray that does not reach the image.
    """
    if polarization not in ("unpolarized", "s", "p"):
        raise ValueError(f"polarization must be 'unpolarized', 's' or 'p', not {polarization!r}")
    n = medium_indices(optic, wavelength)
    surfaces = traced_optic.surfaces
    frames = surface_frames(surfaces)
    indices = media_indices(surfaces, wavelength)
    keep = tuple(range(len(surfaces)))
    with be.quiet_float_errors():
        traced = surface_loop(surfaces, frames, indices, rays, keep=keep)
    kept = traced.kept
    product_s = product_p = None
    reflections = 0
    for u, (k, direction) in enumerate(path, start=1):
        original = optic.surfaces[k]
        if direction != 0 and original.is_mirror:
            continue  # a mirror of the system: its reflection is the primary path's
        if direction == 0:
            # Forward light reflects at i from the medium before it; backward light at j
            # from the medium after it.
            n1, n2 = (n[k - 1], n[k]) if reflections == 0 else (n[k], n[k - 1])
            reflections += 1
            if n1 == n2 and getattr(original, "coating", None) is None:
                return be.zeros_like(rays.x)  # no index step: nothing reflects (a stop in air)
        else:
            n1, n2 = (n[k - 1], n[k]) if direction > 0 else (n[k], n[k - 1])
            if n1 == n2 and getattr(original, "coating", None) is None:
                continue  # no index step, no coating: T = 1
        cos_i = _cosines(kept[u - 1], kept[u], n1, n2, direction == 0)
        f_s, f_p = _fraction(original, n1, n2, cos_i, wavelength, direction == 0)
        product_s = f_s if product_s is None else product_s * f_s
        product_p = f_p if product_p is None else product_p * f_p
    valid = traced.rays.valid
    if product_s is None:
        product_s = product_p = be.ones_like(traced.rays.x)
    product = {"s": product_s, "p": product_p}.get(polarization)
    if product is None:
        product = (product_s + product_p) / 2
    return be.where(valid, product, 0.0)
