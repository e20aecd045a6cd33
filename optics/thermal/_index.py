"""Glass index at a temperature and pressure: Schott's dn/dT formula and the air index.

A catalog gives n_rel(λ, T0), the index relative to air at the catalog's reference
temperature T0 and 1 atm.  At a temperature T and pressure P::

    n_abs(λ, T0) = n_rel(λ, T0) · n_air(λ, T0, 1 atm)
    Δn_abs(λ, T) = (n_abs² − 1) / (2 n_abs) · (D0 ΔT + D1 ΔT² + D2 ΔT³
                                              + (E0 ΔT + E1 ΔT²) / (λ² − λtk²)),  ΔT = T − T0
    n_rel(λ, T, P) = (n_abs(λ, T0) + Δn_abs(λ, T)) / n_air(λ, T, P)

(Schott technical note TIE-19, "Temperature coefficient of the refractive index"; the
constants D0 ... λtk are the glass's, from the catalog).  The factor uses the absolute
index at T0 as in Schott's derivation (d(n²)/dT = 2n dn/dT of the absolute index);
TIE-19 writes n(λ, T0): with the relative index, Δn at ΔT = 40 K changes by 7e-8 (N-BK7)
to 2e-7 (N-FK51A, N-SF66) over 0.4–1.5 µm.
λ is the optic's wavelength, the same number at every temperature: optics holds a
source's wavelength fixed, where OpticStudio and Optiland take the system wavelength as
measured in the air at (T, P) and rescale it to the catalog's air first (docs/thermal.md).
A medium without dn/dT constants keeps its absolute index (dn/dT = 0) and warns.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from ..materials import Abbe, Air, CatalogGlass, ConstantIndex, Material
from ._air import density_factor, standard_refractivity
from ._environment import REFERENCE_TEMPERATURE

__all__ = [
    "ThermalMaterial",
    "ThermalWarning",
    "absolute_index_change",
    "expansion_coefficient",
    "index_at_temperature",
    "lacks_dn_dt",
    "material_at",
    "material_name",
    "reference_temperature",
]


class ThermalWarning(UserWarning):
    """A medium without thermal data (dn/dT or expansion), taken as 0."""


def _catalog(material):
    """The catalog glass behind ``material`` (itself or the base of a ThermalMaterial), or None."""
    material = material.base if isinstance(material, ThermalMaterial) else material
    return material if isinstance(material, CatalogGlass) else None


def material_name(material) -> str:
    """A name for messages: ``N-BK7 (schott)``, ``model glass nd=1.5, vd=60`` ..."""
    material = material.base if isinstance(material, ThermalMaterial) else material
    if isinstance(material, CatalogGlass):
        return f"{material.name} ({material.catalog})"
    if isinstance(material, Abbe):
        return f"model glass nd={float(material.nd):g}, vd={float(material.vd):g}"
    if isinstance(material, ConstantIndex):
        return f"constant index {float(material.value):g}"
    return type(material).__name__


def reference_temperature(material) -> float:
    """°C at which the catalog gives ``material``'s index (20 when the source does not say)."""
    glass = _catalog(material)
    data = glass.thermal if glass is not None else None
    if data is None or data.reference_temperature is None:
        return REFERENCE_TEMPERATURE
    return float(data.reference_temperature)


def expansion_coefficient(material):
    """α (1/K) of a catalog glass from its data (−30/+70 °C), or None where they lack it.

    Parameters
    ----------
    material : Material
        A catalog glass, or a :class:`ThermalMaterial` wrapping one; any other medium has
        no catalog data.

    Returns
    -------
    float or None
        The linear expansion coefficient in 1/K; None for a medium that is not a catalog
        glass or whose catalog entry gives none.
    """
    from .. import _glass_catalog

    glass = _catalog(material)
    if glass is None:
        return None
    return _glass_catalog.glass_dispersion(glass.name, glass.catalog).expansion


def absolute_index_change(n_abs, wavelength, data, delta_t):
    """Δn_abs of Schott's formula (see the module docstring); arrays shaped like ``wavelength``.

    Parameters
    ----------
    n_abs : array
        Absolute index at the reference temperature, of the shape of ``wavelength``
        (or one that broadcasts with it).
    wavelength : array
        Vacuum wavelength in µm, any shape.
    data : ThermalData
        D0, D1, D2 (1/K, 1/K², 1/K³), E0, E1 (µm²/K, µm²/K²), λtk (µm).
    delta_t : float
        T − T0 in K.

    Returns
    -------
    array
        Δn_abs(λ, T), dimensionless, of the broadcast shape of ``n_abs`` and ``wavelength``.
    """
    dt = delta_t
    polynomial = data.d0 * dt + data.d1 * dt * dt + data.d2 * dt * dt * dt
    resonance = (data.e0 * dt + data.e1 * dt * dt) / (
        wavelength * wavelength - data.lambda_tk * data.lambda_tk
    )
    return (n_abs * n_abs - 1.0) / (2.0 * n_abs) * (polynomial + resonance)


