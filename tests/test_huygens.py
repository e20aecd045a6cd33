"""Direct-integration (Huygens) PSF: analytic focus of a perfect wave, and the FFT PSF checked.

The Huygens PSF takes no Fraunhofer approximation and no pupil grid (real
rays on the reference sphere, a Gauss–Legendre pupil rule), so where both
converge it checks the FFT PSF's orientation, scale, placement and true peak.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis import huygens_psf, psf

PARABOLOID = Path(__file__).resolve().parent / "data" / "wavefront" / "paraboloid.toml"


def test_a_perfect_wave_focuses_to_one_with_the_airy_first_dark_ring(backend):
    optic = optics.load(str(PARABOLOID))  # f/5, 0.55 µm, perfect on axis
    first_zero = 1.21967 * 0.55e-3 * 5.0  # 1.22 λ F/# (mm)
    result = huygens_psf(
        optic,
        (0.0, 0.0),
        [0.0, first_zero, 0.0],
        [0.0, 0.0, 2.233 / 1.21967 * first_zero],
        rings=16,
    )
    values = be.to_numpy(result.intensity)
    assert values[0] == pytest.approx(1.0, abs=1e-9)
    assert values[1] < 2e-4  # the first dark ring (NA 0.1: the scalar Airy pattern)
    assert values[2] < 2e-4  # the second one, at 2.233 λ F/#


def test_huygens_and_converged_fft_agree_on_an_aberrated_field():
    # Cooke triplet full field, primary wavelength: coma and astigmatism, Strehl ~0.10.
    optic = optics.load("cooke_triplet")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fft = psf(optic, (0.0, 1.0), polychromatic=False)
        x, y = fft.peak
        peak = huygens_psf(optic, (0.0, 1.0), [x], [y], rings=32)
        offsets = np.arange(-6, 7, 3)
        size = fft.grid // 2
        xs = [j * float(fft.dx) for i in offsets for j in offsets]
        ys = [i * float(fft.dy) for i in offsets for j in offsets]
        grid = huygens_psf(optic, (0.0, 1.0), xs, ys, rings=32)
    # Measured: Huygens 0.10325, FFT 0.10299 (Optiland's fine-pixel FFT: 0.1025).
    assert float(be.item(peak.intensity[0])) == pytest.approx(float(fft.strehl), abs=0.005)
    image = be.to_numpy(fft.image)
    pixels = [image[size + i, size + j] for i in offsets for j in offsets]
    np.testing.assert_allclose(be.to_numpy(grid.intensity), pixels, atol=0.002)
