"""Polychromatic PSF and MTF: the definition, checked by independent routes.

Polychromatic (docs/wavefront.md): every wavelength aimed at the primary
wavelength's entrance pupil, each wavelength's PSF placed about the primary
wavelength's chief-ray image point, the weighted sum of the complex OTFs
normalized at zero frequency.  Checks: a weight vector that keeps one
wavelength gives that wavelength's MTF (a shift only changes the OTF's phase);
the OTF route agrees with the Fourier transform of the polychromatic PSF image
(its line spread functions), which knows nothing of OTF phases; and the
polychromatic MTF is not the mean of the monochromatic ones.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis import mtf, psf

FREQUENCIES = [10.0, 28.0, 50.0]


def _quiet():
    warnings.simplefilter("ignore")


def test_polychromatic_is_the_default_for_a_lens_with_several_wavelengths():
    optic = optics.load("achromat")
    with warnings.catch_warnings():
        _quiet()
        result = mtf(optic, [(0.0, 1.0)], FREQUENCIES, samples=32)
        single = mtf(optic, [(0.0, 1.0)], FREQUENCIES, 0.5875618, samples=32)
    assert result.polychromatic and result.wavelengths == tuple(optic.wavelengths.values)
    assert not single.polychromatic and single.wavelengths == (0.5875618,)
    record = result.as_dict()
    assert set(record) >= {"cutoff", "wavelength", "fields", "accuracy", "wavelengths"}
    assert set(record["fields"][0]) == {
        "field",
        "frequencies",
        "tangential",
        "sagittal",
        "diffraction_limit",
    }


def test_weights_that_keep_one_wavelength_give_its_monochromatic_mtf():
    optic = optics.load("achromat")
    for keep in (0, 2):
        weights = [0.0, 0.0, 0.0]
        weights[keep] = 1.0
        optic.wavelengths.weights = weights
        wavelength = optic.wavelengths.values[keep]
        with warnings.catch_warnings():
            _quiet()
            poly = mtf(optic, [(0.0, 1.0)], FREQUENCIES, samples=48)
            mono = mtf(optic, [(0.0, 1.0)], FREQUENCIES, wavelength, samples=48)
        # The PSF of the kept wavelength sits off the primary chief ray (lateral colour):
        # only the OTF's phase changes, not its modulus.
        np.testing.assert_allclose(poly.tangential, mono.tangential, atol=1e-12)
        np.testing.assert_allclose(poly.sagittal, mono.sagittal, atol=1e-12)


@pytest.mark.parametrize("name", ["achromat", "cooke_triplet"])
def test_the_otf_route_agrees_with_the_transform_of_the_polychromatic_psf(name):
    optic = optics.load(name)
    with warnings.catch_warnings():
        _quiet()
        image = psf(optic, (0.0, 1.0), samples=96, grid=512)
        curves = mtf(optic, [(0.0, 1.0)], FREQUENCIES, samples=96)
    intensity = be.to_numpy(image.image)
    size = intensity.shape[0]
    coordinate = (np.arange(size) - size // 2) * float(image.dx)
    kernel = np.exp(-2j * np.pi * np.asarray(FREQUENCIES)[:, None] * coordinate[None, :])
    for lsf, curve in (
        (intensity.sum(axis=1), curves.tangential),
        (intensity.sum(axis=0), curves.sagittal),
    ):
        from_image = np.abs(kernel @ lsf) / lsf.sum()
        # The image window (1.25 x the geometric spot radius) misses a little of the
        # energy in the spot's tails: the two agree to ~7e-3.
        np.testing.assert_allclose(be.to_numpy(curve[0]), from_image, atol=1e-2)


def test_polychromatic_mtf_is_not_the_mean_of_the_monochromatic_ones():
    optic = optics.load("cooke_triplet")
    with warnings.catch_warnings():
        _quiet()
        poly = mtf(optic, [(0.0, 1.0)], [50.0], samples=64)
        each = [mtf(optic, [(0.0, 1.0)], [50.0], w, samples=64) for w in optic.wavelengths.values]
    # Sagittally (a y field's PSF is symmetric in x, its OTF real and here positive) the
    # two agree; tangentially lateral colour and the PSFs' asymmetry make the OTF phases
    # differ: 0.089 against a mean of 0.217 at 50 cycles/mm.
    mean = np.mean([float(r.sagittal[0][0]) for r in each])
    assert float(poly.sagittal[0][0]) == pytest.approx(mean, abs=1e-9)
    mean = np.mean([float(r.tangential[0][0]) for r in each])
    assert mean - float(poly.tangential[0][0]) > 0.1


def test_polychromatic_psf_peak_is_normalized_to_the_unaberrated_polychromatic_peak():
    # A perfect mirror has no colour: its polychromatic Strehl ratio is 1.
    optic = optics.load(str(_paraboloid_with_wavelengths()))
    result = psf(optic, (0.0, 0.0), samples=32)
    assert result.polychromatic and len(result.wavelengths) == 3
    assert float(result.strehl) == pytest.approx(1.0, abs=1e-9)
    assert float(np.max(be.to_numpy(result.image))) <= 1.0 + 1e-9


def _paraboloid_with_wavelengths():
    from pathlib import Path

    source = Path(__file__).resolve().parent / "data" / "wavefront" / "paraboloid.toml"
    text = source.read_text().replace(
        "values = [0.55]\nprimary = 0",
        "values = [0.48, 0.55, 0.65]\nprimary = 1\nweights = [1, 2, 1]",
    )
    target = Path(__import__("tempfile").mkdtemp()) / "paraboloid3.toml"
    target.write_text(text)
    return target


def test_polychromatic_mtf_runs_alike_on_every_backend(backend):
    optic = optics.load(str(_paraboloid_with_wavelengths()))
    with warnings.catch_warnings():
        _quiet()
        result = mtf(optic, [(0.0, 1.0)], [28.0], samples=16)
    # NumPy, float64, the same sampling: the backends must agree to round-off.
    with be.using("numpy"):
        with warnings.catch_warnings():
            _quiet()
            reference = mtf(optic, [(0.0, 1.0)], [28.0], samples=16)
    assert float(be.item(result.tangential[0][0])) == pytest.approx(
        float(reference.tangential[0][0]), abs=1e-9
    )