def index_at_temperature(material, wavelength, temperature, pressure=1.0):
    """Index of ``material`` relative to air at ``temperature`` (°C) and ``pressure`` (atm).

    Parameters
    ----------
    material : Material
        A catalog glass (its dn/dT constants are used) or any other medium (dn/dT = 0).
    wavelength : array, any shape
        µm.
    temperature, pressure : float
        °C and atm.

    Returns
    -------
    array
        n_rel(λ, T, P), of the shape of ``wavelength``; differentiable in the material's
        parameters.
    """
    base = material.base if isinstance(material, ThermalMaterial) else material
    glass = _catalog(base)
    data = glass.thermal if glass is not None else None
    t0 = reference_temperature(base)
    refractivity = standard_refractivity(wavelength)  # shared by both air indices
    n_abs = base.index(wavelength) * (1.0 + refractivity * density_factor(t0, 1.0))
    if data is not None and temperature != t0:
        n_abs = n_abs + absolute_index_change(n_abs, wavelength, data, temperature - t0)
    return n_abs / (1.0 + refractivity * density_factor(temperature, pressure))


@dataclass(eq=False)
class ThermalMaterial(Material):
    """A medium at a temperature and pressure other than its catalog's reference.

    Attributes
    ----------
    base : Material
        The medium as the catalog or lens file gives it.
    temperature, pressure : float
        °C and atm.
    """

    base: Material
    temperature: float
    pressure: float = 1.0

    def index(self, wavelength):
        """n relative to the air at (temperature, pressure), ``wavelength`` in µm."""
        return index_at_temperature(self.base, wavelength, self.temperature, self.pressure)

    def to_spec(self):
        """The base medium's lens-file value (the environment is written on its own)."""
        return self.base.to_spec()

    # The base's index parameter, so that the path ``surfaces[i].material.index``
    # (optics.params: ``value`` of a constant index, ``nd`` of an Abbe glass) reaches it.
    @property
    def value(self):
        """The base's constant index (AttributeError when it has none)."""
        return self.base.value

    @value.setter
    def value(self, new):
        self.base.value = new

    @property
    def nd(self):
        """The base's d-line index (AttributeError when it has none)."""
        return self.base.nd

    @nd.setter
    def nd(self, new):
        self.base.nd = new

    @property
    def thermal(self):
        """The base glass's dn/dT constants, or None."""
        glass = _catalog(self.base)
        return glass.thermal if glass is not None else None


def material_at(material, temperature, pressure=1.0, *, where="", warn=True):
    """``material`` at (``temperature`` °C, ``pressure`` atm): the medium a trace needs there.

    Air and mirrors are returned as they are (indices are relative to the air around the
    system); a medium at its reference conditions is returned unwrapped, so an optic
    at 20 °C and 1 atm traces bit for bit as without an environment.  A medium without
    dn/dT constants warns (:class:`ThermalWarning`, naming it and ``where``) and keeps
    its absolute index.

    Parameters
    ----------
    material : Material
        The medium as the catalog or lens file gives it (a :class:`ThermalMaterial` is
        unwrapped to its base first).
    temperature : float
        °C.
    pressure : float
        atm.
    where : str
        Where the medium is (``"lens.toml: surface 3"``), for the warning.
    warn : bool
        Whether a medium without dn/dT constants warns (only away from its reference
        temperature).

    Returns
    -------
    Material
        The base medium itself (air, a mirror, or a medium at its reference temperature
        and 1 atm), else a :class:`ThermalMaterial` at (``temperature``, ``pressure``).

    Warns
    -----
    ThermalWarning
        A medium without dn/dT constants away from its reference temperature.
    """
    base = material.base if isinstance(material, ThermalMaterial) else material
    if base.is_mirror or isinstance(base, Air):
        return base
    if warn and lacks_dn_dt(base) and temperature != reference_temperature(base):
        _warn(f"{_prefix(where)}{material_name(base)} has no dn/dT data; dn/dT = 0 is used")
    if temperature == reference_temperature(base) and pressure == 1.0:
        return base
    return ThermalMaterial(base, float(temperature), float(pressure))


def lacks_dn_dt(material) -> bool:
    """True for a medium (not air or a mirror) without dn/dT constants."""
    base = material.base if isinstance(material, ThermalMaterial) else material
    if base.is_mirror or isinstance(base, Air):
        return False
    return _catalog(base) is None or _catalog(base).thermal is None


def _prefix(where):
    return f"{where}: " if where else ""


def _warn(message):
    warnings.warn(message, ThermalWarning, stacklevel=4)


def warn_missing_dn_dt(names_to_surfaces: dict) -> None:
    """One ThermalWarning per medium without dn/dT data, naming the surfaces it fills."""
    for name, surfaces in names_to_surfaces.items():
        listed = ("surface " if len(surfaces) == 1 else "surfaces ") + ", ".join(map(str, surfaces))
        warnings.warn(
            f"{name} ({listed}) has no dn/dT data: its absolute index is kept at "
            "every temperature (dn/dT = 0)",
            ThermalWarning,
            stacklevel=4,
        )
