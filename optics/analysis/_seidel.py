"""Seidel (third-order) aberration sums from the paraxial marginal and chief rays.

Welford's convention (*Aberrations of Optical Systems*, ch. 8), which is the
one Zemax OpticStudio reports as "Seidel coefficients": at every surface,
with the marginal ray (height y, slope u before and u′ after) and the chief
ray (ȳ, ū) of the primary wavelength, the refraction invariants
A = n (u + y c), Ā = n (ū + ȳ c), the Lagrange invariant H = n (u ȳ − ū y)
and Δ(x) = x′ − x across the surface::

    S_I   = −A² y Δ(u/n)              C_L = A y Δ(δn/n)
    S_II  = −A Ā y Δ(u/n)             C_T = Ā y Δ(δn/n)
    S_III = −Ā² y Δ(u/n)
    S_IV  = −H² c Δ(1/n)
    S_V   = −Ā³ y Δ(1/n²) − Ā ȳ c (ȳ A − 2 y Ā) Δ(1/n)   (= Ā/A (S_III + S_IV))

δn is the index at the shortest minus the longest wavelength of the lens.
Slopes are dy/dz, indices signed (negative after an odd number of mirrors),
all in mm.  A conic constant k and the r⁴ coefficient a₂ of an even asphere
add the fourth-order sag departure b = k c³/8 + a₂, which contributes
ΔS_I = 8 b (n′ − n) y⁴ and ΔS_II, ΔS_III, ΔS_V = ΔS_I (ȳ/y), (ȳ/y)², (ȳ/y)³
(written without division by y).  Every value is backend arithmetic, so the
sums keep gradients.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import backend as be
from .._notebook import NotebookView
from .._paraxial import basis_rays, chief_ray_start, paraxial
from ..errors import ConfigurationError
from ..geometry.aspheres import EvenAsphere
from ..geometry.conic import Standard
from ..geometry.coordinate_break import CoordinateBreak
from ..materials import index_at
from ..surfaces import media
from ..trace.prepared import takes_system

__all__ = ["SEIDEL_TERMS", "SeidelResult", "seidel", "wavefront_coefficients"]

SEIDEL_TERMS = ("S1", "S2", "S3", "S4", "S5", "CL", "CT")
"""The per-surface keys, in Zemax's order (SPHA, COMA, ASTI, FCUR, DIST, CLA, CTR)."""


@dataclass(frozen=True, repr=False)
class SeidelResult(NotebookView):
    """Seidel sums of one system.

    surfaces : list of dict
        One per surface 1..image: ``{"surface": i, "S1": ..., "CT": ...}`` (mm;
        0-d arrays or floats that keep gradients).
    sums : dict
        The totals of each term.
    wavelength : float
        The primary wavelength (µm) of the marginal and chief rays.
    short, long : float
        The wavelengths (µm) whose index difference δn gives C_L and C_T.
    """

    surfaces: list
    sums: dict
    wavelength: float
    short: float
    long: float

    def as_dict(self) -> dict:
        """Plain Python values: the ``optics seidel --json`` object."""

        def row(values):
            return {k: float(be.item(v)) + 0.0 for k, v in values.items() if k != "surface"}

        return {
            "wavelength": float(self.wavelength),
            "surfaces": [{"surface": r["surface"], **row(r)} for r in self.surfaces],
            "sums": row(self.sums),
        }


def wavefront_coefficients(result: SeidelResult) -> dict:
    """The sums as wavefront aberration coefficients in waves of the primary wavelength.

    W = Σ W_klm H^k ρ^l cos^m θ with (Welford eq. 8.43; Zemax's names)
    W040 = S_I/8, W131 = S_II/2, W222 = S_III/2, W220 = (S_III + S_IV)/4 (the
    sagittal field curvature, also W220S), W220P = S_IV/4 (Petzval),
    W220M = (2 S_III + S_IV)/4, W220T = (3 S_III + S_IV)/4, W311 = S_V/2,
    W020 = C_L/2 and W111 = C_T.

    Parameters
    ----------
    result : SeidelResult
        From :func:`optics.analysis.seidel`: sums in mm, ``wavelength`` in µm.

    Returns
    -------
    dict of str to float or 0-d array
        ``W040``, ``W131``, ``W222``, ``W220``, ``W220P``, ``W220M``, ``W220T``,
        ``W311``, ``W020`` and ``W111`` in waves at ``result.wavelength``
        (gradients kept where the sums keep them).
    """
    s = result.sums
    per_wave = 1.0 / (result.wavelength * 1e-3)
    terms = {
        "W040": s["S1"] / 8.0,
        "W131": s["S2"] / 2.0,
        "W222": s["S3"] / 2.0,
        "W220": (s["S3"] + s["S4"]) / 4.0,
        "W220P": s["S4"] / 4.0,
        "W220M": (2.0 * s["S3"] + s["S4"]) / 4.0,
        "W220T": (3.0 * s["S3"] + s["S4"]) / 4.0,
        "W311": s["S5"] / 2.0,
        "W020": s["CL"] / 2.0,
        "W111": s["CT"],
    }
    return {k: v * per_wave for k, v in terms.items()}


