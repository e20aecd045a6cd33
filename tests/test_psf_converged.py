"""Converged by default: Strehl ratio to 0.005 and MTF to 0.01 of converged references.

References: Optiland 0.6.3 (the anchor environment), monochromatic at the
primary wavelength, paraxial aiming, on the same lens prescriptions (the
samples exported to .zmx):

- Strehl ratio: FFTPSF(...).strehl_ratio() at num_rays=256, grid_size=2048
  (8 pixels per lambda F/#, so its brightest pixel is within 5e-4 of the true
  peak): Cooke triplet full field 0.10250, achromat 0.7 field 0.07433.
- MTF at 28 cycles/mm: FFTMTF num_rays=512, grid_size=2048 (converged: 256
  and 512 rays agree to 2e-3): achromat full field T 0.0366, S 0.2095; 0.7
  field T 0.1920, S 0.7056.

The defaults of main before this change gave 0.0890 for the Cooke triplet.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis import ConvergenceWarning, SamplingWarning, mtf, psf
from optics.cli import main


def _quiet():
    warnings.simplefilter("ignore")


@pytest.mark.parametrize(
    ("name", "field", "reference"),
    [("cooke_triplet", (0.0, 1.0), 0.10250), ("achromat", (0.0, 0.7), 0.07433)],
)
def test_default_strehl_is_within_0_005_of_the_converged_reference(name, field, reference):
    with warnings.catch_warnings():
        _quiet()
        result = psf(optics.load(name), field, polychromatic=False)
    assert float(result.strehl) == pytest.approx(reference, abs=0.005)
    assert result.accuracy <= 0.005


def test_default_mtf_is_within_0_01_of_the_converged_reference():
    optic = optics.load("achromat")
    with warnings.catch_warnings():
        _quiet()
        result = mtf(optic, [(0.0, 1.0), (0.0, 0.7)], [28.0], polychromatic=False)
    np.testing.assert_allclose(be.to_numpy(result.tangential[:, 0]), [0.0366, 0.1920], atol=0.01)
    np.testing.assert_allclose(be.to_numpy(result.sagittal[:, 0]), [0.2095, 0.7056], atol=0.01)
    assert result.accuracy <= 0.01 and result.as_dict()["accuracy"]["mtf"] <= 0.01


def test_a_requested_sampling_that_misses_the_tolerance_warns():
    assert issubclass(ConvergenceWarning, SamplingWarning)
    optic = optics.load("cooke_triplet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", ConvergenceWarning)
        with pytest.warns(ConvergenceWarning, match="tolerance"):
            result = psf(optic, (0.0, 1.0), samples=16, polychromatic=False)
    assert result.accuracy > 0.005


def _overlap(a, b, d):
    """Area common to discs of radii a and b whose centres are d apart."""
    if d >= a + b:
        return 0.0
    if d <= abs(a - b):
        return math.pi * min(a, b) ** 2
    alpha = math.acos((d * d + a * a - b * b) / (2 * d * a))
    beta = math.acos((d * d + b * b - a * a) / (2 * d * b))
    return a * a * (alpha - 0.5 * math.sin(2 * alpha)) + b * b * (beta - 0.5 * math.sin(2 * beta))


def _annulus_mtf(nu, eps):
    """Unaberrated MTF of an annular pupil (outer radius 1, inner eps) at nu = f / cutoff."""
    d = 2.0 * nu
    common = _overlap(1, 1, d) - 2 * _overlap(1, eps, d) + _overlap(eps, eps, d)
    return common / (math.pi * (1 - eps * eps))


def test_the_diffraction_limit_is_that_of_the_obscured_pupil(tmp_path):
    # An f/5 paraboloid (perfect on axis) with a central obscuration of 0.4 of the pupil.
    text = (Path(__file__).parent / "data" / "wavefront" / "paraboloid.toml").read_text()
    text = text.replace('material = "mirror"', 'material = "mirror"\nobscuration = 4.0')
    path = tmp_path / "obscured.toml"
    path.write_text(text)
    optic = optics.load(str(path))
    with warnings.catch_warnings():
        _quiet()
        result = mtf(optic, [(0.0, 0.0)], None)
        strehl = psf(optic, (0.0, 0.0), samples=64).strehl
    nu = be.to_numpy(result.frequencies) / float(result.cutoff[0])
    expected = [_annulus_mtf(v, 0.4) for v in nu]
    np.testing.assert_allclose(be.to_numpy(result.diffraction_limit[0]), expected, atol=0.01)
    np.testing.assert_allclose(be.to_numpy(result.tangential[0]), expected, atol=0.01)
    clear = (2 / np.pi) * (np.arccos(nu) - nu * np.sqrt(1 - nu * nu))
    assert np.max(clear - be.to_numpy(result.diffraction_limit[0])) > 0.1
    assert float(strehl) == pytest.approx(1.0, abs=1e-9)


def test_psf_and_mtf_json_report_the_accuracy_and_the_wavelengths(capsys):
    assert main(["psf", "cooke_triplet", "--field", "2", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["polychromatic"] and record["wavelengths"] == [0.48, 0.55, 0.65]
    assert record["accuracy"]["strehl"] <= record["accuracy"]["tolerance"] == 0.005
    argv = ["mtf", "cooke_triplet", "--polychromatic", "--frequencies", "10,28", "--json"]
    assert main(argv) == 0
    record = json.loads(capsys.readouterr().out)
    assert {"cutoff", "wavelength", "fields"} <= set(record)
    assert record["polychromatic"] and record["accuracy"]["mtf"] <= 0.01
    assert main(["mtf", "cooke_triplet", "--polychromatic", "--wavelength", "0.55"]) == 2
