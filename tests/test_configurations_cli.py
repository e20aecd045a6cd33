"""``--config N|all`` on the CLI: one configuration, or each in turn (text and JSON)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from optics.cli import main

ZOOM = str(Path(__file__).parent / "data" / "zoom_two_group.toml")
# Optiland 0.6.3, each zoom position as its own lens (see tests/test_configurations.py).
OPTILAND_EFL = [48.56122988063512, 29.70180081692251, 21.393382976722325]


def test_config_all_json_gives_one_object_per_configuration(capsys):
    assert main(["analyze", ZOOM, "--config", "all", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    configs = document["configurations"]
    assert [c["config"] for c in configs] == [1, 2, 3]
    assert [c["name"] for c in configs] == ["tele", "middle", "wide"]
    efls = [c["result"]["paraxial"]["efl"] for c in configs]
    assert efls == pytest.approx(OPTILAND_EFL, rel=1e-9)


def test_config_n_and_text_headers(capsys):
    assert main(["analyze", ZOOM, "--config", "2", "--json"]) == 0
    efl = json.loads(capsys.readouterr().out)["paraxial"]["efl"]
    assert efl == pytest.approx(OPTILAND_EFL[1], rel=1e-9)
    assert main(["analyze", ZOOM, "--config", "all"]) == 0
    out = capsys.readouterr().out
    assert "# configuration 1 of 3 (tele)" in out and "# configuration 3 of 3 (wide)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["analyze", ZOOM, "--config", "4"], "1 to 3"),
        (["analyze", ZOOM, "--config", "0"], "numbered from 1"),
        (["analyze", "cooke_triplet", "--config", "2"], "1 to 1"),
        (["convert", ZOOM, "out.toml", "--config", "1"], "leave --config out"),
    ],
)
def test_bad_config_is_one_line_and_exit_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


OPTIMIZE = """
[optimize]
variables = ["surfaces[1].radius", "configurations.rows[1].values[0]",
             "configurations.rows[1].values[2]"]
operands = [
  { type = "rms_spot", config = 1, rings = 2 },
  { type = "rms_spot", config = 3, rings = 2 },
  { type = "efl", target = 50.0, config = 1 },
]
"""


def test_optimize_across_configurations_then_write_zmx(tmp_path, capsys):
    import optics

    lens = tmp_path / "zoom.toml"
    lens.write_text(Path(ZOOM).read_text() + OPTIMIZE)
    out = tmp_path / "zoom_optimized.toml"
    argv = ["optimize", str(lens), "-o", str(out), "--steps", "3", "--backend", "numpy"]
    assert main([*argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["merit_after"] < 0.5 * report["merit_before"]
    optimized = optics.load(out)
    row = optimized.configurations.rows[1].values
    assert row[1] == 49.8125 and row[0] != 66.022 and row[2] != 42.6715
    assert main(["convert", str(out), str(tmp_path / "zoom.zmx")]) == 0
    back = optics.load(tmp_path / "zoom.zmx")
    assert back.configurations.rows[1].values == pytest.approx(row, rel=1e-15)


def test_zmx_optimized_across_configurations_from_the_cli_and_written_as_zmx(tmp_path, capsys):
    """The Done-when of issue 27 end to end: a Zemax zoom, optimized over its three
    configurations from the command line, written as .zmx and analysed per configuration."""
    import optics
    from optics.trace import prepare

    source = Path(ZOOM).with_suffix(".zmx")
    out = tmp_path / "zoom_optimized.zmx"
    operands = [f"--operand=rms_spot,config={n},rings=1" for n in (1, 2, 3)]
    operands += ["--operand=efl=48,config=1", "--operand=efl=21,config=3"]
    argv = ["optimize", str(source), "--vary", "radius:1,2,4,5", *operands, "--steps", "2"]
    argv += ["--backend", "numpy", "--quiet", "--json", "-o", str(out)]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["merit_after"] < 0.8 * report["merit_before"]
    back = optics.load(out)
    assert back.configuration_count == 3
    original = optics.load(source)
    assert back.configurations.rows[0].values == original.configurations.rows[0].values
    efl = {r["label"]: r["value_after"] for r in report["operands"] if r["type"] == "efl"}
    for n in (1, 3):
        value = float(prepare(back.configuration(n)).first_order.efl)
        assert value == pytest.approx(efl[f"efl@config{n}"], rel=1e-9)
        assert value != pytest.approx(float(prepare(original.configuration(n)).first_order.efl))
