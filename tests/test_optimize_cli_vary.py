"""``optics optimize --vary / --operand / --constraint``: no [optimize] section needed."""

from __future__ import annotations

import json

import pytest
from _zemax_corpus import absent_reason, corpus_dir

from optics.cli import main
from optics.cli._optimize_args import parse_constraint, parse_operand

ZMX = corpus_dir() / "deeplens-ef35mm_f2.0.zmx"


def test_option_syntax():
    assert parse_operand("efl=50") == {"type": "efl", "target": 50.0}
    assert parse_operand("spot_rms") == {"type": "rms_spot"}
    assert parse_operand("distortion<=1,hy=1") == {
        "type": "distortion",
        "target": 1.0,
        "kind": "at_most",
        "hy": 1,
    }
    assert parse_operand("rms_spot,fields=[0,2],weight=3") == {
        "type": "rms_spot",
        "fields": [0, 2],
        "weight": 3,
    }
    assert parse_constraint("center_thickness>=2,surface=1") == {
        "type": "center_thickness",
        "min": 2.0,
        "surface": 1,
    }


def test_a_built_in_sample_without_a_section(tmp_path, capsys):
    out = tmp_path / "cooke.toml"
    argv = [
        "optimize",
        "cooke_triplet",
        "--backend",
        "numpy",
        "--steps",
        "5",
        "--json",
        "--vary",
        "radius:1-3",
        "--vary",
        "thickness:6:30:60",
        "--operand",
        "rms_spot",
        "--operand",
        "efl=50",
        "--constraint",
        "total_track<=80",
        "-o",
        str(out),
    ]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["driver"] == "dls"
    assert [v["path"] for v in report["variables"]] == [
        "surfaces[1].radius",
        "surfaces[2].radius",
        "surfaces[3].radius",
        "surfaces[6].thickness",
    ]
    assert report["merit_after"] < report["merit_before"]
    assert report["constraints"][0]["satisfied"]
    assert 30.0 <= report["variables"][3]["after"] <= 60.0


def test_a_bad_vary_is_one_line_and_exit_2(capsys):
    assert (
        main(
            [
                "optimize",
                "cooke_triplet",
                "--vary",
                "radius:1-99",
                "--operand",
                "efl=50",
                "-o",
                "x.toml",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "--vary" in err and err.count("\n") == 1


@pytest.mark.skipif(not ZMX.exists(), reason=absent_reason())
def test_an_imported_zmx(tmp_path, capsys):
    out = tmp_path / "ef35.toml"
    argv = [
        "optimize",
        str(ZMX),
        "--backend",
        "numpy",
        "--steps",
        "4",
        "--quiet",
        "--vary",
        "radius:1-4",
        "--operand",
        "rms_spot",
        "--operand",
        "efl=35",
        "-o",
        str(out),
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "dls on numpy" in printed and "surfaces[4].radius" in printed
    before, after = (
        float(x.strip(",")) for x in printed.split("merit before ")[1].split()[::2][:2]
    )
    assert after < 0.5 * before
    assert out.exists()


DIVERGING = """
name = "F/10 singlet, Adam with a huge learning rate"
[aperture]
type = "epd"
value = 10.0
[fields]
type = "angle"
values = [0.0]
[wavelengths]
values = [0.55]
[[surfaces]]
thickness = inf
[[surfaces]]
radius = 100.0
thickness = 2.0
material = { index = 1.5 }
stop = true
[[surfaces]]
radius = -100.0
thickness = 99.0
[[surfaces]]
[optimize]
driver = "adam"
learning_rate = 300.0
steps = 15
variables = ["surfaces[1].curvature", "surfaces[2].curvature", "surfaces[2].thickness"]
operands = [{ type = "rms_spot" }, { type = "efl", target = 100.0 }]
"""


def test_the_summary_says_when_a_run_diverged(tmp_path, capsys):
    pytest.importorskip("torch")
    lens = tmp_path / "diverging.toml"
    lens.write_text(DIVERGING)
    argv = ["optimize", str(lens), "--backend", "torch", "-o", str(tmp_path / "o.toml")]
    assert main(argv) == 0
    printed = capsys.readouterr()
    assert "warning: the run diverged" in printed.out  # the summary line
    assert "kept the best point (step 0" in printed.out
