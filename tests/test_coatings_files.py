"""Coatings in files: the lens file's [coatings] table, and .zmx COAT lines (with COATING.DAT)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _zemax_corpus import corpus_file

from optics import backend as be
from optics.coatings import Coating, IdealCoating, Layer, TabulatedIndex
from optics.errors import LensFileError
from optics.io import load, save, zemax
from optics.io.lensfile import loads, optic_from_dict, optic_to_dict
from optics.io.zemax import ZemaxWarning
from optics.io.zemax._coatings import parse_coating_file
from optics.materials import CatalogGlass

LENS = """
name = "coated singlet"
[aperture]
type = "epd"
value = 10.0
[wavelengths]
values = [0.5, 0.6]
primary = 1

[coatings.AR2]
reference_wavelength = 0.55
layers = [
    { material = "MgF2", thickness = 1, unit = "qw" },
    { material = { index = 2.05, k = 0.001 }, thickness = 120.0 },
]
[coatings.SPLIT]
R = 0.5
T = 0.5
[coatings.PRIMARY]
layers = [ { material = { index = 1.38 }, thickness = 1, unit = "qw" } ]

[[surfaces]]
thickness = inf
[[surfaces]]
radius = 50.0
thickness = 4.0
material = "N-BK7"
stop = true
coating = "AR2"
[[surfaces]]
thickness = 90.0
coating = "PRIMARY"
[[surfaces]]
coating = "SPLIT"
"""


def _optic(text=LENS, source="coated.toml"):
    return optic_from_dict(loads(text, "toml", source), source)


def test_a_lens_file_names_its_coatings_per_surface():
    optic = _optic()
    first, second, image = (optic.surfaces[i].coating for i in (1, 2, 3))
    assert optic.surfaces[0].coating is None
    assert isinstance(first, Coating) and first.name == "AR2"
    assert first.reference_wavelength == 0.55 and [la.unit for la in first.layers] == ["qw", "nm"]
    assert isinstance(image, IdealCoating) and (image.R, image.T) == (0.5, 0.5)
    # no reference_wavelength: the lens's primary wavelength, where the layer is a quarter wave
    assert second.reference_wavelength == 0.6
    assert second.layers[0].thickness_um(0.6) == pytest.approx(0.6 / (4 * 1.38), rel=1e-15)


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_coatings_round_trip_through_saved_files(tmp_path, suffix):
    optic = _optic()
    path = save(optic, tmp_path / f"lens{suffix}")
    again = load(path)
    assert optic_to_dict(again) == optic_to_dict(optic)
    cos_i = be.asarray(np.cos(np.radians([0.0, 40.0])))
    for i in (1, 2, 3):
        a = optic.surfaces[i].coating.power(1.0, 1.5168, cos_i, 0.55)
        b = again.surfaces[i].coating.power(1.0, 1.5168, cos_i, 0.55)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(be.to_numpy(x), be.to_numpy(y))


def test_an_ideal_coating_given_only_r_absorbs_nothing():
    text = LENS.replace("R = 0.5\nT = 0.5", "R = 0.04")
    ideal = _optic(text).surfaces[3].coating
    assert (ideal.R, ideal.T) == (0.04, 0.96)


def test_an_unnamed_coating_gets_a_name_when_written():
    optic = _optic()
    optic.surfaces[2].coating = Coating([Layer(1.38, 100.0)])
    data = optic_to_dict(optic)
    assert data["surfaces"][2]["coating"] == "coating1"
    assert data["coatings"]["coating1"] == {
        "layers": [{"material": {"index": 1.38}, "thickness": 100.0}]
    }


@pytest.mark.parametrize(
    "edit, words",
    [
        (('coating = "SPLIT"', 'coating = "SPLITT"'), "surface 3: coating 'SPLITT' is not in"),
        (
            ("thickness = 120.0", "thickness = -1.0"),
            r"\[coatings.AR2\]: layers\[1\]: key 'thickness'",
        ),
        (('unit = "qw" },\n    {', 'unit = "waves" },\n    {'), r"layers\[0\]: key 'unit'"),
        (("R = 0.5\nT = 0.5", "R = 0.7\nT = 0.5"), r"\[coatings.SPLIT\]: ideal coating R \+ T"),
        (("T = 0.5", "T = 0.5\nlayers = []"), r"\[coatings.SPLIT\]: unknown key"),
        (
            ('material = "MgF2"', "material = { nd = 1.38 }"),
            r"layers\[0\]: material = .*missing key",
        ),
        (("k = 0.001", "k = -0.001"), "key 'k'"),
    ],
)
def test_bad_coating_values_name_the_file_coating_and_key(edit, words):
    text = LENS.replace(*edit)
    assert text != LENS
    with pytest.raises(LensFileError, match=words) as info:
        _optic(text)
    assert str(info.value).startswith("coated.toml: ")


ZMX = """VERS 190513 80 123457 L123457
MODE SEQ
NAME coated
UNIT MM X W X CM MR CPMM
ENPD 12
COFN QF "MYCOATS.DAT" "SCATTER_PROFILE.DAT"
FTYP 0 0 1 1 0 0 0
YFLN 0
WAVM 1 0.55 1
PWAV 1
SURF 0
  DISZ INFINITY
