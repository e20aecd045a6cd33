"""``optics optimize``: end to end on both backends, JSON output, plots and errors."""

from __future__ import annotations

import json

import pytest
from test_optimize_section import LENS

from optics import backend as be
from optics.cli import main
from optics.io import load
from optics.optimize import problem_from_lens


@pytest.fixture
def lens(tmp_path):
    path = tmp_path / "singlet.toml"
    path.write_text(LENS)
    return path


def _merit(path):
    problem, _ = problem_from_lens(load(path))
    with be.using("numpy"):
        return problem.merit_float(problem.start())


@pytest.mark.parametrize("backend", ["numpy", "torch"])  # jax: the test after the next ones
def test_optimize_writes_a_better_lens_and_leaves_the_input_alone(lens, tmp_path, capsys, backend):
    if backend not in be.available_backends():
        pytest.skip(f"{backend} is not installed")
    original = lens.read_bytes()
    out = tmp_path / "out.toml"
    assert main(["optimize", str(lens), "--backend", backend, "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert lens.read_bytes() == original
    assert "merit before" in printed.out and "rms_spot" in printed.out
    assert printed.err == ""  # no progress bar when stderr is not a terminal
    assert _merit(out) < 0.1 * _merit(lens)
    assert load(out).optimize == load(lens).optimize  # the section travels with the lens


def test_json_report_has_the_documented_keys(lens, tmp_path, capsys):
    out = tmp_path / "out.json"
    assert (
        main(
            ["optimize", str(lens), "--backend", "numpy", "--steps", "3", "-o", str(out), "--json"]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert {"merit_before", "merit_after", "steps", "operands", "variables"} <= set(report)
    assert report["steps"] == 3
    assert [v["path"] for v in report["variables"]] == [
        "surfaces[1].radius",
        "surfaces[2].thickness",
    ]
    assert [o["type"] for o in report["operands"]] == ["rms_spot", "efl"]
    assert report["merit_after"] < report["merit_before"]
    assert report["merit_after"] == pytest.approx(_merit(out), rel=1e-9)


def test_driver_option_overrides_the_section(lens, tmp_path, capsys):
    pytest.importorskip("torch")
    out = tmp_path / "out.toml"
    args = ["optimize", str(lens), "--backend", "torch", "--driver", "lbfgs", "--steps", "5"]
    assert main([*args, "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["driver"] == "lbfgs" and report["backend"] == "torch"


def test_output_may_replace_the_input_when_named(lens, capsys):
    before = _merit(lens)
    assert main(["optimize", str(lens), "--backend", "numpy", "-o", str(lens), "--quiet"]) == 0
    assert _merit(lens) < 0.1 * before


def test_plot_writes_the_merit_history(lens, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    figure = tmp_path / "history.png"
    args = ["optimize", str(lens), "--backend", "numpy", "-o", str(tmp_path / "o.toml")]
    assert main([*args, "--plot", str(figure)]) == 0
    assert figure.read_bytes().startswith(b"\x89PNG")


def test_bad_section_exits_2_naming_the_key(lens, tmp_path, capsys):
    lens.write_text(LENS.replace("weight = 10.0", "wieght = 10.0"))
    out = tmp_path / "out.toml"
    assert main(["optimize", str(lens), "--backend", "numpy", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "operands[1]: unknown key 'wieght'" in err and "Traceback" not in err
    assert not out.exists()


def test_gradient_driver_on_numpy_exits_2(lens, tmp_path, capsys):
    args = [
        "optimize",
        str(lens),
        "--backend",
        "numpy",
        "--driver",
        "adam",
        "-o",
        str(tmp_path / "o.toml"),
    ]
    assert main(args) == 2
    assert "torch or jax backend" in capsys.readouterr().err


@pytest.mark.parametrize("driver", ["adam", "least_squares"])
def test_jax_gradient_and_scipy_drivers_lower_the_merit(lens, tmp_path, capsys, driver):
    pytest.importorskip("jax")
    out = tmp_path / "out.toml"
    args = ["optimize", str(lens), "--backend", "jax", "--driver", driver, "--steps", "30"]
    assert main([*args, "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == "jax" and report["driver"] == driver
    assert _merit(out) < 0.5 * _merit(lens)


def test_lbfgs_on_jax_lowers_the_merit(lens, tmp_path, capsys):
    pytest.importorskip("jax")
    out = tmp_path / "out.toml"
    args = ["optimize", str(lens), "--backend", "jax", "--driver", "lbfgs", "--steps", "10"]
    assert main([*args, "-o", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == "jax" and report["driver"] == "lbfgs"
    assert _merit(out) < 0.5 * _merit(lens)


def test_output_is_required(lens, capsys):
    assert main(["optimize", str(lens)]) == 2


@pytest.mark.parametrize("output", ["out.txt", "missing/out.toml", "."])
def test_a_bad_output_is_refused_before_the_first_step(lens, tmp_path, capsys, monkeypatch, output):
    def never(*args, **kwargs):
        raise AssertionError("the optimization ran")

    monkeypatch.setattr("optics.optimize.optimize", never)
    target = tmp_path if output == "." else tmp_path / output
    assert main(["optimize", str(lens), "-o", str(target)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and str(target) in err


def test_ctrl_c_writes_the_best_lens_so_far_and_exits_130(lens, tmp_path, capsys, monkeypatch):
    from optics.optimize.history import Recorder

    record = Recorder.record
    calls = []

    def interrupted_at_the_fourth(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return record(self, *args, **kwargs)

    monkeypatch.setattr(Recorder, "record", interrupted_at_the_fourth)
    out = tmp_path / "out.toml"
    argv = ["optimize", str(lens), "--backend", "numpy", "--steps", "50", "-o", str(out)]
    assert main(argv) == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "interrupted after step" in err and str(out) in err
    merit_reached = float(err.split("merit ")[1].split()[0])
    assert _merit(out) == pytest.approx(merit_reached, rel=1e-5)  # printed with 6 digits
    assert _merit(out) < _merit(lens)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
