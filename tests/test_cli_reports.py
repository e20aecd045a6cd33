"""What the commands report beyond the basics: magnification, the shipped [optimize] sample."""

from __future__ import annotations

import json

import pytest

from optics import samples
from optics.cli import main
from optics.io import load
from optics.optimize import problem_from_lens

SINGLET = samples.path("singlet").read_text()


def _finite_singlet(tmp_path, object_distance=200.0):
    text = SINGLET.replace("thickness = inf", f"thickness = {object_distance}", 1)
    text = text.replace("thickness = 97.278", "thickness = 200.0")
    text = text.replace('type = "angle"', 'type = "object_height"')
    text = text.replace("values = [0.0, 3.5, 5.0]", "values = [0.0, 5.0, 10.0]")
    path = tmp_path / "finite.toml"
    path.write_text(text)
    return str(path)


def test_analyze_reports_the_magnification_of_a_finite_object(capsys, tmp_path):
    path = _finite_singlet(tmp_path)
    assert main(["analyze", path, "--json"]) == 0
    paraxial = json.loads(capsys.readouterr().out)["paraxial"]
    # Newton's equation, exact in paraxial optics: m = f' / x, x the object's
    # position from the front focal point (object at z = -200 from surface 1).
    x = -200.0 - paraxial["ffl"]
    assert paraxial["magnification"] == pytest.approx(paraxial["efl"] / x, rel=1e-12)
    assert -1.0 < paraxial["magnification"] < -0.98  # near 1:1, inverted
    assert main(["analyze", path]) == 0
    assert "magnification" in capsys.readouterr().out


def test_analyze_has_no_magnification_for_an_object_at_infinity(capsys):
    assert main(["analyze", "singlet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["paraxial"]["magnification"] is None
    assert main(["analyze", "singlet"]) == 0
    assert "magnification" not in capsys.readouterr().out


@pytest.mark.parametrize(
    ("old", "new", "section"),
    [
        ('type = "epd"\nvalue = 20.0', 'type = "object_na"\nvalue = 0.1', "[aperture]"),
        ('type = "angle"', 'type = "object_height"', "[fields]"),
    ],
)
def test_finite_object_types_at_infinity_name_the_file(capsys, tmp_path, old, new, section):
    path = tmp_path / "lens.toml"
    path.write_text(SINGLET.replace(old, new))
    assert main(["analyze", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and section in err and "'type'" in err and "finite" in err


def test_the_singlet_sample_optimizes_out_of_the_box(capsys, tmp_path):
    out = tmp_path / "best_form.toml"
    argv = ["optimize", "singlet", "--backend", "numpy", "--steps", "8", "-o", str(out)]
    assert main(argv) == 0
    assert "merit before" in capsys.readouterr().out
    problem, _ = problem_from_lens(load("singlet"))
    start = problem.merit_float(problem.start())
    problem, _ = problem_from_lens(load(out))
    assert problem.merit_float(problem.start()) < 0.5 * start
