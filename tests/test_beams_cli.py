"""``optics beam``: the JSON record against the library, the coupling, one-line errors."""

from __future__ import annotations

import json
import math

import pytest

import optics
from optics.beams import fibre_coupling, propagate_beam
from optics.cli import main


def test_beam_json_is_the_library_s_beam_after_every_surface(capsys):
    assert main(["beam", "singlet", "--waist", "1.0", "--fibre", "0.01", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    lens = optics.load("singlet")
    beams = propagate_beam(lens, 1.0)
    assert [r["surface"] for r in record["surfaces"]] == [1, 2, 3]
    for row, beam in zip(record["surfaces"], beams, strict=True):
        assert row["waist"] == pytest.approx(float(beam.waist), rel=1e-14)
        assert row["waist_position"] == pytest.approx(float(beam.waist_position), rel=1e-14)
    assert record["coupling"] == pytest.approx(float(fibre_coupling(lens, 1.0, 0.01)), rel=1e-14)
    # A collimated 1 mm beam focuses to the diffraction waist λ f / (π w0) near the focus.
    focal = float(optics.paraxial(lens).efl)
    expected = lens.primary_wavelength * 1e-3 * focal / (math.pi * 1.0)
    assert record["surfaces"][-1]["waist"] == pytest.approx(expected, rel=1e-3)


def test_beam_text_table(capsys):
    assert main(["beam", "achromat", "--waist", "0.5", "--m2", "1.3"]) == 0
    out = capsys.readouterr().out
    assert "waist_at" in out and "M² 1.3" in out and "coupling" not in out


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["beam", "singlet", "--waist", "0"], "must be a positive number of mm"),
        (["beam", "singlet", "--waist", "1", "--m2", "0.5"], "M² must be at least 1"),
        (["beam", "singlet", "--waist", "1", "--m2", "2", "--fibre", "0.01"], "TEM00"),
        (["beam", "singlet"], "--waist"),
    ],
)
def test_beam_bad_input_is_one_line_and_status_2(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and len(err.splitlines()) == 1
