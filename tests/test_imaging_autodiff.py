"""Gradients of an image loss with respect to a lens radius, against central differences.

Small case (32 x 32 RGB scene, 3 x 3 PSF grid, one wavelength per channel,
16 x 16 pupil samples): the gradient flows through the FFT PSFs and their
pixel size, the chief-ray warp and the relative illumination.  On JAX the
first eager evaluation compiles every operation, so the JAX case runs a smaller
scene (16 x 16, 2 x 2 PSF grid) and is marked slow.
"""

from __future__ import annotations

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.imaging import Sensor, simulate_image
from optics.optimize import value_and_gradient

RADIUS = 22.01359  # the Cooke triplet's first radius
SCENE = np.random.default_rng(0).random((32, 32, 3))
WEIGHT = np.linspace(0.0, 1.0, SCENE.size).reshape(SCENE.shape)


def _loss(values, size=32, grid=3):
    lens = optics.load("cooke_triplet")
    lens.surfaces[1].geometry.radius = values[0]
    out = simulate_image(
        lens,
        be.asarray(SCENE[:size, :size]),
        sensor=Sensor(pitch=0.004),
        psf_grid_size=grid,
        wavelengths_per_channel=1,
        pupil_samples=16,
    )
    return be.sum(out.image * be.asarray(WEIGHT[:size, :size]))


def _central(step, loss=_loss):
    with be.using("numpy"):
        return (float(loss([RADIUS + step])) - float(loss([RADIUS - step]))) / (2 * step)


def _check(gradient, loss=_loss):
    coarse, fine = _central(1e-3, loss), _central(1e-4, loss)
    # the differences converge on the gradient as h^2: 2.5e-4 then 2.4e-6 relative
    assert abs(fine - gradient) < 0.05 * abs(coarse - gradient) + 1e-7 * abs(gradient)
    assert fine == pytest.approx(gradient, rel=2e-5)


def test_the_torch_gradient_matches_central_differences(torch_backend):
    value, gradient = value_and_gradient(_loss, [RADIUS])
    with be.using("numpy"):
        assert value == pytest.approx(float(_loss([RADIUS])), rel=1e-12)
    _check(gradient[0])


def test_the_torch_gradient_reaches_a_parameter_leaf(torch_backend):
    lens = optics.load("cooke_triplet")
    surface = lens.surfaces[1].geometry
    surface.radius = be.parameter(surface.radius)
    out = simulate_image(
        lens,
        SCENE[:16, :16],
        sensor=Sensor(pitch=0.004),
        psf_grid_size=2,
        wavelengths_per_channel=1,
        pupil_samples=16,
    )
    be.sum(out.image * be.asarray(WEIGHT[:16, :16])).backward()
    assert float(surface.radius.grad) != 0.0 and np.isfinite(float(surface.radius.grad))


def _small_loss(values):
    """A 16 x 16 scene and a 2 x 2 PSF grid: eager JAX pays its dispatch per operation."""
    return _loss(values, size=16, grid=2)


@pytest.mark.slow
def test_the_jax_gradient_matches_central_differences(jax_backend):
    value, gradient = value_and_gradient(_small_loss, [RADIUS])
    with be.using("numpy"):
        assert value == pytest.approx(float(_small_loss([RADIUS])), rel=1e-12)
    _check(gradient[0], _small_loss)