@takes_system
def seidel(optic, wavelength=None) -> SeidelResult:
    """Seidel sums per surface and in total (mm), Welford's convention.

    Parameters
    ----------
    optic : Optic
        A centred system of spheres, conics, even aspheres (without an r²
        term) and ideal lenses; the largest field sets the chief ray and the
        aperture the marginal ray.
    wavelength : float, optional
        µm of the marginal and chief rays (default: the primary).

    Returns
    -------
    SeidelResult

    Raises
    ------
    ConfigurationError
        A surface with no third-order model here (tilted or decentered,
        coordinate break, freeform, odd or Forbes asphere, biconic ...),
        named by its number, or an even asphere with an r² term.
    """
    _check_surfaces(optic)
    wavelength = optic.primary_wavelength if wavelength is None else float(wavelength)
    first = paraxial(optic, wavelength)
    rays = basis_rays(optic, wavelength)
    ep, t0 = first.ep_position, optic.surfaces[0].thickness
    if optic.object_at_infinity:
        y1m, u0m = first.epd / 2.0, 0.0 * ep
    else:
        u0m = (first.epd / 2.0) / (ep + t0)
        y1m = u0m * t0
    y1c, u0c = chief_ray_start(optic, rays, ep)
    short, long = min(optic.wavelengths.values), max(optic.wavelengths.values)
    n = _indices(optic, wavelength)
    dn = [a - b for a, b in zip(_indices(optic, short), _indices(optic, long))]
    rows = []
    u_m, u_c = u0m, u0c
    for i in range(1, optic.image_index + 1):
        y, um_after = rays.ray(y1m, u0m, i)
        yc, uc_after = rays.ray(y1c, u0c, i)
        if i == optic.image_index:  # no refraction at the image: the same medium after it
            n_after, dn_after, um_after, uc_after = n[i - 1], dn[i - 1], u_m, u_c
        else:
            n_after, dn_after = n[i], dn[i]
        geometry = optic.surfaces[i].geometry
        if getattr(geometry, "is_ideal_lens", False):
            rows.append({"surface": i, **{k: 0.0 * y for k in SEIDEL_TERMS}})
        else:
            rows.append(
                _surface_terms(
                    i, geometry, y, yc, u_m, um_after, u_c, n[i - 1], n_after, dn[i - 1], dn_after
                )
            )
        u_m, u_c = um_after, uc_after
    sums = {k: sum(r[k] for r in rows) for k in SEIDEL_TERMS}
    return SeidelResult(rows, sums, wavelength, short, long)


def _surface_terms(i, geometry, y, yc, u, u_after, uc, n, n_after, dn, dn_after):
    """The Seidel terms of surface ``i`` (see the module docstring)."""
    c = geometry.base_curvature
    a = n * (u + y * c)
    a_bar = n * (uc + yc * c)
    h = n * (u * yc - uc * y)
    d_u_n = u_after / n_after - u / n
    d_inv_n = 1.0 / n_after - 1.0 / n
    d_inv_n2 = 1.0 / (n_after * n_after) - 1.0 / (n * n)
    d_dn_n = dn_after / n_after - dn / n
    terms = {
        "S1": -a * a * y * d_u_n,
        "S2": -a * a_bar * y * d_u_n,
        "S3": -a_bar * a_bar * y * d_u_n,
        "S4": -h * h * c * d_inv_n,
        "S5": -(a_bar**3) * y * d_inv_n2 - a_bar * yc * c * (yc * a - 2.0 * y * a_bar) * d_inv_n,
        "CL": a * y * d_dn_n,
        "CT": a_bar * y * d_dn_n,
    }
    b = _fourth_order_departure(geometry, c)
    if b is not None:  # ΔS = 8 b Δn y^(4-k) ȳ^k
        scale = 8.0 * b * (n_after - n)
        y2 = y * y
        terms["S1"] = terms["S1"] + scale * y2 * y2
        terms["S2"] = terms["S2"] + scale * y2 * y * yc
        terms["S3"] = terms["S3"] + scale * y2 * yc * yc
        terms["S5"] = terms["S5"] + scale * y * yc**3
    return {"surface": i, **terms}


def _fourth_order_departure(geometry, c):
    """b of the r⁴ sag departure from the base sphere (1/mm³), or None when there is none."""
    conic = getattr(geometry, "conic", 0.0)
    b = None
    if not (isinstance(conic, (int, float)) and conic == 0):
        b = conic * c**3 / 8.0
    if isinstance(geometry, EvenAsphere) and len(geometry.coefficients) > 1:
        a2 = geometry.coefficients[1]
        b = a2 if b is None else b + a2
    return b


def _indices(optic, wavelength):
    """Signed index of the medium after each surface (negative after odd mirrors)."""
    return [
        direction * index_at(material, wavelength) for material, direction in media(optic.surfaces)
    ]


def _check_surfaces(optic):
    """ConfigurationError naming the first surface with no third-order model here."""
    for i, surface in enumerate(optic.surfaces[1 : optic.image_index], start=1):
        geometry = surface.geometry
        kind = getattr(geometry, "type_name", type(geometry).__name__)
        if surface.has_frame or isinstance(geometry, CoordinateBreak):
            raise ConfigurationError(
                f"seidel: surface {i} is tilted, decentered or a coordinate break; third-order "
                "sums are defined here only for centred systems"
            )
        if isinstance(geometry, EvenAsphere):
            r2 = geometry.coefficients[0] if geometry.coefficients else 0.0
            if not (isinstance(r2, (int, float)) and r2 == 0):
                raise ConfigurationError(
                    f"seidel: surface {i} (even_asphere) has an r² coefficient, which changes "
                    "the paraxial power that optics's first-order trace ignores; fold it into "
                    "the radius"
                )
            continue
        if type(geometry) is Standard or getattr(geometry, "is_ideal_lens", False):
            continue
        raise ConfigurationError(
            f"seidel: surface {i} is of type {kind!r}, which has no third-order model here "
            "(only spheres, conics, even aspheres and ideal lenses do)"
        )
