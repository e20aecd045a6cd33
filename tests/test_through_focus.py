"""Through-focus MTF, best focus and MTF versus field.

Through focus carries one trace's rays on to each shifted image plane; the
check is the lens itself with its image surface moved (the last thickness
changed), which must give the same numbers.  Best focus: a perfect mirror
whose image surface sits a known distance past the focus.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis import mtf, mtf_vs_field, through_focus_mtf
from optics.cli import main

PARABOLOID = Path(__file__).resolve().parent / "data" / "wavefront" / "paraboloid.toml"


def test_through_focus_equals_the_lens_with_its_image_surface_moved():
    optic = optics.load("cooke_triplet")
    shifts = [-0.1, 0.15]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = through_focus_mtf(optic, 28.0, shifts, samples=48)
        for k, shift in enumerate(shifts):
            moved = optics.load("cooke_triplet")
            moved.surfaces[-2].thickness = moved.surfaces[-2].thickness + shift
            direct = mtf(moved, None, [28.0], samples=48)
            t, s = be.to_numpy(result.tangential[k]), be.to_numpy(result.sagittal[k])
            np.testing.assert_allclose(t, be.to_numpy(direct.tangential[:, 0]), atol=1e-9)
            np.testing.assert_allclose(s, be.to_numpy(direct.sagittal[:, 0]), atol=1e-9)
    assert result.polychromatic


def test_on_axis_through_focus_matches_optiland():
    # Optiland 0.6.3 ThroughFocusMTF(cooke_triplet, spatial_frequency=28, delta_focus=0.1,
    # num_steps=5, fields="all", wavelength="primary", num_rays=256), the on-axis field
    # (its image surface at nominal -0.2 ... +0.2 mm).  Off axis its ThroughFocusMTF
    # reports tangential and sagittal the other way round from its own FFTMTF, so only
    # the axis (T = S) is compared.
    reference = [0.11096, 0.37058, 0.78678, 0.74087, 0.37607]
    optic = optics.load("cooke_triplet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = through_focus_mtf(
            optic, 28.0, [-0.2, -0.1, 0.0, 0.1, 0.2], fields=[(0.0, 0.0)], polychromatic=False
        )
    np.testing.assert_allclose(be.to_numpy(result.tangential[:, 0]), reference, atol=0.01)
    assert result.accuracy <= 0.01


def test_best_focus_of_a_mirror_imaged_past_its_focus(backend):
    # The paraboloid's focus is 100 mm before the mirror (light goes −z after it); the
    # image surface 0.04 mm further along the light: the best focus is 0.04 mm back.
    optic = optics.load(str(PARABOLOID))
    optic.surfaces[1].thickness = -100.04
    shifts = np.linspace(-0.1, 0.02, 7)
    result = through_focus_mtf(optic, 50.0, shifts, fields=[(0.0, 0.0)], samples=32)
    assert result.best_focus == pytest.approx(-0.04, abs=0.003)
    curve = be.to_numpy(result.tangential[:, 0])
    assert int(np.argmax(curve)) == 3  # the sample at −0.04


def test_mtf_versus_field_runs_from_the_axis_to_the_edge():
    optic = optics.load("achromat")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = mtf_vs_field(optic, [28.0], points=3, samples=32)
        edge = mtf(optic, [(0.0, 1.0)], [28.0], samples=32)
    assert [f[1] for f in result.fields] == [0.0, 0.5, 1.0]
    assert float(result.tangential[2][0]) == pytest.approx(float(edge.tangential[0][0]), abs=1e-12)


def test_through_focus_json_has_the_documented_shape(capsys):
    argv = ["through-focus", "achromat", "--frequency", "28", "--defocus=-0.05,0.05"]
    assert main([*argv, "--steps", "3", "--samples", "32", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["defocus"] == pytest.approx([-0.05, 0.0, 0.05])
    assert len(record["fields"]) == 3
    assert set(record["fields"][0]) == {"field", "tangential", "sagittal"}
    assert len(record["fields"][0]["tangential"]) == 3
    assert -0.05 <= record["best_focus"] <= 0.05
    assert (
        main(
            [
                "mtf-field",
                "achromat",
                "--frequencies",
                "28",
                "--points",
                "2",
                "--samples",
                "32",
                "--json",
            ]
        )
        == 0
    )
    record = json.loads(capsys.readouterr().out)
    assert record["fields"] == [0.0, 1.0] and len(record["tangential"][0]) == 2
