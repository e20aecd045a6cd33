"""The refractive index of dry air at a temperature and pressure (the medium catalogs refer to).

Glass catalogs give indices relative to air at their reference conditions (20 °C and
1 atm for Schott, Ohara 25 °C ...).  Thermal analysis needs the air index itself::

    (n_ref − 1) · 1e8 = 6432.8 + 2949810 λ² / (146 λ² − 1) + 25540 λ² / (41 λ² − 1)
    n_air(λ, T, P) = 1 + (n_ref − 1) · P / (1 + 3.4785e-3 · (T − 15))

with λ in µm, T in °C and P in atm.  The first line is Edlén's 1953 dispersion of
standard dry air at 15 °C and 101325 Pa (B. Edlén, J. Opt. Soc. Am. 43, 339, 1953);
the second scales it to other temperatures and pressures as the Schott technical note
TIE-19 and the Zemax OpticStudio manual ("How OpticStudio calculates refractive
index at arbitrary temperatures and pressures") document it, which makes catalog
indices and the dn/dT constants fitted to them consistent.  Optiland 0.6.3 implements
the same formula as its "kohlrausch" model.  Humidity and CO₂ are not modelled: at
the 1e-8 level of those effects the catalogs' own indices are not known.
"""

from __future__ import annotations

from ..errors import OpticsError

__all__ = [
    "AIR_REFERENCE_TEMPERATURE",
    "AIR_THERMAL_COEFFICIENT",
    "ATMOSPHERE",
    "air_index",
]

AIR_REFERENCE_TEMPERATURE = 15.0
"""°C: the temperature of Edlén's standard air."""
AIR_THERMAL_COEFFICIENT = 3.4785e-3
"""1/°C: the linear temperature coefficient of the refractivity scaling."""
ATMOSPHERE = 101325.0
"""Pa in one standard atmosphere (the unit of pressure here)."""

_A, _B, _C, _D, _E = 6432.8, 2949810.0, 146.0, 25540.0, 41.0


def air_index(wavelength, temperature=20.0, pressure=1.0):
    """Refractive index of dry air (absolute, vacuum = 1).

    Parameters
    ----------
    wavelength : array, any shape
        Wavelength in µm.
    temperature : float
        °C; above the −302.5 °C where the scaling's denominator vanishes.
    pressure : float
        atm (1 atm = 101325 Pa); 0 is vacuum (n = 1).

    Returns
    -------
    array
        n_air, of the shape of ``wavelength`` on its backend.

    Raises
    ------
    OpticsError
        A temperature at or below the formula's pole, or a negative pressure.
    """
    return 1.0 + standard_refractivity(wavelength) * density_factor(temperature, pressure)


def standard_refractivity(wavelength):
    """n_ref − 1 of standard air (15 °C, 1 atm) at ``wavelength`` (µm), Edlén 1953."""
    lam2 = wavelength * wavelength
    return 1e-8 * (_A + _B * lam2 / (_C * lam2 - 1.0) + _D * lam2 / (_E * lam2 - 1.0))


def density_factor(temperature, pressure):
    """P / (1 + 3.4785e-3 (T − 15)): (n_air − 1) / (n_ref − 1) at ``temperature`` °C and
    ``pressure`` atm; OpticsError below the formula's pole or for a negative pressure."""
    scale = 1.0 + AIR_THERMAL_COEFFICIENT * (temperature - AIR_REFERENCE_TEMPERATURE)
    if not scale > 0:
        raise OpticsError(f"air index: temperature {temperature!r} °C is below the formula's range")
    if not pressure >= 0:
        raise OpticsError(f"air index: pressure must be >= 0 atm, not {pressure!r}")
    return pressure / scale
