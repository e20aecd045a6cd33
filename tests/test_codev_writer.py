"""Writing CODE V .seq files: round trips that trace alike, and what cannot be written."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from _zemax_corpus import corpus_dir, needs_corpus

import optics
from optics import backend as be
from optics.analysis.spot import in_image_frame
from optics.errors import LensFileError
from optics.io import codev, optic_to_dict
from optics.io.codev import CodeVWarning
from optics.io.zemax import ZemaxWarning
from optics.system import Aperture
from optics.trace import trace_bundle

DATA = Path(__file__).parent / "data" / "codev"
SHIPPED = sorted(p.name for p in DATA.glob("*.seq") if p.name != "CODV_65988.seq")
CORPUS = corpus_dir()
# .zmx files of the corpus that a .seq file can hold: a cemented doublet, a wide-angle
# camera lens with aspheres, fold mirrors on coordinate breaks, a tilted and decentered lens
# with real ray aiming, an off-axis three-mirror system.
CORPUS_CHAIN = [
    "dcclab-AC254-100-A.zmx",
    "deeplens-ef35mm_f2.0.zmx",
    "optiland-simple_fold_mirror_up.zmx",
    "skzemax-e07_tilt_decenter.zmx",
    "rayoptics-HoO-V2C18Ex66.zmx",
]
PUPIL = (be.asarray([0.0, 0.0, 0.5, 0.3, -0.2]), be.asarray([0.0, 0.7, 0.0, -0.6, 0.4]))


def _quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CodeVWarning)
        warnings.simplefilter("ignore", ZemaxWarning)
        warnings.simplefilter("ignore", UserWarning)  # paraxial-aiming advice
        return function(*args, **kwargs)


def _image_rays(optic):
    """x, y at the image (its own frame) and valid, every field and wavelength."""
    bundle = _quiet(
        trace_bundle,
        optic,
        fields=optic.fields.normalized(),
        wavelengths=list(optic.wavelengths.values),
        pupil=PUPIL,
    )
    rays = in_image_frame(optic, bundle.rays)
    return np.array([np.asarray(rays.x), np.asarray(rays.y)]), np.asarray(rays.valid)


def _assert_same_trace(first, second):
    xy_first, valid_first = _image_rays(first)
    xy_second, valid_second = _image_rays(second)
    assert (valid_first == valid_second).all()
    # rays a clear aperture stops still have positions (threemir.seq's off-axis rectangles
    # stop every paraxially aimed ray: docs/codev.md)
    traced = np.isfinite(xy_first).all(axis=0)
    assert traced.any()
    assert xy_second[:, traced] == pytest.approx(xy_first[:, traced], abs=1e-12)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_files_round_trip_and_trace_alike(name):
    first = _quiet(optics.load, DATA / name)
    text = _quiet(codev.dumps, first, "written.seq")
    second = _quiet(codev.loads, text, "written.seq")
    _assert_same_trace(first, second)
    assert _quiet(codev.dumps, second, "written.seq") == text  # a fixed point


@needs_corpus
@pytest.mark.parametrize("name", CORPUS_CHAIN)
def test_zmx_to_seq_to_optic_traces_like_the_zmx(name):
    first = _quiet(optics.load, CORPUS / name)
    second = _quiet(codev.loads, _quiet(codev.dumps, first, "written.seq"), "written.seq")
    second.aiming = first.aiming  # a .seq file holds no aiming mode (docs/codev.md)
    _assert_same_trace(first, second)


@pytest.mark.parametrize("sample", ["cooke_triplet", "double_gauss", "achromat"])
def test_samples_keep_every_number(sample):
    optic = optics.load(sample)
    again = codev.loads(codev.dumps(optic, "s.seq"), "s.seq")
    assert optic_to_dict(again) == optic_to_dict(optic)


def test_save_writes_a_seq_file_that_load_reads(tmp_path):
    target = tmp_path / "cooke.seq"
    assert optics.save(optics.load("cooke_triplet"), target) == target
    text = target.read_text()
    assert text.startswith("TIT 'Cooke triplet'\nRDM Y\nDIM M\n") and text.endswith("GO\n")
    assert optic_to_dict(optics.load(target)) == optic_to_dict(optics.load("cooke_triplet"))


def test_a_sections_left_out_and_a_stop_size_aperture_are_warned():
    with pytest.warns(CodeVWarning, match=r"the \[optimize\] section has no .seq form"):
        codev.dumps(optics.load("singlet"), "s.seq")
    optic = optics.load("cooke_triplet")
    optic.aperture = Aperture("stop_diameter", 8.0)
    expected = abs(float(optics.paraxial(optic).epd))
    with pytest.warns(CodeVWarning, match=r"stop_diameter aperture .* EPD"):
        text = codev.dumps(optic, "s.seq")
    assert f"EPD {expected!r}\n" in text


def test_constant_indices_go_to_a_private_catalog_and_exotic_names_in_quotes():
    optic = optics.load("singlet")
    optic.optimize = None
    data = optic_to_dict(optic)
    data["surfaces"][1]["material"] = {"index": 1.61}
    data["surfaces"][2]["material"] = "fused_silica/Malitson"
    data["surfaces"][2]["thickness"] = 2.0
    data["surfaces"].insert(3, {"thickness": 90.0})
    optic = optics.io.optic_from_dict(data)
    text = codev.dumps(optic, "s.seq")
    assert "PRV\nPWL " in text and "'N1_61' 1.61 1.61 1.61\nEND\n" in text
    assert "'fused_silica/Malitson_GLASS'" in text
    assert optic_to_dict(codev.loads(text, "s.seq")) == optic_to_dict(optic)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"type": "paraxial", "focal_length": 50.0}, r"surface 1: surface type 'paraxial'"),
        ({"type": "even_asphere", "radius": 40.0, "coefficients": [1e-3]}, r"an r² aspheric"),
        ({"radius": 40.0, "material": {"nd": 2.1, "vd": 30.0}}, r"has no CODE V glass code"),
    ],
)
def test_what_codev_cannot_hold_is_an_error_naming_the_surface(change, message):
    data = optic_to_dict(optics.load("cooke_triplet"))
    data["surfaces"][1] = {**change, "thickness": 3.0}
    with pytest.raises(LensFileError, match=message):
        codev.dumps(optics.io.optic_from_dict(data), "s.seq")


def test_optics_convert_writes_seq_and_reads_it_back(tmp_path):
    target = tmp_path / "cooke.seq"
    back = tmp_path / "cooke.toml"
    run = [sys.executable, "-m", "optics", "convert"]
    done = subprocess.run([*run, "cooke_triplet", str(target)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    done = subprocess.run([*run, str(target), str(back)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert optic_to_dict(optics.load(back)) == optic_to_dict(optics.load("cooke_triplet"))
    bad = tmp_path / "bad.seq"
    bad.write_text("WL 550\nEPD 1\nSO 0 1e10\nS 0 1\n  XYZ 2\nSI 0 0\n")
    done = subprocess.run([*run, str(bad), str(back), "--force"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().endswith("bad.seq: line 5: XYZ: unknown or unsupported command")
