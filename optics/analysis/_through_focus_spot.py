"""Through-focus spot: RMS and geometric spot radius against defocus, and the best focus.

The rays of one trace (hexapolar pupil, every wavelength aimed at the primary
wavelength's entrance pupil) are taken in the image surface's own frame and
carried on in a straight line to the image surface moved by δ along its axis
(positive away from the lens, that is along the light: after an odd number
of mirrors the light goes −z).  A ray at p = (x, y) with direction (L, M, N)
lands at p + δ u, u = (L, M) / |N|, so every radius is an exact function of
δ and the mean square radius is a quadratic in δ:

    r²(δ) = A + 2 B δ + C δ²,  A = ⟨|p − c|²⟩, B = ⟨(p − c)·(u − u_c)⟩, C = ⟨|u − u_c|²⟩,

⟨·⟩ the mean over the valid rays weighted by their wavelength's weight, c
and u_c the reference point and its slope: the weighted centroid of the
rays (``reference="centroid"``, the default, as a through-focus spot diagram
is read) or the primary wavelength's chief ray (``"chief"``).  The best
focus is where the field-weighted mean of r² is least, δ* = −ΣwB / ΣwC —
exact, not limited to the sampled δ, and differentiable.  Per field the
same minimum −B/C is ``field_best_focus``.  The geometric (GEO) radius is the
largest distance of a valid ray from the reference.

Polychromatic (the default when the lens has several wavelengths): the rays
of every wavelength pooled with their weights; ``wavelength=`` for one.

Sampling: hexapolar rings R (1 + 3R(R + 1) rays per field and wavelength).
``rings=R`` averages the rays plainly, as Optiland and Zemax do (the pattern
then over-weights the rim by O(1/R): about 3 % of the RMS radius at their
default of 6 rings).  By default the rays are weighted by the pupil area
they stand for (:func:`_ring_weights`: the trapezoid rule, error O(1/R²)) and
R doubles from 6 until no RMS radius changes by more than 1 % of the largest
(``SPOT_TOLERANCE``); the reached change is ``accuracy``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError
from ..trace import trace_bundle
from ..trace.prepared import optic_of, takes_system
from ._checks import check_defocus, check_field, check_sizes, require_focus, wavelength_of
from ._converge import ConvergenceWarning
from .spot import in_image_frame

__all__ = ["SPOT_TOLERANCE", "ThroughFocusSpotResult", "spot_focus_terms", "through_focus_spot"]

SPOT_TOLERANCE = 0.01
"""Largest change of any RMS radius, as a fraction of the largest, from R/2 to R rings."""

_START_RINGS, _MAX_RINGS = 6, 96
_REFERENCES = ("centroid", "chief")


@dataclass(frozen=True)
class ThroughFocusSpotResult:
    """RMS and GEO spot radius against defocus (lengths in mm).

    Attributes
    ----------
    defocus : array, shape (D,)
        Image-surface shifts (mm, positive away from the lens).
    fields : tuple of (hx, hy), length F
    rms, geo : arrays, shape (D, F)
        RMS and geometric radius about the reference (NaN where no ray is valid).
    best_focus : 0-d array
        Defocus of the least field-weighted mean square RMS radius.
    field_best_focus : array, shape (F,)
        Each field's own least-RMS defocus.
    reference : str
        "centroid" or "chief".
    wavelengths, weights : tuple
    polychromatic : bool
    rings : int
    area_weighted : bool
        The rays weighted by their pupil area (the converged default).
    accuracy : float
        Largest change of an RMS radius from half the rings, over the largest
        (NaN when ``rings`` was given).
    """

    defocus: object
    fields: tuple
    rms: object
    geo: object
    best_focus: object
    field_best_focus: object
    reference: str
    wavelengths: tuple
    weights: tuple
    polychromatic: bool
    rings: int
    accuracy: float
    area_weighted: bool = False

    def as_dict(self) -> dict:
        """{"defocus": [mm], "fields": [{"field", "rms", "geo", "best_focus"}], ...} (mm)."""

        def number(v):
            v = float(v)
            return v if math.isfinite(v) else None

        rms, geo = be.to_numpy(be.detach(self.rms)), be.to_numpy(be.detach(self.geo))
        own = be.to_numpy(be.detach(self.field_best_focus))
        return {
            "defocus": [float(v) for v in be.to_numpy(be.detach(self.defocus))],
            "fields": [
                {
                    "field": [float(v) for v in field],
                    "rms": [number(v) for v in rms[:, i]],
                    "geo": [number(v) for v in geo[:, i]],
                    "best_focus": number(own[i]),
                }
                for i, field in enumerate(self.fields)
            ],
            "best_focus": number(be.item(be.detach(self.best_focus))),
            "reference": self.reference,
            "wavelengths": [float(w) for w in self.wavelengths],
            "weights": [float(w) for w in self.weights],
            "wavelength": float(self.wavelengths[0]) if not self.polychromatic else None,
            "polychromatic": bool(self.polychromatic),
            "rings": int(self.rings),
            "area_weighted": bool(self.area_weighted),
            "accuracy": {"rms": number(self.accuracy), "tolerance": SPOT_TOLERANCE},
        }


def _spectrum(optic, wavelength, polychromatic):
    """(wavelengths, weights, polychromatic) of the spot: as the PSF and MTF choose them."""
    if wavelength is not None:
        return (wavelength_of(optic, wavelength),), (1.0,), False
    values = tuple(float(v) for v in optic.wavelengths.values)
    if polychromatic is False or len(values) == 1:
        return (float(optic.primary_wavelength),), (1.0,), False
    return values, tuple(float(w) for w in optic.wavelengths.weight_values()), True


def _ring_weights(rings):
    """Pupil-area weights of the hexapolar rays (P,): 1, the centre 3/4, the rim ring 1/2.

    Ring i at radius i/R stands for the annulus (i ± 1/2)/R; the rim ring's
    is cut at the pupil edge (half as wide) and the centre's is a disc of
    radius 1/(2R): with these weights the ray sums are the trapezoid rule of
    the pupil integral, error O(1/R²) rather than the plain average's O(1/R).
    """
    count = 1 + 3 * rings * (rings + 1)
    w = np.ones(count)
    if rings:
        w[0] = 0.75
        w[count - 6 * rings :] = 0.5
    return w


def spot_focus_terms(
    system, fields, wavelengths, weights, rings, reference="centroid", area_weights=False
):
    """Per-ray positions and slopes about the reference, and the ray weights.

    Returns
    -------
    dp_x, dp_y, du_x, du_y : arrays, shape (W, F, P)
        Ray position minus the reference point (mm) and ray slope minus the
        reference slope, in the image surface's frame (0 on invalid rays).
    weight : array, shape (W, F, P)
        The wavelength's weight on valid rays (times the ray's pupil area with
        ``area_weights``, :func:`_ring_weights`), 0 elsewhere.
    """
    optic = optic_of(system)
    waves = list(wavelengths)
    extra = optic.primary_wavelength not in waves
    if extra:  # the chief-ray reference is the primary wavelength's
        waves.append(optic.primary_wavelength)
    bundle = trace_bundle(system, fields, waves, int(rings))
    rays = in_image_frame(optic, bundle.rays)
    valid = rays.valid
    count = len(wavelengths)
    w = be.asarray([float(v) for v in weights] + ([0.0] if extra else []))
    weight = be.where(valid, w[:, None, None], 0.0)
    if area_weights:
        weight = weight * be.asarray(_ring_weights(int(rings)))
    x, y = be.where(valid, rays.x, 0.0), be.where(valid, rays.y, 0.0)
    along = be.abs(be.where(valid, rays.N, 1.0))
    ux, uy = be.where(valid, rays.L, 0.0) / along, be.where(valid, rays.M, 0.0) / along
    if reference == "chief":
        chief = in_image_frame(optic, bundle.reference_chief)
        chief_n = be.abs(chief.N)
        ok = be.where(bundle.reference_valid, 0.0, math.nan)
        cx, cy = chief.x + ok, chief.y + ok
        cux, cuy = chief.L / chief_n, chief.M / chief_n
    else:
        total = be.maximum(be.sum(weight, axis=(0, 2)), be.machine_eps(x))
        cx, cy = be.sum(weight * x, axis=(0, 2)) / total, be.sum(weight * y, axis=(0, 2)) / total
        cux = be.sum(weight * ux, axis=(0, 2)) / total
        cuy = be.sum(weight * uy, axis=(0, 2)) / total
    terms = [
        be.where(valid, a - b[None, :, None], 0.0)
        for a, b in ((x, cx), (y, cy), (ux, cux), (uy, cuy))
    ]
    return (*(t[:count] for t in terms), weight[:count])


def _radii(terms, defocus):
    """RMS and GEO radius (D, F), the quadratic's B and C (F,) and the valid weight (F,)."""
    dx, dy, ux, uy, weight = terms
    total = be.sum(weight, axis=(0, 2))
    safe = be.maximum(total, be.machine_eps(dx))
    none = be.where(total > 0, 0.0, math.nan)
    a = be.sum(weight * (dx * dx + dy * dy), axis=(0, 2)) / safe
    b = be.sum(weight * (dx * ux + dy * uy), axis=(0, 2)) / safe
    c = be.sum(weight * (ux * ux + uy * uy), axis=(0, 2)) / safe
    d = be.reshape(defocus, (-1, 1))
    mean_square = be.maximum(a + 2.0 * b * d + c * d * d, 0.0)
    rms = be.sqrt(mean_square + be.machine_eps(dx) ** 2) + none
    d = be.reshape(defocus, (-1, 1, 1, 1))
    r2 = (dx + d * ux) ** 2 + (dy + d * uy) ** 2
    geo = be.sqrt(be.max(be.where(weight > 0, r2, 0.0), axis=(1, 3))) + none
    return rms, geo, b, c, total


