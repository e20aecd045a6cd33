"""Ghost analysis: every two-reflection ghost, its focus, its spot and its image irradiance."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from .. import backend as be
from .._paraxial import basis_rays, paraxial
from ..sampling import hexapolar
from ..trace import field_parameters, launch_rays, prepare, propagate
from ._energy import path_energy
from ._rays_energy import ray_fractions
from ._unfold import check_pair, ghost_optic, ghost_pairs, ghost_path


@dataclass(frozen=True)
class Ghost:
    """One two-reflection ghost (floats; lengths in mm).

    Attributes
    ----------
    surfaces : (int, int)
        (i, j): reflected back at surface i, forward again at surface j < i.
    reflectances : (float, float)
        R_i, R_j at normal incidence (bare Fresnel or the surface's coating), for reference.
    transmission : float
        Product of the normal-incidence transmittances the ghost crosses, for reference.
    energy : float
        Pupil mean over the traced rays of each ray's product of R (the two reflections)
        and T (every other crossing) at its own incidence angle, s and p averaged; rays
        that do not reach the image count 0; over the same mean of the primary path.
    focus : float
        z(paraxial ghost focus) − z(image), mm (``inf`` for a collimated ghost).
    paraxial_radius : float
        |y| of the paraxial marginal ray on the image plane (the defocused ghost's radius).
    rms_radius : float
        RMS radius about the centroid of the traced ghost rays on the image (NaN: none arrive).
    passed : float
        Fraction of the traced rays that reach the image (the rest are vignetted, lost to TIR).
    irradiance : float
        Ghost irradiance over the primary image's: energy × (r₀ / max(r, r₀))²,
        r the ghost's RMS radius and r₀ the primary image's (at least the Airy radius).
    """

    surfaces: tuple
    reflectances: tuple
    transmission: float
    energy: float
    focus: float
    paraxial_radius: float
    rms_radius: float
    passed: float
    irradiance: float


@dataclass(frozen=True)
class GhostReport:
    """Every ghost of a lens, brightest (largest ``irradiance``) first.

    ``primary_radius``: r₀ (mm) of :class:`Ghost`; ``primary_transmission``: of the primary
    path; ``field``: normalized (hx, hy); ``wavelength``: µm; ``rays``: traced per ghost.
    """

    ghosts: tuple
    primary_radius: float
    primary_transmission: float
    field: tuple
    wavelength: float
    rays: int

    def top(self, count: int | None) -> tuple:
        """The ``count`` brightest ghosts (all when None)."""
        return self.ghosts if count is None else self.ghosts[:count]

    def as_dict(self, count: int | None = None) -> dict:
        """A JSON-ready record (the ``count`` brightest ghosts)."""
        return {
            "field": list(self.field),
            "wavelength": self.wavelength,
            "rays": self.rays,
            "primary_radius": self.primary_radius,
            "primary_transmission": self.primary_transmission,
            "ghost_count": len(self.ghosts),
            "ghosts": [asdict(g) for g in self.top(count)],
        }


def marginal_start(optic, first_order):
    """(y at surface 1, slope before it) of the axial paraxial marginal ray (floats)."""
    ep, epd = float(be.item(first_order.ep_position)), float(be.item(first_order.epd))
    if optic.object_at_infinity:
        return epd / 2, 0.0
    t0 = float(be.item(optic.surfaces[0].thickness))
    u0 = (epd / 2) / (ep + t0)
    return u0 * t0, u0


def paraxial_ghost_focus(optic, i, j, wavelength=None):
    """(z(focus) − z(image), |y| on the image) of ghost (i, j)'s paraxial marginal ray, mm.

    The ray enters as the original optic's axial marginal ray (its entrance pupil) and
    is traced through :func:`ghost_optic` by the y–nu trace of :mod:`optics._paraxial`.

    Parameters
    ----------
    optic : Optic
    i, j : int
        The ghost: reflected back at surface i, forward again at surface j (object 0;
        1 <= j < i <= image - 1).
    wavelength : float, optional
        Vacuum wavelength in µm; the primary by default.

    Returns
    -------
    focus : float
        z(paraxial ghost focus) − z(image), mm; ``inf`` for a collimated ghost.
    radius : float
        |y| of the ghost's marginal ray on the image plane, mm.

    Raises
    ------
    ConfigurationError
        When (i, j) is not one of :func:`ghost_pairs`.
    """
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    y1, u0 = marginal_start(optic, paraxial(optic, wavelength))
    ghost = ghost_optic(optic, i, j)
    last = ghost.image_index - 1
    rays = basis_rays(ghost, wavelength)
    y, u = (float(be.item(v)) for v in rays.ray(y1, u0, last))
    y_image = float(be.item(rays.ray(y1, u0, ghost.image_index)[0]))
    t_last = float(be.item(ghost.surfaces[last].thickness))
    focus = math.inf if u == 0 else -y / u - t_last
    return focus, abs(y_image)


def _spot(rays):
    """(RMS radius about the centroid, fraction of rays valid) from rays at the image."""
    x, y = be.to_numpy(rays.x).ravel(), be.to_numpy(rays.y).ravel()
    valid = be.to_numpy(rays.valid).ravel() & np.isfinite(x) & np.isfinite(y)
    passed = float(valid.mean()) if valid.size else 0.0
    if valid.sum() < 2:
        return math.nan, passed
    x, y = x[valid], y[valid]
    return float(np.sqrt(np.mean((x - x.mean()) ** 2 + (y - y.mean()) ** 2))), passed


def ghost_rays(optic, field=(0.0, 0.0), rings=6, wavelength=None):
    """The object-space rays of the original optic toward its entrance pupil (hexapolar grid).

    Parameters
    ----------
    optic : Optic
    field : (float, float)
        Normalized field point (hx, hy) of the source (default on axis).
    rings : int
        Hexapolar rings R of the pupil grid.
    wavelength : float, optional
        Vacuum wavelength in µm; the primary by default.

    Returns
    -------
    Rays
        Shape (1 + 3R(R+1),), global coordinates, launched as the primary image's rays.
    """
    system = prepare(optic)
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    qx, qy = field_parameters(system, *field)
    px, py = hexapolar(rings)
    return launch_rays(system, qx, qy, px, py, wavelength)


def trace_ghost(optic, i, j, field=(0.0, 0.0), rings=6, wavelength=None):
    """The Rays of ghost (i, j) at the image plane, launched as the primary image's rays.

    Parameters
    ----------
    optic : Optic
    i, j : int
        The ghost: reflected back at surface i, forward again at surface j (object 0;
        1 <= j < i <= image - 1).
    field : (float, float)
        Normalized field point (hx, hy) of the source (default on axis).
    rings : int
        Hexapolar rings R of the pupil grid (:func:`ghost_rays`).
    wavelength : float, optional
        Vacuum wavelength in µm; the primary by default.

    Returns
    -------
    Rays
        Shape (1 + 3R(R+1),), global coordinates (mm) on the image plane after the
        ghost's path through :func:`ghost_optic`; ``valid`` False for vignetted rays.

    Raises
    ------
    ConfigurationError
        When (i, j) is not one of :func:`ghost_pairs`.
    """
    check_pair(optic, i, j)
    rays = ghost_rays(optic, field, rings, wavelength)
    return propagate(ghost_optic(optic, i, j), rays)


def ghosts(optic, *, pairs=None, field=(0.0, 0.0), rings=6, wavelength=None) -> GhostReport:
    """Every two-reflection ghost of ``optic``, ranked by its irradiance on the image.

    Parameters
    ----------
    optic : Optic
    pairs : sequence of (i, j), optional
        The ghosts to analyse (default :func:`ghost_pairs`: every pair i > j).
    field : (hx, hy)
        Normalized field point of the source (default on axis).
    rings : int
        Hexapolar rings of the traced pupil grid (1 + 3R(R+1) rays per ghost).
    wavelength : float, optional
        Micrometres; the primary by default.

    Returns
    -------
    GhostReport
        Ghosts ordered by decreasing ``irradiance`` (docs/ghosts.md defines each number).
    """
    wavelength = optic.primary_wavelength if wavelength is None else float(wavelength)
    pairs = ghost_pairs(optic) if pairs is None else [tuple(p) for p in pairs]
    rays = ghost_rays(optic, field, rings, wavelength)
    primary_rms, _ = _spot(propagate(optic, rays))
    primary_path = [(k, 1) for k in range(1, optic.image_index)]
    primary = float(be.item(be.mean(ray_fractions(optic, optic, primary_path, rays, wavelength))))
    fno = float(be.item(paraxial(optic, wavelength).fno))
    airy = 1.22 * wavelength * 1e-3 * fno if math.isfinite(fno) else 0.0
    reference = max(primary_rms if math.isfinite(primary_rms) else 0.0, airy)
    found = []
    for i, j in pairs:
        check_pair(optic, i, j)
        path = ghost_path(optic, i, j)
        normal = path_energy(optic, path, wavelength)
        focus, radius = paraxial_ghost_focus(optic, i, j, wavelength)
        unfolded = ghost_optic(optic, i, j)
        rms, passed = _spot(propagate(unfolded, rays))
        mean = be.mean(ray_fractions(optic, unfolded, path, rays, wavelength))
        spread = max(rms, reference) if math.isfinite(rms) else math.inf
        ratio = (reference / spread) ** 2 if reference > 0 else 0.0
        energy = float(be.item(mean)) / primary if primary > 0 else math.nan
        found.append(
            Ghost(
                surfaces=(i, j),
                reflectances=normal["reflectances"],
                transmission=normal["transmission"],
                energy=energy,
                focus=focus,
                paraxial_radius=radius,
                rms_radius=rms,
                passed=passed,
                irradiance=energy * ratio,
            )
        )
    found.sort(key=lambda g: -g.irradiance if math.isfinite(g.irradiance) else math.inf)
    return GhostReport(
        ghosts=tuple(found),
        primary_radius=reference,
        primary_transmission=primary,
        field=tuple(float(v) for v in field),
        wavelength=wavelength,
        rays=int(be.to_numpy(rays.valid).size),
    )
