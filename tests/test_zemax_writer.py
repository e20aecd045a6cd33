"""Writing .zmx: UTF-16 LE with a BOM, and round trips that keep every number."""

from __future__ import annotations

import codecs
import json
import warnings
from pathlib import Path

import pytest
from _zemax_corpus import corpus_dir, needs_corpus

import optics
from optics.errors import LensFileError
from optics.io import optic_to_dict
from optics.io.zemax import ZemaxWarning, dumps, encode, loads
from optics.io.zemax._writer import curvature_for

REFERENCE = json.loads(
    (Path(__file__).parent / "data" / "zemax" / "corpus_reference.json").read_text()
)["files"]
CORPUS = corpus_dir()
LOADABLE = sorted(n for n, e in REFERENCE.items() if "error" not in e)


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZemaxWarning)
        return function(*args, **kwargs)


@needs_corpus
@pytest.mark.parametrize("name", LOADABLE)
def test_zmx_to_ours_to_zmx_to_ours_keeps_every_number(name):
    fallback = REFERENCE[name]["glass_fallback"]
    first = _quiet(optics.load, CORPUS / name, glass_fallback=fallback)
    raw = encode(dumps(first))
    second = _quiet(loads, raw, "written.zmx")
    assert optic_to_dict(second) == optic_to_dict(first)
    assert encode(dumps(second)) == raw


def test_written_files_are_utf16_le_with_a_bom_and_crlf():
    raw = encode(dumps(optics.load("cooke_triplet")))
    assert raw.startswith(codecs.BOM_UTF16_LE)
    text = raw[2:].decode("utf-16-le")
    assert text.startswith("VERS ") and "\r\nMODE SEQ\r\n" in text
    assert "\r\nSURF 0\r\n" in text and "  DISZ INFINITY\r\n" in text


@pytest.mark.parametrize("sample", ["cooke_triplet", "double_gauss", "singlet", "achromat"])
def test_samples_round_trip_through_zmx(sample):
    optic = optics.load(sample)
    before = optic_to_dict(optic)
    if "optimize" in before:  # the singlet's [optimize] section: no .zmx form
        with pytest.warns(ZemaxWarning, match=r"the \[optimize\] section has no .zmx form"):
            text = dumps(optic)
        del before["optimize"]
    else:
        text = dumps(optic)
    after = optic_to_dict(loads(encode(text), "sample.zmx"))
    # A .zmx file holds curvatures: a radius no float curvature gives exactly (60.8 is
    # one) comes back within an ulp; everything else is exact.
    for a, b in zip(before["surfaces"], after["surfaces"]):
        if "radius" in a:
            assert b.pop("radius") == pytest.approx(a.pop("radius"), rel=2**-52)
    assert after == before


def test_a_tilted_surface_becomes_coordinate_breaks_that_trace_the_same(tmp_path):
    optic = optics.load("singlet")
    optic.optimize = None  # no .zmx form
    optic.surfaces[2].decenter = (0.3, -0.2)
    optic.surfaces[2].tilt = (2.0, -1.0, 5.0)
    path = optics.save(optic, tmp_path / "tilted.zmx")
    again = optics.load(path)
    assert [s.geometry.type_name for s in again.surfaces].count("coordinate_break") == 4
    for hy, py in ((0.0, 1.0), (1.0, -1.0), (0.5, 0.3)):
        a = optics.trace_rays(optic, (0.0, hy), (0.2, py))
        b = optics.trace_rays(again, (0.0, hy), (0.2, py))
        for key in "xyzLMN":
            assert float(getattr(b, key)) == pytest.approx(float(getattr(a, key)), abs=1e-12)


def test_a_surface_zmx_cannot_hold_is_an_error_naming_it():
    optic = optics.load("singlet")
    data = optic_to_dict(optic)
    data.pop("optimize", None)
    data["surfaces"][1].update(
        type="q2d", coefficients=[{"type": "a", "m": 0, "n": 0, "value": 1e-3}], norm_radius=9.0
    )
    q2d = optics.io.optic_from_dict(data)
    with pytest.raises(LensFileError, match=r"surface 1: surface type 'q2d' has no .zmx"):
        dumps(q2d)


@pytest.mark.parametrize("curvature", [0.02, -1 / 123.456, 0.1 + 0.2, 3.0 / 7.0, 1e-5, 1 / 9876.5])
def test_a_radius_read_from_a_curvature_is_written_back_exactly(curvature):
    radius = 1.0 / curvature
    assert 1.0 / curvature_for(radius) == radius


@pytest.mark.parametrize(
    "surface",
    [
        {"type": "xy_polynomial", "radius": 80.0, "coefficients": [[0.0, 1e-3], [2e-4, 0.0, 3e-5]]},
        {"type": "zernike", "coefficients": [0.0, 1e-3, 2e-4], "norm_radius": 6.0},
        {"type": "zernike", "coefficients": [0.0, 1e-3], "norm_radius": 6.0, "ordering": "fringe"},
        {"type": "toroidal", "radius": 40.0, "radius_rotation": -90.0, "coefficients": [0, 1e-5]},
        {"type": "odd_asphere", "radius": 40.0, "conic": -0.5, "coefficients": [0.0, 1e-4, 1e-6]},
        {"type": "biconic", "radius": 40.0, "radius_x": 55.0, "conic_x": -1.2},
        {"type": "paraxial", "focal_length": 42.0},
        {"type": "qbfs", "radius": 30.0, "conic": -0.6, "terms": [0.1, -0.02], "norm_radius": 9.0},
    ],
)
def test_every_writable_surface_type_round_trips(surface):
    data = optic_to_dict(optics.load("singlet"))
    data.pop("optimize", None)  # no .zmx form
    data["surfaces"][1] = dict(surface, thickness=4.0, material={"nd": 1.5, "vd": 60.0})
    optic = optics.io.optic_from_dict(data)
    again = loads(encode(dumps(optic)), "types.zmx")
    assert optic_to_dict(again) == optic_to_dict(optic)
