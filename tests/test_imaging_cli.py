"""``optics simulate`` and the image reader/writer (optics.io.image)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from optics.cli import main
from optics.io.image import ImageFileError, linear_to_srgb, read_image, srgb_to_linear, write_image


@pytest.fixture
def picture(tmp_path):
    rng = np.random.default_rng(1)
    path = tmp_path / "scene.png"
    write_image(path, rng.random((24, 32, 3)))
    return path


def test_write_then_read_returns_the_8_bit_values(tmp_path):
    values = np.random.default_rng(2).random((5, 7, 3))
    path = tmp_path / "x.png"
    write_image(path, values, linear=True)
    np.testing.assert_allclose(read_image(path, linear=True), values, atol=0.5 / 255 + 1e-12)
    grey = tmp_path / "g.png"
    write_image(grey, values[:, :, :1])
    assert read_image(grey).shape == (5, 7, 1)


def test_the_srgb_curves_invert_each_other():
    v = np.linspace(0.0, 1.0, 101)
    np.testing.assert_allclose(linear_to_srgb(srgb_to_linear(v)), v, atol=1e-12)
    assert srgb_to_linear(0.5) == pytest.approx(0.21404, abs=1e-5)  # the IEC 61966-2-1 curve


def test_bad_files_name_themselves(tmp_path):
    text = tmp_path / "notes.png"
    text.write_text("not a picture")
    with pytest.raises(ImageFileError, match="notes.png"):
        read_image(text)
    with pytest.raises(ImageFileError, match=r"\.jpg"):
        write_image(tmp_path / "out.jpg", np.zeros((2, 2, 3)))


def test_simulate_writes_the_image_and_reports_the_sampling(picture, tmp_path, capsys):
    out = tmp_path / "out.png"
    status = main(
        [
            "simulate",
            "cooke_triplet",
            str(picture),
            "-o",
            str(out),
            "--sensor",
            "40x30@0.01",
            "--psf-grid",
            "2",
            "--wavelengths-per-channel",
            "1",
            "--seed",
            "3",
            "--json",
        ]
    )
    assert status == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sensor"]["pixels"] == [40, 30] and report["sensor"]["pitch_mm"] == 0.01
    assert report["psf_grid"]["size"] == 2 and len(report["psf_grid"]["fields"]) == 4
    assert report["wavelengths"]["um"] == pytest.approx([0.610, 0.540, 0.465])
    assert report["sensor"]["noise"] is True and report["sensor"]["seed"] == 3
    assert set(report["timings_s"]) == {"rays", "psfs", "render", "total"}
    assert read_image(out).shape == (30, 40, 3)


def test_a_bayer_mosaic_is_one_channel(picture, tmp_path):
    out = tmp_path / "raw.png"
    args = ["simulate", "cooke_triplet", str(picture), "-o", str(out), "--pitch", "0.01"]
    assert (
        main([*args, "--psf-grid", "1", "--wavelengths-per-channel", "1", "--bayer", "RGGB"]) == 0
    )
    assert read_image(out).shape == (24, 32, 1)


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--sensor", "40x30"], "--sensor must look like"),
        (["--sensor", "4x3@0.01", "--pitch", "0.1"], "not both"),
        (["--psf-grid", "0"], "--psf-grid must be at least 1"),
        (["--object-height", "2"], "object_height needs an object at a finite distance"),
        (["--field-of-view", "200"], "field_of_view must be in"),
    ],
)
def test_bad_options_are_one_line_errors(picture, tmp_path, capsys, extra, message):
    out = tmp_path / "out.png"
    assert main(["simulate", "cooke_triplet", str(picture), "-o", str(out), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out.exists()


def test_the_input_is_never_overwritten(picture, capsys):
    before = picture.read_bytes()
    assert main(["simulate", "cooke_triplet", str(picture), "-o", str(picture)]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert picture.read_bytes() == before
