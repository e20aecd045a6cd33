"""``optics wavefront``, ``optics mtf``, ``optics psf`` and ``opd_waves`` in ``optics trace``."""

from __future__ import annotations

import json

import pytest

from optics.analysis._opd import opd
from optics.cli import main
from optics.io import load

WAVEFRONT_KEYS = {
    "field",
    "wavelength",
    "rms_waves",
    "rms_piston_removed_waves",
    "rms_to_centroid_waves",
    "pv_waves",
    "strehl",
    "zernike_fringe",
}


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_wavefront_json_has_every_figure_per_field(capsys, tmp_path):
    out = tmp_path / "opd.png"
    records = _json(capsys, ["wavefront", "cooke_triplet", "--json", "--plot", str(out)])
    assert len(records) == 3 and out.stat().st_size > 0
    for record in records:
        assert set(record) == WAVEFRONT_KEYS
        assert len(record["zernike_fringe"]) == 37
        assert 0 < record["strehl"] <= 1
        assert record["rms_to_centroid_waves"] <= record["rms_piston_removed_waves"] + 1e-12
        assert record["rms_piston_removed_waves"] <= record["rms_waves"] + 1e-12


def test_mtf_json_reports_the_cutoff_and_curves(capsys, tmp_path):
    out = tmp_path / "mtf.png"
    report = _json(
        capsys, ["mtf", "cooke_triplet", "--frequencies", "0,50,100", "--json", "--plot", str(out)]
    )
    assert out.stat().st_size > 0
    # f/5 at 0.55 um: 1 / (lambda F#) = 363.6 cycles/mm, with the real working F/#.
    assert report["cutoff"] == pytest.approx(1 / (0.55e-3 * 5.0), rel=0.01)
    assert len(report["fields"]) == 3
    for field in report["fields"]:
        assert set(field) == {"field", "frequencies", "tangential", "sagittal", "diffraction_limit"}
        assert field["frequencies"] == [0.0, 50.0, 100.0]
        assert field["tangential"][0] == pytest.approx(1.0)
        assert all(t <= d + 1e-9 for t, d in zip(field["tangential"], field["diffraction_limit"]))


def test_psf_prints_the_strehl_and_plots(capsys, tmp_path):
    out = tmp_path / "psf.png"
    report = _json(
        capsys, ["psf", "cooke_triplet", "--field", "1", "--json", "--log", "--plot", str(out)]
    )
    assert 0 < report["strehl"] < 1 and report["grid"] >= 2 * report["samples"]
    fractions = report["encircled_energy"]["fraction"]
    assert fractions == sorted(fractions) and fractions[-1] <= 1.0
    assert out.stat().st_size > 0


@pytest.mark.parametrize(
    "argv",
    [
        ["psf", "cooke_triplet", "--field", "9"],
        ["mtf", "cooke_triplet", "--frequencies", "ten"],
        ["mtf", "cooke_triplet", "--frequencies", "-5"],
        ["wavefront", "cooke_triplet", "--rings", "0"],
    ],
)
def test_bad_options_exit_2_with_one_line(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "error" in err[0]


def test_trace_json_adds_opd_waves_relative_to_the_field_chief_ray(capsys, tmp_path):
    rays = tmp_path / "rays.csv"
    rays.write_text("hx,hy,px,py\n0,1,0,1\n0,1,0,0\n0,0.5,0.3,-0.4\n")
    rows = _json(capsys, ["trace", "cooke_triplet", "--rays", str(rays), "--json"])
    optic = load("cooke_triplet")
    assert rows[1]["opd_waves"] == 0.0  # the chief ray itself
    for row in (rows[0], rows[2]):
        expected, _ = opd(optic, row["hx"], row["hy"], row["px"], row["py"])
        assert row["opd_waves"] == pytest.approx(float(expected), abs=1e-12)


def test_geometric_mtf_option_replaces_the_curves(capsys):
    argv = ["mtf", "cooke_triplet", "--frequencies", "0,50", "--json"]
    diffraction = _json(capsys, argv)
    geometric = _json(capsys, [*argv, "--geometric"])
    assert geometric["cutoff"] == diffraction["cutoff"]
    first = geometric["fields"][0]
    assert first["tangential"][0] == pytest.approx(1.0)
    assert first["tangential"][1] != pytest.approx(diffraction["fields"][0]["tangential"][1])