@takes_system
def through_focus_spot(
    system,
    defocus,
    *,
    fields=None,
    wavelength=None,
    polychromatic=None,
    rings=None,
    reference="centroid",
):
    """RMS and geometric spot radius of every field against image-surface defocus.

    Parameters
    ----------
    system : Optic or PreparedSystem
    defocus : sequence of float, length D
        Image-surface shifts in mm (positive away from the lens).
    fields : sequence of (hx, hy), optional
        Normalized fields; the optic's fields by default.
    wavelength : float, optional
        Micrometres: that wavelength alone.  By default every wavelength of
        the lens with its weight when it has several.
    polychromatic : bool, optional
        False: the primary wavelength alone.
    rings : int, optional
        Hexapolar rings, the rays averaged plainly (Optiland's and Zemax's
        convention); by default area-weighted and converged (doubled from 6
        to 1 %).
    reference : {"centroid", "chief"}
        Radii about the weighted centroid of the rays or the primary chief ray.

    Returns
    -------
    ThroughFocusSpotResult

    Raises
    ------
    ConfigurationError
        When the system is afocal (:func:`optics.analysis.require_focus`): no focus to
        search for.
    """
    optic = optic_of(system)
    if reference not in _REFERENCES:
        raise ConfigurationError(f"reference must be one of {_REFERENCES}, not {reference!r}")
    fields = tuple(
        check_field(f) for f in (optic.fields.normalized() if fields is None else fields)
    )
    shifts = check_defocus(defocus)
    check_sizes(rings=rings)
    require_focus(system, "the through-focus spot")
    wavelengths, weights, poly = _spectrum(optic, wavelength, polychromatic)
    z = be.asarray(shifts)

    def evaluate(count):
        terms = spot_focus_terms(
            system, fields, wavelengths, weights, count, reference, area_weights=rings is None
        )
        return _radii(terms, z)

    if rings is not None:
        count, accuracy = int(rings), math.nan
        rms, geo, b, c, total = evaluate(count)
    else:
        count, accuracy = _START_RINGS, math.inf
        previous = evaluate(count)[0]
        while True:
            count *= 2
            rms, geo, b, c, total = evaluate(count)
            now = be.to_numpy(be.detach(rms))
            change = abs(now - be.to_numpy(be.detach(previous)))
            top = max(float(_nanmax(now)), be.machine_eps(rms))
            accuracy = float(_nanmax(change)) / top if math.isfinite(_nanmax(change)) else 0.0
            if accuracy <= SPOT_TOLERANCE or count >= _MAX_RINGS:
                break
            previous = rms
        if accuracy > SPOT_TOLERANCE:
            warnings.warn(
                f"through-focus spot: {count} rings reach an RMS change of {accuracy:.2g} "
                f"(tolerance {SPOT_TOLERANCE})",
                ConvergenceWarning,
                stacklevel=2,
            )
    field_weights = _field_weights(optic, fields)
    lit = be.where(total > 0, 1.0, 0.0) * be.asarray(field_weights)
    b_all, c_all = be.sum(lit * be.where(total > 0, b, 0.0)), be.sum(lit * c)
    tiny = be.machine_eps(c_all)
    best = -b_all / be.where(c_all > tiny, c_all, 1.0)
    own = -b / be.where(c > tiny, c, 1.0)
    return ThroughFocusSpotResult(
        defocus=z,
        fields=fields,
        rms=rms,
        geo=geo,
        best_focus=best,
        field_best_focus=own,
        reference=reference,
        wavelengths=tuple(wavelengths),
        weights=tuple(weights),
        polychromatic=poly,
        rings=count,
        accuracy=accuracy,
        area_weighted=rings is None,
    )


def _nanmax(values):
    finite = values[np.isfinite(values)]
    return float(finite.max()) if finite.size else math.nan


def _field_weights(optic, fields):
    """The lens's field weights when ``fields`` are its own fields, else all 1."""
    own = [tuple(float(v) for v in f) for f in optic.fields.normalized()]
    if [tuple(f) for f in fields] == own:
        return [float(w) for w in optic.fields.weight_values()]
    return [1.0] * len(fields)
