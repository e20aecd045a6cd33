"""The command's error boundary: every bad input is one line on stderr and exit status 2.

Each case here was a traceback (exit 1) or a silently wrong answer before
(issue 11); the expected message names the file and, where there is one, the
surface or section and the key.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from optics import samples
from optics.cli import main

SINGLET = samples.path("singlet").read_text()
SINGLET_JSON = {
    "aperture": {"type": "epd", "value": 10.0},
    "surfaces": [
        {"thickness": "inf"},
        {"radius": 50.0, "thickness": 5.0, "material": {"index": 1.5}, "stop": True},
        {"thickness": 95.0},
        {},
    ],
}


def _fails(capsys, argv, *parts, status=2):
    """Run the command; it must exit ``status`` with one stderr line holding every part."""
    assert main(argv) == status
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for part in parts:
        assert part in err, err
    return err


def _write(path, text, encoding="utf-8"):
    path.write_text(text, encoding=encoding)
    return str(path)


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_deeply_nested_arrays_are_refused(capsys, tmp_path, suffix):
    deep = "[" * 20000 + "]" * 20000
    text = f'name = "x"\nx = {deep}\n' if suffix == ".toml" else f'{{"x": {deep}}}'
    path = _write(tmp_path / f"deep{suffix}", text)
    _fails(capsys, ["analyze", path], path, "nested")


def test_moderately_deep_nesting_names_the_section(capsys, tmp_path):
    data = dict(SINGLET_JSON, optimize={"variables": [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]})
    path = _write(tmp_path / "deep.json", json.dumps(data))
    _fails(capsys, ["analyze", path], path, "[optimize]", "'variables'", "nested")


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_a_5000_digit_integer_is_refused(capsys, tmp_path, suffix):
    digits = "9" * 5000
    if suffix == ".toml":
        text = SINGLET.replace("value = 20.0", f"value = {digits}")
    else:
        text = json.dumps(SINGLET_JSON).replace("10.0", digits)
    path = _write(tmp_path / f"big{suffix}", text)
    _fails(capsys, ["analyze", path], path, "digits")


def test_an_integer_beyond_the_float_range_names_its_key(capsys, tmp_path):
    path = _write(tmp_path / "big.toml", SINGLET.replace("value = 20.0", "value = 1" + "0" * 400))
    _fails(capsys, ["analyze", path], path, "[aperture]", "'value'", "too large")


def test_a_repeated_json_key_is_refused_naming_section_and_key(capsys, tmp_path):
    text = json.dumps(SINGLET_JSON).replace('"value": 10.0', '"value": 10.0, "value": 20.0')
    path = _write(tmp_path / "dup.json", text)
    _fails(capsys, ["analyze", path], path, "[aperture]", "'value'", "more than once")
    text = json.dumps(SINGLET_JSON).replace('"radius": 50.0', '"radius": 50.0, "radius": 40.0')
    path = _write(tmp_path / "dup2.json", text)
    _fails(capsys, ["analyze", path], "surface 1", "'radius'", "more than once")


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_a_byte_order_mark_is_skipped(capsys, tmp_path, suffix):
    text = SINGLET if suffix == ".toml" else json.dumps(SINGLET_JSON)
    plain = _write(tmp_path / f"plain{suffix}", text)
    marked = _write(tmp_path / f"bom{suffix}", text, encoding="utf-8-sig")
    assert (tmp_path / f"bom{suffix}").read_bytes().startswith(b"\xef\xbb\xbf")
    assert main(["analyze", plain, "--json"]) == 0
    want = json.loads(capsys.readouterr().out)
    assert main(["analyze", marked, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["paraxial"] == want["paraxial"]


def test_a_huge_thickness_is_refused_naming_the_surface(capsys, tmp_path):
    path = _write(tmp_path / "far.toml", SINGLET.replace("thickness = 97.278", "thickness = 1e308"))
    _fails(capsys, ["analyze", path, "--json"], path, "surface 2", "'thickness'")


def test_a_degenerate_system_is_one_line_not_a_bug_report(capsys, tmp_path):
    data = dict(SINGLET_JSON)
    data["surfaces"] = [{"thickness": 0.0}, *SINGLET_JSON["surfaces"][1:]]  # object in the pupil
    path = _write(tmp_path / "degenerate.json", json.dumps(data))
    _fails(capsys, ["analyze", path, "--json"], "degenerate")


# --- ray files --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "parts"),
    [
        ("0,1,0,nan,0.55", ["line 3", "py", "finite"]),
        ("0,inf,0,1,0.55", ["line 3", "hy", "finite"]),
        ("0,0,0,1,-0.55", ["line 3", "wavelength", "positive"]),
        ("0,0,0,1,0", ["line 3", "wavelength", "positive"]),
        ("0,0,0,1,nan", ["line 3", "wavelength", "finite"]),
        ("0,0,0,x,0.55", ["line 3", "py", "not a number"]),
        ("0,0,0,1,0.55,7", ["line 3", "6 values for 5 columns"]),
        ("0,0,0", ["line 3", "needs values"]),
    ],
)
def test_bad_ray_values_are_refused_with_the_line(capsys, tmp_path, row, parts):
    rays = _write(tmp_path / "rays.csv", f"hx,hy,px,py,wavelength\n0,0,0,0,0.55\n{row}\n")
    # --json: nothing may reach stdout before the error (it used to be half a document)
    _fails(capsys, ["trace", "singlet", "--rays", rays, "--json"], rays, *parts)


def test_a_normalized_field_beyond_90_degrees_is_refused(capsys, tmp_path):
    # the singlet's largest field is 5°: hy = 20 is 100°, which no ray can have
    rays = _write(tmp_path / "rays.csv", "hx,hy,px,py\n0,1.2,0,0\n0,20,0,0\n")
    _fails(capsys, ["trace", "singlet", "--rays", rays], rays, "line 3", "100°", "under 90°")
    rays = _write(tmp_path / "fine.csv", "hx,hy,px,py\n0,1.2,0,0\n")
    assert main(["trace", "singlet", "--rays", rays, "--json"]) == 0  # 6°: beyond 1 is fine
    (ray,) = json.loads(capsys.readouterr().out)
    assert ray["valid"] and ray["M"] == pytest.approx(np.sin(np.radians(6.0)), rel=1e-12)


def test_ray_file_header_problems_name_the_file(capsys, tmp_path):
    rays = _write(tmp_path / "rays.csv", "hx,hx,hy,px,py\n0,0,0,0,0\n")
    _fails(capsys, ["trace", "singlet", "--rays", rays], rays, "more than once")
    rays = _write(tmp_path / "nul.csv", "hx,hy,px,py\n0,0\x00,0,0\n")
    main(["trace", "singlet", "--rays", rays])  # either traced or refused, never a traceback
    assert "Traceback" not in capsys.readouterr().err
    (tmp_path / "latin.csv").write_bytes(b"hx,hy,px,py\n0,0,0,\xff\n")
    _fails(capsys, ["trace", "singlet", "--rays", str(tmp_path / "latin.csv")], "UTF-8")


def test_a_ray_file_with_a_byte_order_mark_traces(capsys, tmp_path):
    rays = _write(tmp_path / "rays.csv", "hx,hy,px,py\n0,0,0,1\n", encoding="utf-8-sig")
    assert main(["trace", "singlet", "--rays", rays, "--json"]) == 0
    (ray,) = json.loads(capsys.readouterr().out)
    assert ray["valid"] and ray["py"] == 1.0


# --- options and outputs ---------------------------------------------------------------


@pytest.mark.parametrize("command", ["analyze", "plot"])
@pytest.mark.parametrize("rings", ["-3", "0", "x", "100000"])
def test_bad_ring_counts_are_refused(capsys, tmp_path, command, rings):
    argv = [command, "singlet", "--rings", rings]
    if command == "plot":
        argv += ["-o", str(tmp_path / "x.png")]
    assert main(argv) == 2  # argparse's error, before any work
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--rings" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["plot", "singlet", "-o", "{tmp}/x.txt"],
        ["demo", "-o", "{tmp}/x.txt", "--no-optimize"],
        ["optimize", "singlet", "-o", "{tmp}/o.toml", "--plot", "{tmp}/x.txt"],
        ["plot", "singlet", "-o", "{tmp}/missing/x.png"],
    ],
)
def test_unwritable_figures_are_refused_before_any_work(capsys, tmp_path, argv):
    argv = [a.format(tmp=tmp_path) for a in argv]
    err = _fails(capsys, argv, str(tmp_path))
    assert "cannot write a figure" in err or "does not exist" in err
    assert list(tmp_path.iterdir()) == []


def test_figures_are_written_with_the_usual_file_mode(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "x.png"
    old = os.umask(0o022)
    try:
        assert main(["plot", "singlet", "-o", str(out), "--rings", "2"]) == 0
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["x.png"]


def test_missing_lens_and_unreadable_files_are_one_line(capsys, tmp_path):
    _fails(capsys, ["analyze", str(tmp_path / "nope.toml")], "nope.toml")
    _fails(capsys, ["trace", "singlet", "--rays", str(tmp_path / "nope.csv")], "nope.csv")
    _fails(capsys, ["analyze", str(tmp_path)], str(tmp_path))


# --- the boundary itself ----------------------------------------------------------------


def test_an_os_error_names_its_file(capsys, monkeypatch):
    def fail(args):
        raise PermissionError(13, "Permission denied", "/some/file.toml")

    monkeypatch.setattr("optics.cli._analyze.run", fail)
    _fails(capsys, ["analyze", "singlet"], "/some/file.toml: Permission denied")


def test_an_unexpected_exception_is_a_one_line_bug_report(capsys, monkeypatch):
    def fail(args):
        raise RuntimeError("something odd\nsecond line")

    monkeypatch.setattr("optics.cli._analyze.run", fail)
    err = _fails(
        capsys, ["analyze", "singlet"], "RuntimeError: something odd; second line", status=1
    )
    assert err.startswith("optics analyze: bug: internal error")
    monkeypatch.setenv("OPTICS_TRACEBACK", "1")
    with pytest.raises(RuntimeError):
        main(["analyze", "singlet"])


def test_a_closed_stdout_ends_quietly(capsys, monkeypatch):
    class Closed(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", Closed())
    assert main(["analyze", "singlet", "--rings", "1"]) == 141
    assert capsys.readouterr().err == ""


def test_piping_into_head_prints_no_traceback(tmp_path):
    rays = tmp_path / "rays.csv"
    rays.write_text("hx,hy,px,py\n" + "0,0,0,0.5\n" * 3000)
    command = (
        f"{sys.executable} -m optics trace singlet --rays {rays} --json | head -c 10 >/dev/null"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, env=env
    )
    assert done.stderr == "" and done.returncode in (0, 141)


def test_warnings_print_as_one_line(capsys, monkeypatch):
    def warn(args):
        warnings.warn("first\nsecond", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr("optics.cli._analyze.run", warn)
    assert main(["analyze", "singlet"]) == 0
    assert capsys.readouterr().err == "optics analyze: warning: first; second\n"


def test_json_output_writes_non_finite_numbers_as_null(capsys):
    from optics.cli._common import print_json

    print_json({"a": float("nan"), "b": [float("inf"), 1.5], "c": (float("-inf"),)})
    assert json.loads(capsys.readouterr().out) == {"a": None, "b": [None, 1.5], "c": [None]}
    scalars = {"bool": np.bool_(True), "int": np.int64(3), "f32": np.float32(0.5), "nan": np.nan}
    print_json(scalars)
    assert json.loads(capsys.readouterr().out) == {"bool": True, "int": 3, "f32": 0.5, "nan": None}
