"""``optics convert`` and .zmx files on the command line."""

from __future__ import annotations

import codecs
import json

import pytest

import optics
from optics.cli import main
from optics.io import optic_to_dict

LENS = """MODE SEQ
UNIT MM
ENPD 10
GCAT SCHOTT
FTYP 0 0 2 1 0 0 0
YFLN 0 5
WAVM 1 0.5875618 1
PWAV 1
SURF 0
  DISZ INFINITY
SURF 1
  STOP
  CURV 0.02
  DISZ 4
  GLAS {glass} 0 0 1.52 64 0 0 0 0 0 0
SURF 2
  CURV -0.005
  DISZ 95
SURF 3
  DISZ 0
"""


@pytest.fixture
def zmx(tmp_path):
    path = tmp_path / "lens.zmx"
    path.write_bytes(codecs.BOM_UTF16_LE + LENS.format(glass="N-BK7").encode("utf-16-le"))
    return path


def test_convert_goes_zmx_to_toml_to_json_to_zmx_keeping_the_lens(tmp_path, zmx, capsys):
    original = optic_to_dict(optics.load(zmx))
    for source, target in (("lens.zmx", "a.toml"), ("a.toml", "b.json"), ("b.json", "c.zmx")):
        assert main(["convert", str(tmp_path / source), str(tmp_path / target)]) == 0
        assert optic_to_dict(optics.load(tmp_path / target)) == original
    assert f"wrote {tmp_path / 'c.zmx'} (4 surfaces)" in capsys.readouterr().out
    assert (tmp_path / "c.zmx").read_bytes().startswith(codecs.BOM_UTF16_LE)


def test_convert_never_replaces_the_input_unless_forced(zmx, capsys):
    before = zmx.read_bytes()
    assert main(["convert", str(zmx), str(zmx)]) == 2
    assert "is the input file; add --force" in capsys.readouterr().err
    assert zmx.read_bytes() == before
    assert main(["convert", str(zmx), str(zmx), "--force"]) == 0


def test_convert_refuses_an_existing_output(tmp_path, zmx, capsys):
    target = tmp_path / "out.toml"
    target.write_text("keep me")
    assert main(["convert", str(zmx), str(target)]) == 2
    assert "exists; add --force" in capsys.readouterr().err
    assert target.read_text() == "keep me"


def test_an_unknown_glass_is_one_line_and_the_fallback_a_warning(tmp_path, capsys):
    path = tmp_path / "odd.zmx"
    path.write_text(LENS.format(glass="NOT-A-GLASS"))
    assert main(["analyze", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "surface 1: unknown glass 'NOT-A-GLASS'" in err
    assert main(["analyze", str(path), "--glass-fallback", "model", "--json"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("optics: warning: ") and "glass 'NOT-A-GLASS'" in err


def test_analyze_json_gives_null_for_a_field_whose_rays_are_all_vignetted(tmp_path, capsys):
    path = tmp_path / "tiny.zmx"
    text = LENS.format(glass="N-BK7").replace("  CURV -0.005\n", "  CURV -0.005\n  CLAP 0 0.05 0\n")
    path.write_text(text)
    assert main(["analyze", str(path), "--json", "--rings", "2"]) == 0
    spots = json.loads(capsys.readouterr().out)["spot"]
    assert spots[-1]["rms_radius_chief"] is None and spots[-1]["n_invalid"] == spots[-1]["n_rays"]
