"""Wavefront, PSF and MTF of traced systems: analytic cases and measured references.

Reference numbers in tests/data/wavefront/reference.json were measured with
Optiland 0.6.3 (tests/data/wavefront/make_reference.py; README beside it).
Both programs use the same reference sphere (centre: the chief ray's image
point; radius: to the paraxial exit pupil on the axis) and paraxial ray
aiming, so OPD at named pupil points agrees to round-off (< 1e-7 waves).
Optiland's FFT samples the pupil with linspace(-1, 1, N) (edge samples
included), optics with cell centres, so MTFs agree within the sampling error
(measured below 3.5e-3 at N = 128; tolerance 5e-3).  Strehl ratios are the
true peak of the PSF, compared with Optiland's brightest pixel at 8 pixels per
lambda F/# (TRUE_PEAK below; tolerance 4e-3).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis._mtf import diffraction_limit, mtf
from optics.analysis._opd import opd
from optics.analysis._psf import SamplingWarning, psf
from optics.analysis._wavefront import wavefront

DATA = Path(__file__).resolve().parent / "data" / "wavefront"
ROOT = Path(__file__).resolve().parents[1]
REFERENCE = json.loads((DATA / "reference.json").read_text())
SYSTEMS = sorted(REFERENCE["systems"])
# The Strehl ratio is the PSF's true peak: reference.json's are Optiland's brightest pixel
# at 2 pixels per lambda F/#.  These are Optiland 0.6.3's FFTPSF strehl_ratio() at
# num_rays=256, grid_size=2048 (8 pixels per lambda F/#; at 128/1024 they differ by < 7e-4).
TRUE_PEAK = {
    "cooke_triplet": (0.30855, 0.02493, 0.10250),
    "paraboloid": (1.00000, 0.90591),
    "tilted_singlet": (0.19883, 0.11105),
    "finite_doublet": (0.94346, 0.45643),
}


def _load(name):
    return optics.load(str(ROOT / REFERENCE["systems"][name]["lens_file"]))


@pytest.mark.parametrize("name", SYSTEMS)
def test_both_programs_trace_the_same_system(name):
    system = REFERENCE["systems"][name]
    optic = _load(name)
    first_order = optics.paraxial(optic).as_floats()
    assert first_order["efl"] == pytest.approx(system["paraxial"]["efl"], rel=1e-12)
    assert first_order["xp_position"] == pytest.approx(system["paraxial"]["xp_position"], rel=1e-12)
    for record in system["fields"]:
        chief = optics.trace_rays(optic, record["field"], (0.0, 0.0))
        got = [float(be.item(v)) for v in (chief.x, chief.y, chief.z)]
        np.testing.assert_allclose(got, record["chief_image"], atol=1e-9)


@pytest.mark.parametrize("name", SYSTEMS)
def test_opd_at_named_pupil_points_matches_the_reference(name, backend):
    system = REFERENCE["systems"][name]
    optic = _load(name)
    for record in system["fields"]:
        names = list(record["pupil_points"])
        px = be.asarray([record["pupil_points"][n][0] for n in names])
        py = be.asarray([record["pupil_points"][n][1] for n in names])
        waves, valid = opd(optic, *record["field"], px, py)
        expected = [record["opd_waves"][n] for n in names]
        assert bool(be.all(valid))
        np.testing.assert_allclose(be.to_numpy(waves), expected, atol=1e-7, rtol=0)


@pytest.mark.parametrize("name", SYSTEMS)
def test_mtf_at_five_frequencies_and_strehl_match_the_reference(name):
    system = REFERENCE["systems"][name]
    optic = _load(name)
    fields = [tuple(r["field"]) for r in system["fields"]]
    frequencies = system["fields"][0]["mtf_frequencies"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SamplingWarning)
        result = mtf(optic, fields, frequencies, samples=128, grid=256, polychromatic=False)
    for i, record in enumerate(system["fields"]):
        np.testing.assert_allclose(result.tangential[i], record["mtf_tangential"], atol=5e-3)
        np.testing.assert_allclose(result.sagittal[i], record["mtf_sagittal"], atol=5e-3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SamplingWarning)
            strehl = psf(optic, tuple(record["field"]), samples=128, polychromatic=False).strehl
        assert float(strehl) == pytest.approx(TRUE_PEAK[name][i], abs=4e-3)


def test_perfect_paraboloid_on_axis_has_zero_opd_unit_strehl_and_the_diffraction_limit():
    optic = optics.load(str(DATA / "paraboloid.toml"))
    rng = np.random.default_rng(0)
    radius, angle = np.sqrt(rng.random(200)), 2 * np.pi * rng.random(200)
    waves, valid = opd(optic, 0.0, 0.0, radius * np.cos(angle), radius * np.sin(angle))
    # The optical paths are ~1.8e5 waves long: zero to round-off is ~1e-11 waves.
    assert np.max(np.abs(waves)) < 1e-9 and valid.all()
    result = wavefront(optic, (0.0, 0.0))
    assert float(result.rms) < 1e-9 and float(result.pv) < 1e-9
    assert np.max(np.abs(result.zernike.coefficients)) < 1e-9
    assert float(psf(optic, (0.0, 0.0), samples=64).strehl) == pytest.approx(1.0, abs=1e-12)
    curve = mtf(optic, [(0.0, 0.0)], None, samples=512, grid=1024)
    limit = diffraction_limit(curve.frequencies, curve.cutoff[0])
    np.testing.assert_allclose(curve.tangential[0], limit, atol=1e-4)
    np.testing.assert_allclose(curve.sagittal[0], limit, atol=1e-4)


def test_wavefront_statistics_converge_with_the_quadrature(backend):
    optic = optics.load("cooke_triplet")
    coarse = wavefront(optic, (0.0, 1.0), rings=12)
    fine = wavefront(optic, (0.0, 1.0), rings=24)
    for key in ("rms", "rms_piston_removed", "rms_to_centroid"):
        a, b = (float(be.item(getattr(r, key))) for r in (coarse, fine))
        assert a == pytest.approx(b, rel=1e-4)
    np.testing.assert_allclose(
        be.to_numpy(coarse.zernike.coefficients), be.to_numpy(fine.zernike.coefficients), atol=1e-6
    )


def test_defocusing_the_paraboloid_gives_the_defocus_zernike():
    # Moving the image by dz along the axis adds, to first order in dz, the defocus
    # W(ρ) = dz (1 − cos θ(ρ)) / λ with sin θ the ray's aperture angle; at the rim of
    # this f = 100 mm paraboloid the ray runs 100.25 mm to the focus (f + sag), so
    # cos θ_m = 99.75 / 100.25.  Near focus the Fringe fit is Z4 ≈ Z1 ≈ W020 / 2 with
    # W020 = dz (1 − cos θ_m) / λ, higher spherical terms small, and RMS ≈ |Z4| / √3.
    optic = optics.load(str(DATA / "paraboloid.toml"))
    dz = 0.02
    optic.surfaces[1].thickness = -100.0 - dz
    result = wavefront(optic, (0.0, 0.0))
    c = be.to_numpy(result.zernike.coefficients)
    w020 = dz * (1 - 99.75 / 100.25) / 0.55e-3
    assert abs(c[3]) == pytest.approx(w020 / 2, rel=2e-3)
    assert c[0] == pytest.approx(c[3], rel=2e-3)
    assert np.max(np.abs(np.delete(c, [0, 3, 8, 15, 24, 35, 36]))) < 1e-12  # rotational symmetry
    assert float(result.rms_piston_removed) == pytest.approx(abs(c[3]) / np.sqrt(3), rel=2e-3)


def test_the_worked_example_of_the_wavefront_docs_runs(capsys):
    import re

    text = (ROOT / "docs" / "wavefront.md").read_text(encoding="utf-8")
    code = re.findall(r"^```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL)[0]
    exec(compile(code, "docs/wavefront.md", "exec"), {"__name__": "docs_example"})
    out = capsys.readouterr().out
    assert "0.4140 waves RMS to centroid, P-V 1.843" in out


def test_under_sampled_psf_warns_and_automatic_sampling_does_not():
    # The tilted singlet's full field is about 7 waves P-V: 16 samples alias.
    optic = _load("tilted_singlet")
    with pytest.warns(SamplingWarning, match="aliases"):
        psf(optic, (0.0, 1.0), samples=16)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SamplingWarning)
        result = psf(optic, (0.0, 1.0))
    assert result.samples > 16 and result.max_step_waves < 0.5
    assert result.accuracy <= 0.005  # the convergence test's Strehl tolerance


def test_strehl_of_a_slightly_defocused_paraboloid(backend):
    # Pure defocus W = a ρ² (a = W020 in waves) has the exact Strehl ratio
    # |<exp(−i2π a ρ²)>|² = (sin(π a) / (π a))²; Maréchal's exp(−(2π σ)²) with
    # σ = a / √12 agrees with it to O(σ⁴).
    optic = optics.load(str(DATA / "paraboloid.toml"))
    optic.surfaces[1].thickness = -100.0 - 0.012
    result = wavefront(optic, (0.0, 0.0))
    a = 2 * float(be.item(result.zernike.coefficients[3]))  # Z4 = W020 / 2
    sigma = float(be.item(result.rms_to_centroid))
    strehl = float(be.item(psf(optic, (0.0, 0.0), samples=128).strehl))
    assert strehl == pytest.approx((np.sin(np.pi * a) / (np.pi * a)) ** 2, abs=1e-3)
    assert strehl == pytest.approx(np.exp(-((2 * np.pi * sigma) ** 2)), abs=2e-3)
    assert 0.9 < strehl < 0.99
