"""``optics polarization``: the JSON report, the figure, and bad options (docs/cli.md)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from optics.cli import main
from optics.io import load
from optics.polarization import polarization_pupil, transmission_vs_field


def test_json_report_is_the_library_analyses_and_s_light_transmits_less(capsys):
    assert main(["polarization", "singlet", "--json", "--points", "3", "--samples", "9"]) == 0
    record = json.loads(capsys.readouterr().out)
    lens = load("singlet")
    table = transmission_vs_field(lens, points=3, samples=9)
    got = record["transmission"]["transmission"]
    np.testing.assert_allclose(got["unpolarized"], table.unpolarized, rtol=1e-12)
    # On axis the square pupil grid is symmetric: x, y and unpolarized light alike.
    np.testing.assert_allclose(np.array(got["x"])[:, 0], np.array(got["y"])[:, 0], rtol=1e-12)
    # At the edge field x is s polarized for the chief ray's plane (y-z): less transmitted.
    assert all(x[-1] < u[-1] < y[-1] for x, u, y in zip(got["x"], got["unpolarized"], got["y"]))
    maps = polarization_pupil(lens, (0.0, 1.0), samples=9)
    assert record["pupil"]["summary"]["diattenuation"]["max"] == pytest.approx(
        float(np.nanmax(maps.diattenuation)), rel=1e-12
    )


def test_text_report_and_figure(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "pol.png"
    assert main(["polarization", "singlet", "--points", "2", "--samples", "5", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "mean transmittance" in text and f"wrote {out}" in text
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--field", "2"], "--field"),
        (["--samples", "0"], "samples"),
        (["--wavelength", "-1"], "wavelength"),
    ],
)
def test_bad_options_exit_2_with_one_line(capsys, argv, words):
    with pytest.raises(SystemExit) as exc:
        code = main(["polarization", "singlet", *argv])
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err
