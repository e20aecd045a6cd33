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
    efls = [c["result"]["paraxial"]["efl"] for c in configs]
    assert efls == pytest.approx(OPTILAND_EFL, rel=1e-9)


def test_config_n_and_text_headers(capsys):
    assert main(["analyze", ZOOM, "--config", "2", "--json"]) == 0
    efl = json.loads(capsys.readouterr().out)["paraxial"]["efl"]
    assert efl == pytest.approx(OPTILAND_EFL[1], rel=1e-9)
    assert main(["analyze", ZOOM, "--config", "all"]) == 0
    out = capsys.readouterr().out
    assert "# configuration 1 of 3" in out and "# configuration 3 of 3" in out


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
