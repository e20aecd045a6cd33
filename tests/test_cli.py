"""The ``optics`` command: analyze, trace, plot, demo and error handling."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import REFERENCE, reference_expected

from optics.cli import main

EXPECTED = reference_expected()
LENS = str(REFERENCE / "cooke_triplet.toml")


def _run_json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
def test_analyze_json_reproduces_reference(capsys, backend_name):
    if backend_name == "torch":
        pytest.importorskip("torch")
    report = _run_json(capsys, ["analyze", LENS, "--json", "--backend", backend_name])
    assert set(report) == {"name", "backend", "aiming", "paraxial", "spot", "materials"}
    assert report["backend"] == backend_name
    assert set(report["paraxial"]) == {
        "efl",
        "bfl",
        "ffl",
        "fno",
        "epd",
        "ep_position",
        "xpd",
        "xp_position",
        "image_height",
        "total_track",
        "magnification",
    }
    assert report["paraxial"]["magnification"] is None  # object at infinity
    for key, want in EXPECTED["paraxial"].items():
        assert report["paraxial"][key] == pytest.approx(want, rel=1e-9)
    assert len(report["spot"]) == 3
    for got, want in zip(report["spot"], EXPECTED["spot"]):
        assert set(got) == {
            "field",
            "wavelength",
            "rms_radius_chief",
            "rms_radius_centroid",
            "centroid",
            "geo_radius",
            "n_rays",
            "n_invalid",
            "chief_blocked",
            "vignetted_fraction",
        }
        assert got["rms_radius_chief"] == pytest.approx(want["rms_radius_chief"], rel=1e-9)
        assert got["rms_radius_centroid"] == pytest.approx(want["rms_radius_centroid"], rel=1e-9)
        assert got["centroid"][1] == pytest.approx(want["centroid"][1], abs=1e-9)


def test_trace_json_reproduces_reference_rays(capsys):
    rays = _run_json(
        capsys, ["trace", LENS, "--rays", str(REFERENCE / "cooke_triplet.rays.csv"), "--json"]
    )
    assert len(rays) == len(EXPECTED["rays"])
    for got, want in zip(rays, EXPECTED["rays"]):
        assert got["valid"] is True
        for key in ("x", "y", "z", "L", "M", "N"):
            assert got[key] == pytest.approx(want[key], abs=1e-9)


def test_trace_text_output_has_one_row_per_ray(capsys, tmp_path):
    csv = tmp_path / "rays.csv"
    csv.write_text("hx,hy,px,py\n0,0,0,0\n0,1,0,1\n")
    assert main(["trace", "cooke_triplet", "--rays", str(csv)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 4 and "valid" in lines[0]


def test_analyze_text_output_lists_first_order_data(capsys):
    assert main(["analyze", "cooke_triplet"]) == 0
    out = capsys.readouterr().out
    assert "efl" in out and "rms chief" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["analyze", "no_such_lens.toml"], "no_such_lens"),
        (["trace", "cooke_triplet", "--rays", "missing.csv"], "missing.csv"),
        (["analyze", "cooke_triplet", "--rings", "0"], "--rings"),
    ],
)
def test_user_mistakes_exit_2_with_one_line(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_bad_ray_csv_names_file_and_line(capsys, tmp_path):
    csv = tmp_path / "bad.csv"
    csv.write_text("hx,hy,px,py\n0,0,0,0\n0,zero,0,0\n")
    assert main(["trace", "cooke_triplet", "--rays", str(csv)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "line 3" in err


def test_console_script_reports_version_and_errors_without_traceback():
    version = subprocess.run(
        [sys.executable, "-m", "optics", "--version"], capture_output=True, text=True
    )
    assert version.returncode == 0 and version.stdout.startswith("optics ")
    bad = subprocess.run(
        [sys.executable, "-m", "optics", "analyze", "nope.toml"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_plot_writes_a_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "layout.png"
    assert main(["plot", "cooke_triplet", "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_analyzes_and_plots_the_cooke_triplet(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "demo.png"
    assert main(["demo", "-o", str(out), "--no-optimize"]) == 0
    assert "efl" in capsys.readouterr().out
    assert out.exists()


def test_lens_options_reach_the_loader_by_name():
    from argparse import Namespace

    from optics.cli._common import lens_from_args

    plain = lens_from_args(Namespace(lens="singlet", glass_fallback="model"))
    assert plain.aiming == "paraxial"  # the fallback is not taken for an aiming mode
    aimed = lens_from_args(Namespace(lens="singlet", glass_fallback=None, aiming="real"))
    assert aimed.aiming == "real"
