"""Focus vs temperature: paraxial and best-focus drift against the image surface, and the
athermal summary.

The image surface sits on the mount: the last gap expands with its spacer.  The
*focus shift* at T is the paraxial focus measured from the image surface,
``bfl(T) − t_image(T)``, minus the same at the reference temperature (the optic's own);
positive means the focus moves toward +z (behind the image surface when the light reaches
it travelling toward +z).  The *best-focus shift* is the
same for the plane of the smallest RMS spot of the axial bundle (one fan of rays, equal
pupil areas, closed form).  Every value at T is computed on ``at_environment(optic, T)``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

from .. import backend as be
from .._paraxial import paraxial
from ..analysis import require_focus
from ..errors import ConfigurationError, OpticsError
from ..surfaces import media
from ..trace import trace_bundle
from ._expansion import _solid, at_environment, environment_of, gap_expansions
from ._index import ThermalWarning, index_at_temperature, material_name

__all__ = [
    "AthermalSummary",
    "ThermalFocusResult",
    "athermal_summary",
    "best_focus_offset",
    "focus_shift_at",
    "paraxial_focus_offset",
    "thermal_focus_shift",
]

_FAN_RAYS = 16  # equal-area zones of the axial fan for the best-focus plane
_DERIVATIVE_STEP = 1.0  # K: central differences of the summary's rates


def paraxial_focus_offset(optic, wavelength=None):
    """Paraxial focus minus the image surface position along the axis (mm), a 0-d array.

    ``bfl − t_image``: the back focal length from the last surface minus the last gap.
    """
    image_gap = optic.surfaces[optic.image_index - 1].thickness
    return paraxial(optic, _wavelength(optic, wavelength)).bfl - image_gap


def best_focus_offset(optic, wavelength=None):
    """Plane of the smallest RMS spot of the axial bundle minus the image surface (mm).

    The axial bundle is a fan of rays through the centres of equal-area pupil zones;
    at a defocus dz a ray lands at y + dz M/N, so the RMS minimum is at
    dz = −Σ y (M/N) / Σ (M/N)² (the spot is centred by symmetry).  Differentiable.
    """
    py = be.asarray([math.sqrt((k + 0.5) / _FAN_RAYS) for k in range(_FAN_RAYS)])
    bundle = trace_bundle(
        optic,
        fields=[(0.0, 0.0)],
        wavelengths=[_wavelength(optic, wavelength)],
        pupil=(be.zeros_like(py), py),
    )
    rays = bundle.rays
    valid = rays.valid[0, 0]
    if not bool(be.item(be.any(valid))):
        raise OpticsError("best focus: no ray of the axial bundle reaches the image surface")
    slope = be.where(valid, rays.M[0, 0] / be.where(valid, rays.N[0, 0], 1.0), 0.0)
    height = be.where(valid, rays.y[0, 0], 0.0)
    return -be.sum(height * slope) / be.sum(slope * slope)


def focus_shift_at(optic, temperature, *, reference=None, pressure=None, wavelength=None):
    """Paraxial focus shift (mm) against the image surface from ``reference`` to ``temperature``.

    Parameters
    ----------
    optic : Optic
    temperature : float
        °C.
    reference : float, optional
        °C; default the optic's own temperature.
    pressure : float, optional
        atm at both temperatures; default the optic's.
    wavelength : float, optional
        µm; default the primary.

    Returns
    -------
    0-d array
        ``offset(T) − offset(reference)`` with offset = bfl − t_image; differentiable in
        the optic's parameters.
    """
    return paraxial_focus_offset(
        at_environment(optic, temperature, pressure), wavelength
    ) - paraxial_focus_offset(_at_reference(optic, reference, pressure), wavelength)


def _at_reference(optic, reference, pressure):
    """The optic at the reference environment, its media moved there like every row's.

    Never the optic itself: a glass whose catalog is given at another temperature (Ohara's
    25 °C) has its catalog index in ``optic``, and the row at the optic's own temperature
    moves it to that temperature; the reference must be moved the same way for that row
    to be 0.
    """
    return at_environment(optic, reference, pressure)


def _wavelength(optic, wavelength):
    return optic.primary_wavelength if wavelength is None else float(wavelength)


@dataclass
class ThermalFocusResult:
    """Focus drift over temperature.

    Attributes
    ----------
    temperatures : list of float
        °C.
    reference_temperature, pressure, wavelength : float
        °C, atm, µm.
    efl, back_focus, image_distance : list of float
        mm at each temperature: paraxial focal length, back focal length from the last
        surface, and the last gap (the mount-expanded image distance).
    focus_shift : list of float
        mm: paraxial focus against the image surface, minus the same at the reference.
    best_focus_shift : list of float or None
        mm: the same for the smallest-RMS-spot plane of the axial bundle.
    """

    temperatures: list
    reference_temperature: float
    pressure: float
    wavelength: float
    efl: list
    back_focus: list
    image_distance: list
    focus_shift: list
    best_focus_shift: list | None = None
    summary: object = None

    def as_dict(self) -> dict:
        """JSON-ready record: the attributes by name (mm, °C, atm, µm)."""
        record = {
            "temperatures": self.temperatures,
            "focus_shift": self.focus_shift,
            "best_focus_shift": self.best_focus_shift,
            "back_focus": self.back_focus,
            "image_distance": self.image_distance,
            "efl": self.efl,
            "reference_temperature": self.reference_temperature,
            "pressure": self.pressure,
            "wavelength": self.wavelength,
        }
        if self.summary is not None:
            record["athermal"] = self.summary.as_dict()
        return record


MAX_STEPS = 1000
"""Most temperature intervals of one :func:`thermal_focus_shift` (each traces the lens)."""


def temperature_steps(start, stop, steps) -> list:
    """``steps`` + 1 temperatures from ``start`` to ``stop`` °C, both included."""
    if not (isinstance(steps, int) and not isinstance(steps, bool) and 1 <= steps <= MAX_STEPS):
        raise ConfigurationError(
            f"thermal: steps must be an integer from 1 to {MAX_STEPS}, not {steps!r}"
        )
    return [start + (stop - start) * k / steps for k in range(steps + 1)]


def thermal_focus_shift(
    optic, start, stop, steps=8, *, pressure=None, wavelength=None, best_focus=True
):
    """Paraxial (and best) focus shift against the image surface from ``start`` to ``stop``.

    Parameters
    ----------
    optic : Optic
        Its own temperature (``optic.environment``, 20 °C without one) is the reference.
    start, stop : float
        °C.
    steps : int
        Intervals: ``steps + 1`` temperatures.
    pressure : float, optional
        atm; default the optic's.
    wavelength : float, optional
        µm; default the primary.
    best_focus : bool
        Also trace the axial bundle for the best-focus shift (left out, with a
        :class:`ThermalWarning`, where no axial ray reaches the image, as in an off-axis
        mirror system).

    Returns
    -------
    ThermalFocusResult
        With :func:`athermal_summary` over the same range as ``summary``.
    """
    temperatures = temperature_steps(float(start), float(stop), steps)
    with warnings.catch_warnings():
        warnings.simplefilter("once", ThermalWarning)  # one warning per medium, not per step
        return _focus_table(optic, temperatures, pressure, wavelength, best_focus)


def _focus_table(optic, temperatures, pressure, wavelength, best_focus):
    wavelength = _wavelength(optic, wavelength)
    reference = environment_of(optic)
    base = _at_reference(optic, None, pressure)
    # the same host arithmetic as the rows, so the reference row is exactly 0 in float32 too
    require_focus(base, "the thermal focus shift", wavelength)
    base_gap = float(be.item(base.surfaces[base.image_index - 1].thickness))
    base_offset = float(be.item(paraxial(base, wavelength).bfl)) - base_gap
    base_best = None
    if best_focus:
        try:
            base_best = float(be.item(best_focus_offset(base, wavelength)))
        except OpticsError as exc:  # e.g. an off-axis mirror system: no axial bundle
            warnings.warn(f"{exc}; the best-focus shift is left out", ThermalWarning, stacklevel=4)
            best_focus = False
    rows = {"efl": [], "back_focus": [], "image_distance": [], "focus_shift": [], "best": []}
    for temperature in temperatures:
        hot = at_environment(optic, temperature, pressure)
        first = paraxial(hot, wavelength)
        gap = float(be.item(hot.surfaces[hot.image_index - 1].thickness))
        rows["efl"].append(float(be.item(first.efl)))
        rows["back_focus"].append(float(be.item(first.bfl)))
        rows["image_distance"].append(gap)
        rows["focus_shift"].append(float(be.item(first.bfl)) - gap - base_offset)
        if best_focus:
            rows["best"].append(float(be.item(best_focus_offset(hot, wavelength))) - base_best)
    result = ThermalFocusResult(
        temperatures,
        reference.temperature,
        reference.pressure if pressure is None else float(pressure),
        wavelength,
        rows["efl"],
        rows["back_focus"],
        rows["image_distance"],
        rows["focus_shift"],
        rows["best"] if best_focus else None,
    )
    result.summary = athermal_summary(optic, wavelength=wavelength, shifts=rows["focus_shift"])
    return result


@dataclass
class AthermalSummary:
    """Thermal sensitivities of an optic at its own temperature (central differences ±1 K).

    Attributes
    ----------
    temperature, wavelength : float
        °C, µm.
    efl_rate, back_focus_rate, image_distance_rate, focus_rate : float
        mm/K: d(efl)/dT, d(bfl)/dT, d(t_image)/dT (the mount), and the focus drift against
        the image surface, d(bfl − t_image)/dT; 0 for an athermal design.
    depth_of_focus : float
        mm: ±2 λ N², the Rayleigh (λ/4) focus tolerance at the working F/# N.
    athermal : bool or None
        Whether every focus shift given stays within the depth of focus (None: none given).
    elements : list of dict
        One per glass gap: ``surface``, ``material``, ``index``, ``dn_dt`` (relative to the
        air, 1/K), ``cte`` (1/K) and ``beta`` = dn/dT / (n − 1) − α (1/K, the
        thermo-optic coefficient: a thin lens's df/dT = −β f).
    """

    temperature: float
    wavelength: float
    efl_rate: float
    back_focus_rate: float
    image_distance_rate: float
    focus_rate: float
    depth_of_focus: float
    athermal: bool | None
    elements: list = field(default_factory=list)

    def as_dict(self) -> dict:
        """JSON-ready record of the attributes (mm/K, 1/K, mm)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def athermal_summary(optic, *, wavelength=None, shifts=None) -> AthermalSummary:
    """The :class:`AthermalSummary` of ``optic`` at its own temperature.

    Parameters
    ----------
    optic : Optic
    wavelength : float, optional
        µm; default the primary.
    shifts : list of float, optional
        Focus shifts (mm) over a temperature range, judged against the depth of focus.

    Returns
    -------
    AthermalSummary
        Rates in mm/K from central differences at ±1 K about the optic's temperature,
        the depth of focus ±2 λ N² (mm), ``athermal`` (None when ``shifts`` is None)
        and one record per glass gap.
    """
    wavelength = _wavelength(optic, wavelength)
    own = environment_of(optic)
    h = _DERIVATIVE_STEP
    cold, hot = (at_environment(optic, own.temperature + s * h) for s in (-1.0, 1.0))
    first_cold, first_hot = paraxial(cold, wavelength), paraxial(hot, wavelength)
    k = optic.image_index - 1

    def rate(a, b):
        return (float(be.item(b)) - float(be.item(a))) / (2.0 * h)

    image_rate = rate(cold.surfaces[k].thickness, hot.surfaces[k].thickness)
    back_rate = rate(first_cold.bfl, first_hot.bfl)
    fno = float(be.item(paraxial(optic, wavelength).fno))
    depth = 2.0 * wavelength * 1e-3 * fno * fno if math.isfinite(fno) else math.inf
    athermal = None if shifts is None else bool(max(map(abs, shifts)) <= depth)
    return AthermalSummary(
        own.temperature,
        wavelength,
        rate(first_cold.efl, first_hot.efl),
        back_rate,
        image_rate,
        back_rate - image_rate,
        depth,
        athermal,
        _elements(optic, wavelength, own),
    )


def _elements(optic, wavelength, own):
    """One record per gap filled with glass (see :class:`AthermalSummary`)."""
    alphas = gap_expansions(optic)
    records = []
    lam = be.asarray(wavelength)
    for i, (medium, _) in enumerate(media(optic.surfaces)[:-1]):
        if i == 0 or not _solid(medium):
            continue
        n = float(be.item(index_at_temperature(medium, lam, own.temperature, own.pressure)))
        up, down = (
            float(be.item(index_at_temperature(medium, lam, own.temperature + s, own.pressure)))
            for s in (_DERIVATIVE_STEP, -_DERIVATIVE_STEP)
        )
        dn_dt = (up - down) / (2.0 * _DERIVATIVE_STEP)
        records.append(
            {
                "surface": i,
                "material": material_name(medium),
                "index": n,
                "dn_dt": dn_dt,
                "cte": alphas[i],
                "beta": dn_dt / (n - 1.0) - alphas[i],
            }
        )
    return records
