"""The ``[polarization]`` lens-file switch and relative illumination with transmission."""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis import relative_illumination
from optics.coatings import Coating, Layer, fresnel_power
from optics.errors import ConfigurationError, LensFileError
from optics.io import optic_from_dict, optic_to_dict
from optics.system import PolarizationSetting

N_GLASS, N_FILM, WAVELENGTH, HALF_FIELD = 1.5, 1.38, 0.55, 30.0
FIELDS = [0.5, 1.0]
QUARTER_NM = WAVELENGTH * 1e3 / (4 * N_FILM)


def _plate_data(polarization=None):
    """A flat plate (n 1.5) before an ideal lens: at field θ every ray meets it at θ."""
    data = {
        "aperture": {"type": "epd", "value": 1.0},
        "fields": {"type": "angle", "values": [0.0, HALF_FIELD]},
        "wavelengths": {"values": [WAVELENGTH]},
        "surfaces": [
            {"thickness": float("inf")},
            {"thickness": 2.0, "material": {"index": N_GLASS}},
            {"thickness": 5.0},
            {"type": "paraxial", "focal_length": 50.0, "thickness": 50.0, "stop": True},
            {},
        ],
    }
    if polarization is not None:
        data["polarization"] = polarization
    return data


def _fresnel_factor(field, state, coated):
    """Ts·Ts', Tp·Tp' or their mean through the plate's two faces at field h (reference)."""
    theta = math.radians(HALF_FIELD * field)
    cos_i = math.cos(theta)
    cos_t = math.sqrt(1.0 - (math.sin(theta) / N_GLASS) ** 2)
    if coated:
        coating = Coating([Layer({"index": N_FILM}, QUARTER_NM)])
        ts1 = float(coating.transmittance(1.0, N_GLASS, cos_i, WAVELENGTH, "s"))
        tp1 = float(coating.transmittance(1.0, N_GLASS, cos_i, WAVELENGTH, "p"))
    else:
        _, _, ts1, tp1 = (float(v) for v in fresnel_power(1.0, N_GLASS, cos_i))
    _, _, ts2, tp2 = (float(v) for v in fresnel_power(N_GLASS, 1.0, cos_t))
    s, p = ts1 * ts2, tp1 * tp2
    return {"x": s, "y": p, "unpolarized": 0.5 * (s + p)}[state]


def _ri(optic, **keys):
    result = relative_illumination(optic, fields=FIELDS, rings=4, angles=24, samples=8, **keys)
    return be.to_numpy(result.illumination)[0]


def test_transmission_scales_illumination_by_the_fresnel_factor(backend):
    optic = optic_from_dict(_plate_data())
    geometric = _ri(optic)
    weighted = _ri(optic, transmission=True)
    expected = [
        _fresnel_factor(h, "unpolarized", False) / _fresnel_factor(0.0, "unpolarized", False)
        for h in FIELDS
    ]
    eps = float(be.machine_eps(be.asarray(1.0)))
    np.testing.assert_allclose(weighted / geometric, expected, rtol=256 * eps)
    assert np.all(weighted < geometric)  # oblique rays lose more


def test_a_coated_and_a_bare_plate_differ_by_their_fresnel_factors():
    bare = optic_from_dict(_plate_data({"enabled": True}))
    coated = optic_from_dict(_plate_data({"enabled": True}))
    coated.surfaces[1].coating = Coating([Layer({"index": N_FILM}, QUARTER_NM)])
    ratio = _ri(coated) / _ri(bare)
    expected = [
        (_fresnel_factor(h, "unpolarized", True) / _fresnel_factor(0.0, "unpolarized", True))
        / (_fresnel_factor(h, "unpolarized", False) / _fresnel_factor(0.0, "unpolarized", False))
        for h in FIELDS
    ]
    np.testing.assert_allclose(ratio, expected, rtol=1e-13)
    assert not np.allclose(ratio, 1.0, atol=1e-4)


@pytest.mark.parametrize("state", ["x", "y"])
def test_the_lens_file_switch_is_the_default_of_the_keyword(state):
    optic = optic_from_dict(_plate_data({"enabled": True, "input": state}))
    assert optic.polarization == PolarizationSetting(True, state)
    geometric = _ri(optic, transmission=False)
    expected = [
        _fresnel_factor(h, state, False) / _fresnel_factor(0.0, state, False) for h in FIELDS
    ]
    np.testing.assert_allclose(_ri(optic) / geometric, expected, rtol=1e-13)
    # Switched off in the file: geometry alone unless asked.
    off = optic_from_dict(_plate_data({"enabled": False, "input": state}))
    np.testing.assert_array_equal(_ri(off), geometric)
    np.testing.assert_allclose(_ri(off, transmission=True), _ri(optic), rtol=1e-15)


def test_the_table_round_trips_through_toml_and_json(tmp_path):
    optic = optic_from_dict(_plate_data({"enabled": True, "input": "y"}))
    assert optic_to_dict(optic)["polarization"] == {"enabled": True, "input": "y"}
    for suffix in ("toml", "json"):
        path = tmp_path / f"plate.{suffix}"
        optics.save(optic, path)
        assert optics.load(path).polarization == PolarizationSetting(True, "y")
    assert "polarization" not in optic_to_dict(optic_from_dict(_plate_data()))
    unpolarized = optic_from_dict(_plate_data({"enabled": True}))
    assert optic_to_dict(unpolarized)["polarization"] == {"enabled": True}


def test_the_setting_survives_an_environment():
    data = _plate_data({"enabled": True, "input": "x"})
    data["environment"] = {"temperature": 40.0}
    optic = optic_from_dict(data)
    assert optic.polarization == PolarizationSetting(True, "x")
    assert optic_to_dict(optic)["polarization"] == {"enabled": True, "input": "x"}


@pytest.mark.parametrize(
    "table, message",
    [
        ({"enable": True}, r"\[polarization\]: unknown key 'enable'"),
        ({"enabled": "yes"}, r"\[polarization\]: key 'enabled' must be true or false"),
        ({"enabled": True, "input": "z"}, r"\[polarization\]: key 'input' must be one of"),
        ("on", r"\[polarization\] must be a table"),
    ],
)
def test_bad_tables_name_the_key(table, message):
    with pytest.raises(LensFileError, match=message):
        optic_from_dict(_plate_data(table), "plate.toml")


def test_bad_keyword_and_setting_are_refused():
    optic = optic_from_dict(_plate_data())
    with pytest.raises(ConfigurationError, match="transmission must be True, False or None"):
        relative_illumination(optic, fields=FIELDS, transmission="x")
    with pytest.raises(ConfigurationError, match="'input' must be one of"):
        PolarizationSetting(True, "circular")
