"""Field and wavelength weights (.zmx FWGN / WAVM, lens files, the rms_spot merit), FLOA
without a stop DIAM, and the OpticStudio glass names mapped to database entries."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import reference_cooke

import optics
from optics import backend as be
from optics import paraxial
from optics.analysis import spot_diagram
from optics.errors import ConfigurationError, LensFileError
from optics.io import optic_from_dict, optic_to_dict
from optics.io.zemax import ZemaxWarning, dumps, encode, loads
from optics.optimize import MeritContext, Operand

LENS = """MODE SEQ
UNIT MM
{aperture}
GCAT {gcat}
FTYP 0 0 3 3 0 0 0
YFLN 0 3 5
FWGN {field_weights}
WAVM 1 0.4861327 {w1}
WAVM 2 0.5875618 1
WAVM 3 0.6562725 {w3}
PWAV 2
SURF 0
  DISZ INFINITY
SURF 1
  CURV 0.02
  DISZ 4
  GLAS {glass} 0 0 1.52 64 0 0 0 0 0 0
  DIAM 7 1 0 0 1 ""
SURF 2
  {stop}
  CURV -0.005
  DISZ 95
  {stop_diam}
SURF 3
  DISZ 0
"""


def _zmx(
    aperture="ENPD 10",
    field_weights="1 1 1",
    w1="1",
    w3="1",
    glass="N-BK7",
    gcat="SCHOTT",
    stop="STOP",
    stop_diam='DIAM 6.5 1 0 0 1 ""',
):
    text = LENS.format(
        aperture=aperture,
        field_weights=field_weights,
        w1=w1,
        w3=w3,
        glass=glass,
        gcat=gcat,
        stop=stop,
        stop_diam=stop_diam,
    )
    return text.encode("utf-8")


def _quiet(raw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZemaxWarning)
        return loads(raw, "lens.zmx")


# --- weights -------------------------------------------------------------------------------


def test_zmx_weights_are_read_and_unit_weights_stay_the_default():
    optic = _quiet(_zmx(field_weights="1 2 0.5", w1="0.25", w3="3"))
    assert optic.fields.weights == [1.0, 2.0, 0.5]
    assert optic.wavelengths.weights == [0.25, 1.0, 3.0]
    plain = _quiet(_zmx())
    assert plain.fields.weights is None and plain.wavelengths.weights is None
    assert plain.fields.weight_values() == [1.0, 1.0, 1.0]


def test_weights_round_trip_through_zmx_and_toml_bit_for_bit(tmp_path):
    optic = _quiet(_zmx(field_weights="1 0.3 0.7", w1="0.1", w3="0.9"))
    text = dumps(optic)
    assert "\r\nFWGN 1.0 0.3 0.7\r\n" in text and "\r\nWAVM 1 0.4861327 0.1\r\n" in text
    again = _quiet(encode(text))
    assert optic_to_dict(again) == optic_to_dict(optic)
    path = tmp_path / "lens.toml"
    optics.save(optic, path)
    assert optic_to_dict(optics.load(path)) == optic_to_dict(optic)


@pytest.mark.parametrize(
    ("section", "weights", "message"),
    [
        ("fields", [1.0], r"fields: key 'weights' must be a list of 2 non-negative"),
        ("fields", [1.0, -1.0], r"fields: key 'weights' must be"),
        ("wavelengths", [0.0], r"wavelengths: key 'weights' must be .* not all 0"),
        ("wavelengths", ["1"], r"wavelengths: key 'weights' must be"),
    ],
)
def test_bad_lens_file_weights_name_the_key(section, weights, message):
    data = {
        "aperture": {"type": "epd", "value": 10.0},
        "fields": {"type": "angle", "values": [0.0, 5.0]},
        "wavelengths": {"values": [0.55]},
        "surfaces": [{"thickness": math.inf}, {"radius": 50.0, "thickness": 90.0}, {}],
    }
    data[section]["weights"] = weights
    with pytest.raises(LensFileError, match=message):
        optic_from_dict(data, "lens.toml")


def test_an_optic_checks_its_weights():
    optic = optics.load("cooke_triplet")
    optic.wavelengths.weights = [1.0]
    with pytest.raises(ConfigurationError, match=r"\[wavelengths\] key 'weights' has 1 entries"):
        optic.validate()


def test_rms_spot_weights_default_to_the_optic_weights():
    optic = reference_cooke()
    optic.fields.weights = [0.0, 0.0, 2.0]
    edge = float(be.to_numpy(spot_diagram(optic, fields=[(0.0, 1.0)])[0].rms_radius_centroid))
    value = float(be.to_numpy(Operand("rms_spot").value(MeritContext(optic))))
    assert value == pytest.approx(edge, rel=1e-12)
    optic.fields.weights = None
    assert float(be.to_numpy(Operand("rms_spot").value(MeritContext(optic)))) != pytest.approx(
        edge, rel=1e-3
    )


# --- FLOA without the stop's DIAM ------------------------------------------------------------


def test_floa_without_a_stop_diam_sizes_the_stop_by_the_other_surfaces_diam():
    raw = _zmx(aperture="FLOA", stop_diam="")
    with pytest.warns(ZemaxWarning, match=r"surface 2 \(the stop\): FLOA .* no semi-diameter"):
        optic = loads(raw, "lens.zmx")
    assert optic.aperture.type == "stop_diameter"
    # The on-axis marginal ray just reaches surface 1's DIAM (7 mm), the only limit.
    path = optics.trace_surfaces(optic, (0.0, 0.0), (0.0, 1.0))
    assert float(path[1].y) == pytest.approx(7.0, rel=1e-12)
    optic.aperture.value *= 1.01  # a larger stop sends the ray past that DIAM
    assert float(optics.trace_surfaces(optic, (0.0, 0.0), (0.0, 1.0))[1].y) > 7.0
    optic.aperture.value /= 1.01
    # Written back as FLOA with the stop's DIAM: the same optic, bit for bit.
    again = _quiet(encode(dumps(optic)))
    assert optic_to_dict(again) == optic_to_dict(optic)


def test_floa_with_no_diam_anywhere_is_still_an_error():
    raw = _zmx(aperture="FLOA", stop_diam="").replace(b'  DIAM 7 1 0 0 1 ""\n', b"")
    with pytest.raises(LensFileError, match=r"surface 2 \(the stop\): FLOA .* no other surface"):
        _quiet(raw)


# --- OpticStudio glasses the database lacks ---------------------------------------------------


def test_misc_f_silica_is_malitson_fused_silica_and_is_written_back_as_f_silica():
    with pytest.warns(ZemaxWarning, match=r"'F_SILICA' \(MISC catalog\) .* fused_silica/Malitson"):
        optic = loads(_zmx(glass="F_SILICA", gcat="MISC"), "lens.zmx")
    material = optic.surfaces[1].material
    assert (material.name, material.catalog) == ("fused_silica/Malitson", "glass")
    # Malitson (1965): n² − 1 = Σ Bᵢ λ² / (λ² − Cᵢ²), at the d line.
    l2 = 0.5875618**2
    terms = ((0.6961663, 0.0684043), (0.4079426, 0.1162414), (0.8974794, 9.896161))
    n = math.sqrt(1 + sum(b * l2 / (l2 - c * c) for b, c in terms))
    assert float(material.index(np.asarray(0.5875618))) == pytest.approx(n, rel=1e-14)
    text = dumps(optic)
    assert "\r\nGCAT MISC\r\n" in text and "  GLAS F_SILICA 0 0" in text
    assert optic_to_dict(_quiet(encode(text))) == optic_to_dict(optic)


def test_substitutions_need_the_catalog_on_the_gcat_line():
    with pytest.raises(LensFileError, match=r"unknown glass 'F_SILICA'"):
        _quiet(_zmx(glass="F_SILICA", gcat="SCHOTT"))


def test_old_schott_bk7_is_n_bk7():
    optic = _quiet(_zmx(glass="BK7", gcat="SCHOTT"))
    assert optic.surfaces[1].material.name == "N-BK7"
    assert paraxial(optic).efl > 0
