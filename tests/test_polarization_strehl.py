"""Polarization Strehl ratio: synthetic Jones pupils and the scalar limit (polarization.md)."""

from __future__ import annotations

import math

import numpy as np

from optics import Aperture
from optics import backend as be
from optics.analysis import psf
from optics.io import load
from optics.polarization import jones_strehl, polarization_strehl


def _ratio(peaks, refs, j):
    return float(be.to_numpy(peaks[j] / refs[j]))


def test_a_pupil_that_rotates_the_polarization_loses_the_analytic_intensity(backend):
    # J_k = R(θ_k) with θ uniform over [−α, α]: x input gives (cos θ, sin θ) at each sample,
    # so S = (mean cos θ)² + (mean sin θ)² = (sin α / α)² in the limit of many samples.
    alpha, count = 0.8, 20001
    theta = np.linspace(-alpha, alpha, count)
    c, s = be.asarray(np.cos(theta)), be.asarray(np.sin(theta))
    J = ((c, -s), (s, c))
    zero, ones = be.asarray(np.zeros(count)), be.asarray(np.ones(count))
    peaks, refs = jones_strehl(J, zero, ones)
    expected = np.mean(np.cos(theta)) ** 2 + np.mean(np.sin(theta)) ** 2  # these samples
    np.testing.assert_allclose(expected, (math.sin(alpha) / alpha) ** 2, rtol=1e-4)
    np.testing.assert_allclose(_ratio(peaks, refs, 0), expected, rtol=1e-12)
    np.testing.assert_allclose(_ratio(peaks, refs, 1), expected, rtol=1e-12)
    # A uniform, non-polarizing pupil (any constant unitary J) with a flat wavefront: 1.
    J = ((0.0 * c + 0.6, 0.0 * c - 0.8), (0.0 * c + 0.8, 0.0 * c + 0.6))
    np.testing.assert_allclose(_ratio(*jones_strehl(J, zero, 3.0 * ones), 0), 1.0, rtol=1e-12)


def test_the_scalar_limit_is_the_psf_strehl_and_a_slow_singlet_barely_depolarizes():
    for epd in (6.0, 10.0):
        lens = load("singlet")
        lens.aperture = Aperture("epd", epd)
        result = polarization_strehl(lens, (0.0, 0.0), 0.5875618, samples=32)
        reference = float(be.to_numpy(psf(lens, (0.0, 0.0), 0.5875618, samples=32).strehl))
        np.testing.assert_allclose(result.scalar, reference, rtol=1e-9)
        assert abs(result.unpolarized - result.scalar) < 1e-6 * result.scalar + 1e-7
        assert result.x <= 1.0 and result.y <= 1.0
    # The Cooke triplet's edge field does: x and y differ, both below 1.
    cooke = load("cooke_triplet")
    edge = polarization_strehl(cooke, (0.0, 0.5), samples=24)
    assert abs(edge.x - edge.y) > 1e-4
