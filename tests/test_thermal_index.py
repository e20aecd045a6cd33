"""Glass and air indices at a temperature and pressure, against vendor data, published air
formulas and Optiland; thermal expansion of surface shapes."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _newton_cases import NAMES, make

from optics import backend as be
from optics.errors import ConfigurationError
from optics.materials import Abbe, CatalogGlass
from optics.thermal import (
    Environment,
    ThermalMaterial,
    ThermalWarning,
    air_index,
    index_at_temperature,
    material_at,
    scaled_geometry,
)

BK7 = CatalogGlass("N-BK7")
D_LINE = 0.5875618


def _n(material, wavelength, temperature, pressure=1.0):
    return float(index_at_temperature(material, np.asarray(wavelength), temperature, pressure))


def _rate(wavelength, low, high, absolute):
    """Mean dn/dT (1/K) over [low, high] °C, relative to the air or absolute."""

    def n(t):
        value = _n(BK7, wavelength, t)
        return value * float(air_index(np.asarray(wavelength), t, 1.0)) if absolute else value

    return (n(high) - n(low)) / (high - low)


# SCHOTT N-BK7 data sheet (SCHOTT optical glass catalogue data sheets, 2017-01-20, as
# linked from refractiveindex.info), table "Temperature coefficients of refractive index":
# Δn/ΔT in 1e-6/K at 1060.0 nm, e (546.07 nm) and g (435.83 nm), relative then absolute,
# given to one decimal.
DATASHEET = [
    ((-40, -20), (2.4, 2.9, 3.3), (0.3, 0.8, 1.2)),
    ((20, 40), (2.4, 3.0, 3.5), (1.1, 1.6, 2.1)),
    ((60, 80), (2.5, 3.1, 3.7), (1.5, 2.1, 2.7)),
]
LINES = (1.06, 0.546074, 0.435835)


@pytest.mark.parametrize(("span", "relative", "absolute"), DATASHEET)
def test_schott_formula_gives_the_n_bk7_data_sheet_dn_dt(span, relative, absolute):
    for wavelength, rel, ab in zip(LINES, relative, absolute):
        # the sheet rounds to 0.1e-6/K: the formula must round to the same value
        assert _rate(wavelength, *span, absolute=True) * 1e6 == pytest.approx(ab, abs=0.051)
        assert _rate(wavelength, *span, absolute=False) * 1e6 == pytest.approx(rel, abs=0.051)


def test_bk7_at_60_c_agrees_with_optiland_up_to_its_wavelength_convention():
    # Optiland 0.6.3, Material("N-BK7", "schott").n(0.5875618, temperature=T, pressure=P)
    # (its refractiveindex.info copy, Schott constants, reference 20 °C), printed with repr:
    optiland = {
        (60.0, 1.0): 1.516915970116675,
        (-20.0, 1.0): 1.5166888069870939,
        (60.0, 0.5): 1.5171006558674476,
    }
    lam = np.asarray(D_LINE)
    for (t, p), theirs in optiland.items():
        # Optiland takes the system wavelength as measured in the air at (T, P) and
        # evaluates the catalog at λ n_air(T, P) / n_air(20 °C, 1 atm); optics keeps the
        # wavelength (a source's) fixed.  Removing that shift of the catalog's argument,
        # the two agree to the 1e-9 of second-order terms:
        shifted = lam * air_index(lam, t, p) / air_index(lam, 20.0, 1.0)
        convention = float(BK7.index(lam)) - float(BK7.index(shifted))
        ours = _n(BK7, D_LINE, t, p)
        assert abs(convention) > 3e-7  # the conventions do differ, by more than the check
        assert ours == pytest.approx(theirs + convention, abs=3e-9)


def test_index_at_the_reference_is_the_catalog_index_bit_for_bit():
    lam = be.asarray([0.45, D_LINE, 0.65])
    assert material_at(BK7, 20.0, 1.0) is BK7
    np.testing.assert_array_equal(be.to_numpy(BK7.index(lam)), be.to_numpy(BK7.index(lam)))
    wrapped = material_at(BK7, 40.0, 1.0)
    assert isinstance(wrapped, ThermalMaterial) and wrapped.to_spec() == "N-BK7"
    # in vacuum the relative index is the absolute one: n_cat · n_air(20 °C, 1 atm)
    vacuum = _n(BK7, D_LINE, 20.0, 0.0)
    expected = float(BK7.index(np.asarray(D_LINE))) * float(air_index(np.asarray(D_LINE)))
    assert vacuum == pytest.approx(expected, abs=1e-15)


def test_a_glass_without_dn_dt_warns_and_keeps_its_absolute_index():
    glass = Abbe(1.6, 40.0)
    with pytest.warns(ThermalWarning, match=r"model glass nd=1\.6, vd=40 has no dn/dT"):
        hot = material_at(glass, 60.0, 1.0)
    lam = np.asarray(D_LINE)
    absolute = float(hot.index(lam)) * float(air_index(lam, 60.0, 1.0))
    assert absolute == pytest.approx(1.6 * float(air_index(lam, 20.0, 1.0)), abs=1e-15)


# P. E. Ciddor, Appl. Opt. 35, 1566 (1996): standard air (dry, 15 °C, 101325 Pa, 450 ppm
# CO2), n − 1 = 0.05792105/(238.0185 − σ²) + 0.00167917/(57.362 − σ²), σ in 1/µm
# (the formula as refractiveindex.info gives it).
def _ciddor_standard(wavelength):
    s2 = 1.0 / wavelength**2
    return 0.05792105 / (238.0185 - s2) + 0.00167917 / (57.362 - s2)


@pytest.mark.parametrize("wavelength", [0.4861327, 0.5875618, 0.6328, 0.6562725, 1.064])
def test_air_at_15_c_agrees_with_ciddor_standard_air(wavelength):
    ours = float(air_index(np.asarray(wavelength), 15.0, 1.0)) - 1.0
    # Edlén 1953 assumed 300 ppm CO2, Ciddor 450: about 1.5e-8 apart in the visible
    assert ours == pytest.approx(_ciddor_standard(wavelength), abs=2.5e-8)


def test_air_temperature_and_pressure_scaling_follows_edlen_1966():
    # B. Edlén, Metrologia 2, 71 (1966): (n−1)_tp = (n−1)_s · p [1 + p (0.817 − 0.0133 t)
    # 1e-6] / (720.775 (1 + 0.0036610 t)), p in Torr, t in °C.
    lam = np.asarray(0.6328)
    standard = float(air_index(lam, 15.0, 1.0)) - 1.0
    for t in (-20.0, 0.0, 20.0, 40.0, 60.0):
        for atm in (0.5, 0.8, 1.0, 1.1):
            p = 760.0 * atm
            edlen = standard * p * (1 + p * (0.817 - 0.0133 * t) * 1e-6)
            edlen /= 720.775 * (1 + 0.0036610 * t)
            ours = float(air_index(lam, t, atm)) - 1.0
            if atm == 1.0:
                assert ours == pytest.approx(edlen, abs=4e-8)
            else:  # linear in P, where Edlén keeps air's compressibility (the p² term)
                assert ours == pytest.approx(edlen, rel=5e-4)
    assert float(air_index(lam, 20.0, 0.0)) == 1.0


def test_environment_rejects_impossible_values():
    for bad in ({"temperature": -300.0}, {"pressure": -1.0}, {"mount_cte": math.nan}):
        with pytest.raises(ConfigurationError, match=next(iter(bad))):
            Environment(**bad)
    with pytest.raises(ConfigurationError, match="surface indices"):
        Environment(cte={"a": 1e-6})


@pytest.mark.parametrize("name", [*NAMES, "standard"])
def test_scaled_surface_is_the_same_shape_magnified(name):
    from optics.geometry import Standard

    geometry = Standard(40.0, -0.7) if name == "standard" else make(name)
    s = 1.0 + 80 * 23.6e-6  # an aluminium part warmed by 80 K
    scaled = scaled_geometry(geometry, s)
    x = be.asarray(np.linspace(-6.0, 6.0, 7))
    y = be.asarray(np.linspace(-4.0, 5.0, 7))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = s * be.to_numpy(geometry.sag(x, y))
        got = be.to_numpy(scaled.sag(x * s, y * s))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13)
    assert scaled is not geometry


def test_catalog_cte_comes_from_the_database_and_agf_ed_lines():
    from optics.io.agf import parse_agf
    from optics.thermal import expansion_coefficient

    # refractiveindex.info data/specs/schott/optical/N-BK7.yml: thermal_expansion −30/+70 °C
    assert expansion_coefficient(BK7) == 7.1e-6
    assert expansion_coefficient(Abbe(1.5, 60.0)) is None
    text = "\r\n".join(
        [
            "NM GLASS-A 2 517642 1.5168 64.17 0 1 0",
            "ED 7.1 8.3 2.51 -0.0009 0",
            "CD 1.03961212 0.00600069867 0.231792344 0.0200179144 1.01046945 103.560653",
            "NM GLASS-B 2 517642 1.5168 64.17 0 1 0",
            "ED x",  # informative: an unreadable ED never stops the catalog
            "CD 1.03961212 0.00600069867 0.231792344 0.0200179144 1.01046945 103.560653",
        ]
    )
    catalog = parse_agf(text, "test.agf")
    assert catalog.glasses["GLASS-A"].dispersion("a").expansion == pytest.approx(7.1e-6)
    assert catalog.glasses["GLASS-B"].dispersion("b").expansion is None
