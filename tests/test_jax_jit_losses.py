"""Losses users write — spot size over a bundle, RMS wavefront — under ``jax.jit`` and ``jax.grad``.

Warnings and checks that read values on the host run after the trace
(``accel.read_later``), and under ``jax.jit`` not at all, so a user's own jit of
a whole loss traces; real aiming then takes the fixed-shape Newton solve.
Every gradient is checked against central differences at two steps.
"""

from __future__ import annotations

import pytest

import optics
from optics import backend as be

jax = pytest.importorskip("jax")

# torch.compile / jax.jit graphs: a step of their own (./dev compile-tests, .ci/run).
pytestmark = pytest.mark.compile
RADIUS = 22.01359  # surface 1 of the Cooke triplet sample


def _lens(radius, aiming):
    lens = optics.load("cooke_triplet")
    lens.aiming = aiming
    lens.surfaces[1].geometry.radius = radius
    return lens


def spot_loss(radius, aiming):
    rays = optics.trace_bundle(_lens(radius, aiming), wavelengths=[0.5876], pupil=3).rays
    return be.sum(be.where(rays.valid, rays.x * rays.x + rays.y * rays.y, 0.0))


def wavefront_loss(radius, aiming):
    return optics.wavefront(_lens(radius, aiming), (0.0, 0.7), rings=6, terms=9).rms


def _central_differences(loss, steps=(1e-4, 1e-5)):
    """Central differences of ``loss(radius)`` on NumPy (an independent, eager path)."""
    with be.using("numpy"):
        return [(loss(RADIUS + h) - loss(RADIUS - h)) / (2 * h) for h in steps]


@pytest.mark.filterwarnings("ignore::optics.trace.PupilAimWarning")
@pytest.mark.parametrize("aiming", ["paraxial", "real"])
@pytest.mark.parametrize("make_loss", [spot_loss, wavefront_loss], ids=["spot", "wavefront"])
def test_a_jitted_loss_and_its_gradient_equal_eager_and_central_differences(
    jax_backend, make_loss, aiming
):
    def loss(radius):
        return make_loss(radius, aiming)

    value, gradient = jax.jit(jax.value_and_grad(loss))(be.asarray(RADIUS))
    with be.using("numpy"):
        eager = float(loss(RADIUS))
    assert float(value) == pytest.approx(eager, rel=1e-10)
    for difference in _central_differences(lambda r: float(loss(r))):
        assert float(gradient) == pytest.approx(difference, rel=2e-5)


def test_the_eager_real_aim_gradient_counts_the_aim_once(jax_backend):
    # The graph-free aim ran on the optic's tracers; their unrolled derivative plus the
    # implicit correction's cancelled out most of dp/dθ (0.17 % off on the spot loss).
    def loss(radius):
        px = be.asarray([0.0, 0.5, -0.5, 0.9])
        rays = optics.trace_rays(_lens(radius, "real"), (0.0, 1.0), (px, 0.3))
        return be.sum(rays.x * rays.x + rays.y * rays.y)

    gradient = float(jax.grad(loss)(be.asarray(RADIUS)))
    for difference in _central_differences(lambda r: float(loss(r))):
        assert gradient == pytest.approx(difference, rel=1e-7)


def test_the_off_centre_warning_still_fires_outside_jit(jax_backend):
    with pytest.warns(optics.trace.PupilAimWarning, match=r"\(0, 1\)"):
        spot_loss(be.asarray(RADIUS), "paraxial")
