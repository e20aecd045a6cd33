"""optics illumination, footprint, fan, spots and prescription: --json keys, text, plots."""

from __future__ import annotations

import json

import pytest

from optics.cli import main

KEYS = {
    ("illumination", "--points", "3"): {
        "fields",
        "field_units",
        "wavelengths",
        "relative_illumination",
        "vignetting",
    },
    ("footprint", "--surface", "4", "--rings", "2"): {
        "surface",
        "wavelength",
        "semi_diameter",
        "beam_radius",
        "fields",
    },
    ("fan", "--points", "3"): {
        "pupil",
        "fields",
        "wavelengths",
        "tangential",
        "sagittal",
        "opd_tangential",
        "opd_sagittal",
    },
    ("spots", "--rings", "2"): {"airy_radius", "field_type", "spots", "fields"},
    ("prescription",): {
        "name",
        "aperture",
        "fields",
        "wavelengths",
        "primary",
        "aiming",
        "surfaces",
    },
}


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("argv", sorted(KEYS))
def test_json_has_exactly_the_documented_keys(capsys, argv):
    command, *options = argv
    record = _json(capsys, command, "cooke_triplet", *options)
    assert set(record) == KEYS[argv]


def test_illumination_prints_fields_in_degrees(capsys):
    assert main(["illumination", "cooke_triplet", "--points", "3", "--wavelength", "0.55"]) == 0
    out = capsys.readouterr().out
    assert "field°" in out and "RI 0.55 µm" in out
    assert out.splitlines()[-1].split()[:2] == ["1", "20"]


def test_fan_field_and_wavelength_options_select(capsys):
    record = _json(capsys, "fan", "cooke_triplet", "--field", "2", "--wavelength", "0.55",
                   "--points", "3")  # fmt: skip
    assert record["fields"] == [[0.0, 1.0]] and record["wavelengths"] == [0.55]
    assert record["tangential"][0][0][1] == pytest.approx(0.0, abs=1e-12)  # its chief ray


def test_a_field_index_out_of_range_is_one_line_and_status_2(capsys):
    assert main(["fan", "cooke_triplet", "--field", "3"]) == 2
    err = capsys.readouterr().err
    assert "--field must be 0..2, not 3" in err and len(err.strip().splitlines()) == 1


def test_footprint_surface_out_of_range_is_status_2(capsys):
    assert main(["footprint", "cooke_triplet", "--surface", "9"]) == 2
    assert "footprint surface must be 1 .. 7" in capsys.readouterr().err


def test_prescription_text_lists_every_surface(capsys):
    assert main(["prescription", "cooke_triplet"]) == 0
    out = capsys.readouterr().out
    assert "4 (stop)" in out and "SK16" in out and "hikari" in out
    assert "fields (angle) 0°, 14°, 20°" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["illumination", "cooke_triplet", "--points", "3"],
        ["footprint", "cooke_triplet", "--rings", "2"],
        ["fan", "cooke_triplet", "--points", "5", "--opd-plot", "{dir}/opd.png"],
        ["spots", "cooke_triplet", "--rings", "2", "--common-scale"],
    ],
)
def test_every_new_command_writes_its_plot(tmp_path, capsys, argv):
    pytest.importorskip("matplotlib")
    argv = [a.format(dir=tmp_path) for a in argv]
    path = tmp_path / "out.png"
    assert main([*argv, "--plot", str(path)]) == 0
    assert path.stat().st_size > 1000
    for extra in tmp_path.glob("opd.png"):
        assert extra.stat().st_size > 1000


def test_mtf_and_wavefront_take_the_shared_field_option(capsys):
    record = _json(capsys, "mtf", "cooke_triplet", "--field", "1", "--frequencies", "10",
                   "--wavelength", "0.55", "--samples", "32")  # fmt: skip
    assert [f["field"] for f in record["fields"]] == [[0.0, 0.7]]
    records = _json(capsys, "wavefront", "cooke_triplet", "--field", "2", "--rings", "3")
    assert [r["field"] for r in records] == [[0.0, 1.0]]
