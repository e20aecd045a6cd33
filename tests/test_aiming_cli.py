"""``--aiming paraxial|real`` on analyze, trace, plot and optimize; the analyze report."""

from __future__ import annotations

import json

import pytest
from helpers import DATA
from test_optimize_section import LENS as OPTIMIZE_LENS

from optics.cli import main
from optics.io import load

WIDE = str(DATA / "aiming" / "wide_angle_170.toml")


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_analyze_reports_the_mode_and_the_vignetted_fraction_per_field(capsys):
    real = _json(capsys, ["analyze", WIDE, "--rings", "2", "--json"])
    assert real["aiming"] == "real"  # the lens file's mode
    assert [s["vignetted_fraction"] for s in real["spot"]] == [0.0, 0.0, 0.0]
    assert main(["analyze", WIDE, "--rings", "2", "--json", "--aiming", "paraxial"]) == 0
    out, err = capsys.readouterr()
    paraxial = json.loads(out)
    assert "(0, 1) (misses the stop)" in err and 'mode = "real"' in err  # the grouped warning
    assert len(err.strip().splitlines()) == 1
    assert paraxial["aiming"] == "paraxial"
    assert [s["vignetted_fraction"] for s in paraxial["spot"]] == [0.0, 1.0, 1.0]
    assert main(["analyze", WIDE, "--rings", "2", "--aiming", "real"]) == 0
    text = capsys.readouterr().out
    assert "real aiming" in text and "vignetted" in text and "0.0 %" in text


def test_trace_honours_the_override(capsys, tmp_path):
    rays = tmp_path / "rays.csv"
    rays.write_text("hx,hy,px,py\n0,1,0,1\n")
    real = _json(capsys, ["trace", WIDE, "--rays", str(rays), "--json"])
    para = _json(capsys, ["trace", WIDE, "--rays", str(rays), "--json", "--aiming", "paraxial"])
    assert real[0]["valid"] and not para[0]["valid"]


def test_a_wrong_mode_is_a_usage_error(capsys):
    assert main(["analyze", WIDE, "--aiming", "exact"]) == 2
    err = capsys.readouterr().err
    assert "--aiming" in err and len(err.strip().splitlines()) == 1


def test_plot_and_optimize_accept_the_option(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    figure = tmp_path / "layout.png"
    assert main(["plot", WIDE, "-o", str(figure), "--rings", "2", "--aiming", "real"]) == 0
    assert figure.stat().st_size > 0
    lens = tmp_path / "singlet.toml"
    lens.write_text(OPTIMIZE_LENS)
    output = tmp_path / "out.toml"
    argv = ["optimize", str(lens), "-o", str(output), "--steps", "1", "--quiet"]
    assert main([*argv, "--aiming", "real"]) == 0
    assert load(output).aiming == "paraxial"  # the override is not saved
