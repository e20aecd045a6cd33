"""The analysis commands: the documented --json keys, the text tables, plots, errors."""

from __future__ import annotations

import json

import pytest

import optics
from optics.analysis._seidel import seidel
from optics.cli import main

KEYS = {
    "seidel": {"wavelength", "surfaces", "sums"},
    "field-curvature": {"fields", "wavelengths", "tangential", "sagittal"},
    "distortion": {"fields", "wavelengths", "percent"},
    "chromatic-focal-shift": {"wavelengths", "shift"},
    "lateral-color": {"fields", "difference"},
}


def _json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("command", sorted(KEYS))
def test_json_has_exactly_the_documented_keys(capsys, command):
    record = _json(capsys, command, "cooke_triplet")
    assert set(record) == KEYS[command]


def test_seidel_json_rows_and_sums(capsys):
    record = _json(capsys, "seidel", "cooke_triplet")
    assert record["wavelength"] == 0.55
    assert [r["surface"] for r in record["surfaces"]] == list(range(1, 8))
    assert set(record["surfaces"][0]) == {"surface", "S1", "S2", "S3", "S4", "S5", "CL", "CT"}
    expected = seidel(optics.load("cooke_triplet")).sums
    assert record["sums"]["S4"] == pytest.approx(float(expected["S4"]), rel=1e-12)


def test_field_and_wavelength_shapes(capsys):
    record = _json(capsys, "field-curvature", "cooke_triplet", "--points", "4")
    assert record["fields"] == pytest.approx([0, 1 / 3, 2 / 3, 1])
    assert record["wavelengths"] == [0.48, 0.55, 0.65]
    assert [len(row) for row in record["tangential"]] == [4, 4, 4]
    record = _json(capsys, "distortion", "cooke_triplet", "--points", "3", "--reference", "f-theta")
    assert record["percent"][1][2] == pytest.approx(4.334487178, rel=1e-3)  # Optiland 0.6.3
    record = _json(
        capsys,
        "chromatic-focal-shift",
        "cooke_triplet",
        "--from",
        "0.5",
        "--to",
        "0.6",
        "--points",
        "3",
    )
    assert record["wavelengths"] == pytest.approx([0.5, 0.55, 0.6])
    assert record["shift"][1] == pytest.approx(0.0, abs=1e-12)
    record = _json(capsys, "lateral-color", "achromat", "--points", "5")
    assert record["difference"][-1] == pytest.approx(-0.0007223975315, abs=2e-7)  # Optiland


def test_text_tables(capsys):
    assert main(["seidel", "singlet"]) == 0
    out = capsys.readouterr().out
    assert "sum" in out and "W040" in out and "S5" in out
    assert main(["distortion", "singlet", "--points", "3"]) == 0
    out = capsys.readouterr().out
    assert "pincushion" in out and "0.5875" in out


def test_plots_are_written(tmp_path, capsys):
    for command, flag in [
        ("seidel", "--plot"),
        ("field-curvature", "--plot"),
        ("distortion", "--plot"),
        ("distortion", "--grid"),
        ("chromatic-focal-shift", "--plot"),
        ("lateral-color", "--plot"),
    ]:
        path = tmp_path / f"{command}{flag}.png"
        assert (
            main(
                [command, "achromat", "--points", "3", flag, str(path)]
                if command != "seidel"
                else [command, "achromat", flag, str(path)]
            )
            == 0
        )
        assert path.stat().st_size > 1000
    assert "wrote" in capsys.readouterr().out


def test_errors_are_one_line_and_status_2(tmp_path, capsys):
    lens = optics.load("cooke_triplet")
    lens.surfaces[2].tilt = (0.2, 0.0, 0.0)
    path = tmp_path / "tilted.toml"
    optics.io.save(lens, path)
    assert main(["seidel", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "surface 2" in err
    assert main(["chromatic-focal-shift", "singlet", "--from", "0.7", "--to", "0.5"]) == 2
    assert "from" in capsys.readouterr().err
    assert main(["field-curvature", "singlet", "--points", "0"]) == 2


def test_wavelength_option(capsys):
    record = _json(capsys, "seidel", "singlet", "--wavelength", "0.5")
    assert record["wavelength"] == 0.5
    record = _json(capsys, "distortion", "cooke_triplet", "--wavelength", "0.55", "--points", "3")
    assert record["wavelengths"] == [0.55] and len(record["percent"]) == 1
    assert main(["field-curvature", "cooke_triplet", "--wavelength", "-1"]) == 2
    assert "--wavelength" in capsys.readouterr().err
