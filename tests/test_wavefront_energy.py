"""Encircled/ensquared energy and the geometric MTF on a perfect paraboloid and the triplet.

Airy pattern: the energy inside the first dark ring, r₀ = 1.2197 λ / (2 NA),
is 1 − J₀²(3.8317) − J₁²(3.8317) = 0.8378.  The PSF is zero there, so counting
pixel centres is accurate to about a percent even on a coarse grid.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis._mtf import geometric_mtf, mtf
from optics.analysis._psf import psf
from optics.analysis.encircled_energy import geometric_encircled_energy, psf_encircled_energy

PARABOLOID = Path(__file__).resolve().parent / "data" / "wavefront" / "paraboloid.toml"


def test_airy_energy_inside_the_first_dark_ring(backend):
    optic = optics.load(str(PARABOLOID))
    samples, grid = 64, 256
    result = psf(optic, (0.0, 0.0), samples=samples, grid=grid)
    cutoff = float(be.item(mtf(optic, [(0.0, 0.0)], [0.0], samples=samples).cutoff[0]))
    first_zero = 1.2197 / cutoff  # the Airy disc's first dark ring
    energy = psf_encircled_energy(result, [0.5 * first_zero, first_zero, 20 * first_zero])
    encircled = be.to_numpy(energy.encircled)
    assert encircled[1] == pytest.approx(0.8378, abs=0.01)
    assert encircled[0] < encircled[1] < encircled[2] <= 1.0
    assert np.all(be.to_numpy(energy.ensquared) >= encircled - 1e-12)
    centroid = psf_encircled_energy(result, [first_zero], centre="centroid")
    assert float(be.item(centroid.encircled[0])) == pytest.approx(encircled[1], abs=1e-6)


def test_a_perfect_focus_has_unit_geometric_mtf_and_all_energy_at_the_chief_ray(backend):
    optic = optics.load(str(PARABOLOID))
    tangential, sagittal = geometric_mtf(optic, (0.0, 0.0), [10.0, 100.0, 1000.0])
    np.testing.assert_allclose(be.to_numpy(tangential), 1.0, atol=1e-9)
    np.testing.assert_allclose(be.to_numpy(sagittal), 1.0, atol=1e-9)
    energy = geometric_encircled_energy(optic, (0.0, 0.0), [1e-9])
    assert float(be.item(energy.encircled[0])) == pytest.approx(1.0, abs=1e-12)


def test_geometric_energy_and_mtf_of_an_aberrated_field(backend):
    optic = optics.load("cooke_triplet")
    radii = [0.002, 0.005, 0.01, 0.05]
    chief = be.to_numpy(geometric_encircled_energy(optic, (0.0, 1.0), radii).encircled)
    centroid = geometric_encircled_energy(optic, (0.0, 1.0), radii, centre="centroid")
    assert np.all(np.diff(chief) >= 0) and chief[-1] == pytest.approx(1.0)
    assert np.all(np.diff(be.to_numpy(centroid.encircled)) >= 0)
    tangential, sagittal = (be.to_numpy(c) for c in geometric_mtf(optic, (0.0, 1.0), [0, 20, 80]))
    assert tangential[0] == pytest.approx(1.0) and sagittal[0] == pytest.approx(1.0)
    assert tangential[2] < tangential[1] < 1.0
