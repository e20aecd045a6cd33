"""Reflectance and transmittance of each surface crossing of a ghost, at normal incidence.

The reference values of :class:`optics.ghosts.Ghost`; its ``energy`` comes from each ray's
own angles (:mod:`optics.ghosts._rays_energy`).

The amplitudes of a crossing come from :func:`optics.coatings.interface_amplitudes`: a
surface's ``coating`` (the protocol ``coating.amplitudes(n1, n2, cos_i, wavelength_um) ->
(rs, rp, ts, tp)``, light going from medium n1 into n2) or, bare, the Fresnel equations
(R = ((n1 − n2) / (n1 + n2))², T = 1 − R); their power fractions
(:func:`optics.coatings.power_from_amplitudes`) are averaged over s and p.
"""

from __future__ import annotations

import math

from .. import backend as be
from ..materials import index_at
from ..surfaces import media


def medium_indices(optic, wavelength) -> list[float]:
    """|n| of the medium after each surface of ``optic`` at ``wavelength`` (µm), as floats."""
    return [abs(float(be.item(index_at(m, wavelength)))) for m, _ in media(optic.surfaces)]


def surface_coefficients(surface, n1: float, n2: float, wavelength: float) -> tuple[float, float]:
    """(R, T): power reflectance and transmittance of light going from index n1 into n2.

    Parameters
    ----------
    surface : Surface
        Its ``coating`` (if any) gives the amplitudes; else the bare Fresnel values.
    n1, n2 : float
        Indices of the medium the light comes from and of the one beyond the surface.
    wavelength : float
        Micrometres (passed to the coating).

    Returns
    -------
    reflectance, transmittance : float
        Power fractions at normal incidence: the bare Fresnel R and 1 − R, or the
        coating's s/p averages R = (|rs|² + |rp|²) / 2, T = (n2 / n1) (|ts|² + |tp|²) / 2.
    """
    from ..coatings import interface_amplitudes, power_from_amplitudes

    coating = getattr(surface, "coating", None)
    cos_i = be.asarray(1.0)  # normal incidence
    amplitudes = [be.asarray(a) for a in interface_amplitudes(coating, n1, n2, cos_i, wavelength)]
    powers = power_from_amplitudes(n1, n2, cos_i, *amplitudes)
    rs, rp, ts, tp = (float(be.item(v)) for v in powers)
    return (rs + rp) / 2, (ts + tp) / 2


def path_energy(optic, path, wavelength) -> dict:
    """Power fractions along a ghost path (:func:`optics.ghosts._unfold.ghost_path`).

    Parameters
    ----------
    optic : Optic
    path : list of (int, int)
        (surface, direction) crossings from :func:`ghost_path`: +1 forward, −1 backward,
        0 a reflection (exactly two of them).
    wavelength : float
        Vacuum wavelength in µm.

    Returns
    -------
    dict
        ``reflectances`` (R_i, R_j) of the two reflections, ``transmission`` the product
        of every transmittance crossed, ``energy`` their product (the fraction of the
        power entering the lens that the ghost brings to the image, before vignetting)
        and ``primary`` the transmission of the primary (forward) path.
    """
    n = medium_indices(optic, wavelength)
    surfaces = optic.surfaces
    reflectances, transmission = [], 1.0
    for k, direction in path:
        if direction == 0:
            # Forward light reflects at i from the medium before it; backward light at j
            # from the medium after it.
            n1, n2 = (n[k - 1], n[k]) if not reflectances else (n[k], n[k - 1])
            reflectances.append(surface_coefficients(surfaces[k], n1, n2, wavelength)[0])
            continue
        n1, n2 = (n[k - 1], n[k]) if direction > 0 else (n[k], n[k - 1])
        if surfaces[k].is_mirror:
            continue  # a mirror of the system: its reflection is the primary path's
        transmission *= surface_coefficients(surfaces[k], n1, n2, wavelength)[1]
    primary = primary_transmission(optic, wavelength)
    r_i, r_j = reflectances
    return {
        "reflectances": (r_i, r_j),
        "transmission": transmission,
        "energy": r_i * r_j * transmission,
        "primary": primary,
    }


def primary_transmission(optic, wavelength) -> float:
    """Product of the transmittances of surfaces 1 .. image-1 on the primary path (mirrors: 1).

    Parameters
    ----------
    optic : Optic
    wavelength : float
        Vacuum wavelength in µm.

    Returns
    -------
    float
        The fraction of the entering power that reaches the image on the primary path, at
        normal incidence (:func:`surface_coefficients` of each refracting surface).
    """
    n = medium_indices(optic, wavelength)
    return math.prod(
        surface_coefficients(surface, n[k - 1], n[k], wavelength)[1]
        for k, surface in enumerate(optic.surfaces[1 : optic.image_index], start=1)
        if not surface.is_mirror
    )