SURF 1
  STOP
  CURV 0.02
  DISZ 5
  GLAS N-BK7 0 0 1.5 40 0 0 0 0 0 0
  COAT {front}
SURF 2
  CURV -0.01
  DISZ 90
  COAT {back}
SURF 3
  DISZ 0
"""

COATING_DAT = """! made for this test
MATE LOWN
0.4 1.39 0
0.7 1.37 0
MATE MET
0.55 0.9 -6.0
COAT TWOLAYER
LOWN 0.25
MET 0.02 1
IDEAL PASS80 0.8 0.1
"""


def _zmx(front, back, folder=None):
    text = ZMX.format(front=front, back=back)
    if folder is None:
        return zemax.reads(text.encode(), "coated.zmx")
    path = folder / "coated.zmx"
    path.write_text(text)
    return zemax.read(path)


def test_zmx_ideal_and_mgf2_coatings():
    data = _zmx("MGF2", "I.95")
    assert data["surfaces"][1]["coating"] == "MGF2" and data["surfaces"][2]["coating"] == "I.95"
    assert data["coatings"]["I.95"] == {"R": 0.0, "T": 0.95}
    optic = zemax.optic_from_zmx_data(data, "coated.zmx")
    mgf2 = optic.surfaces[1].coating
    n_film = float(CatalogGlass("MgF2").index(0.55))
    n_glass = float(CatalogGlass("N-BK7").index(0.55))
    reflectance = float(mgf2.reflectance(1.0, n_glass, 1.0, 0.55))  # quarter wave at PWAV
    assert reflectance == pytest.approx(
        ((n_glass - n_film**2) / (n_glass + n_film**2)) ** 2, rel=1e-12
    )
    assert float(optic.surfaces[2].coating.transmittance(n_glass, 1.0, 0.9, 0.55)) == pytest.approx(
        0.95
    )


def test_zmx_reads_the_coating_file_beside_it(tmp_path):
    (tmp_path / "mycoats.dat").write_text(COATING_DAT)
    data = _zmx("TWOLAYER", "PASS80", tmp_path)
    two = data["coatings"]["TWOLAYER"]["layers"]
    assert two[0] == {
        "material": {"name": "LOWN", "table": [[0.4, 1.39, 0.0], [0.7, 1.37, 0.0]]},
        "thickness": 1.0,
        "unit": "qw",
    }
    assert two[1]["thickness"] == pytest.approx(20.0)  # 0.02 µm, absolute
    assert two[1]["material"]["table"] == [[0.55, 0.9, 6.0]]  # Zemax's −k absorbs: κ = 6
    assert data["coatings"]["PASS80"] == {"T": 0.8, "R": 0.1}
    optic = zemax.optic_from_zmx_data(data, str(tmp_path / "coated.zmx"))
    film = optic.surfaces[1].coating.layers[0].material
    assert isinstance(film, TabulatedIndex)
    assert complex(be.to_numpy(film.index(0.55))) == pytest.approx(1.38)


def test_a_coating_file_line_that_is_not_a_number_is_named():
    with pytest.raises(LensFileError, match=r"X.DAT: line 3: expected"):
        parse_coating_file("MATE A\n0.5 1.4 0\n0.6 one 0\n", "X.DAT")


def test_an_undefined_zmx_coating_warns_and_leaves_the_surface_bare():
    with pytest.warns(ZemaxWarning, match="COAT THORA: the coating is not read"):
        data = _zmx("THORA", "I.5")
    assert "coating" not in data["surfaces"][1]
    assert data["coatings"] == {"I.5": {"R": 0.0, "T": 0.5}}


def test_corpus_vendor_coatings_warn_once_per_name():
    path = corpus_file("dcclab-AC254-125-A.zmx")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data = zemax.read(path)
    messages = [str(w.message) for w in caught if issubclass(w.category, ZemaxWarning)]
    assert sum("COAT THORA" in m for m in messages) == 1
    assert all("coating" not in s for s in data["surfaces"])
    assert not math.isnan(sum(s.get("thickness", 0.0) for s in data["surfaces"][1:]))


def test_a_layer_thickness_is_a_parameter_path():
    from optics.params import get_param, replaced

    optic = _optic()
    path = "surfaces[1].coating.layers[1].thickness"
    assert get_param(optic, path) == 120.0
    thinner = replaced(optic, path, 60.0)
    assert get_param(thinner, path) == 60.0 and get_param(optic, path) == 120.0
    before = float(optic.surfaces[1].coating.reflectance(1.0, 1.5185, 1.0, 0.55))
    after = float(thinner.surfaces[1].coating.reflectance(1.0, 1.5185, 1.0, 0.55))
    assert before != after
