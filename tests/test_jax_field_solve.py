"""The real-image-height field solve under jax.jit, jax.vmap and jax.grad (issue 16).

``jax.jit`` of the public ``trace_rays`` (not ``compiled=True``: the whole call,
paraxial data and the field solve included) must equal the eager trace;
``jax.vmap`` over real-image-height field values must equal one trace per
field; ``jax.grad`` through the solve must match central differences at two
steps.  Under jit the solve is the fixed-shape one
(``optics.solvers.newton_2x2_static``): a field it cannot solve gives invalid
rays instead of a SolveError.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import reference_cooke

from optics import backend as be
from optics.errors import SolveError
from optics.io import load
from optics.sampling import hexapolar
from optics.system import Fields
from optics.trace import trace_rays

jax = pytest.importorskip("jax")

# torch.compile / jax.jit graphs: a step of their own (./dev compile-tests, .ci/run).
pytestmark = pytest.mark.compile
COMPONENTS = ("x", "y", "z", "L", "M", "N", "opd")
HEIGHTS = (6.0, 12.0, 18.0)  # mm on the image surface


def cooke():
    """The reference Cooke triplet with real-image-height fields along y (mm)."""
    optic = reference_cooke()
    optic.fields = Fields("real_image_height", [(0.0, h) for h in HEIGHTS])
    return optic


def singlet():
    """The singlet sample with real-image-height fields up to 8 mm (its 5° field: 8.7 mm).

    The grad and vmap tests use it: XLA compiles its graph several times faster
    than the Cooke triplet's.
    """
    optic = load("singlet")
    optic.fields = Fields("real_image_height", [(0.0, 4.0), (0.0, 8.0)])
    return optic


def _pupil():
    px, py = hexapolar(3)
    return be.asarray(px), be.asarray(py)


def _fields(rays):
    """The Rays' arrays as a dict (a pytree jit can return)."""
    return {name: getattr(rays, name) for name in (*COMPONENTS, "valid")}


def _close(actual, expected, scale=1.0):
    """Equal to 1e-12 of the larger of ``scale`` and the values' magnitude."""
    actual, expected = be.to_numpy(actual), be.to_numpy(expected)
    atol = 1e-12 * max(scale, float(np.max(np.abs(expected))))
    np.testing.assert_allclose(actual, expected, rtol=0, atol=atol)


def test_jit_of_the_public_trace_equals_the_eager_trace(jax_backend):
    optic, (px, py) = cooke(), _pupil()
    eager = trace_rays(optic, (0.2, 0.7), (px, py))
    traced = jax.jit(lambda hx, hy: _fields(trace_rays(optic, (hx, hy), (px, py))))
    jitted = traced(0.2, 0.7)
    for name in COMPONENTS:
        _close(jitted[name], getattr(eager, name))
    assert be.to_numpy(jitted["valid"]).tolist() == be.to_numpy(eager.valid).tolist()
    # A field no chief ray reaches (1800 mm off axis): an error eagerly; under jit,
    # where nothing can be read on the host, the same graph gives invalid rays.
    with pytest.raises(SolveError):
        trace_rays(optic, (0.0, 100.0), (px, py))
    assert not np.any(be.to_numpy(traced(0.0, 100.0)["valid"]))


def test_vmap_over_real_image_height_fields_equals_one_trace_per_field(jax_backend):
    optic, (px, py) = singlet(), _pupil()
    fields = [0.0, 0.5, 1.0]
    batched = jax.vmap(lambda hy: trace_rays(optic, (0.1, hy), (px, py)).y)(be.asarray(fields))
    for k, hy in enumerate(fields):
        _close(batched[k], trace_rays(optic, (0.1, hy), (px, py)).y)
    # the solve really ran: the chief ray of the last field lands on the requested height
    assert abs(float(trace_rays(optic, (0.0, 1.0), (0.0, 0.0)).y) - 8.0) < 1e-9


def _loss(radius, hy=0.7):
    optic = singlet()
    optic.surfaces[1].geometry.radius = radius
    px, py = _pupil()
    rays = trace_rays(optic, (0.0, hy), (px, py))
    return be.sum(be.where(rays.valid, rays.x * rays.x + rays.y * rays.y, 0.0))


def test_grad_through_the_field_solve_matches_central_differences(jax_backend):
    """jit(grad): the fixed-shape solve and its implicit correction under jit."""
    radius = float(singlet().surfaces[1].geometry.radius)
    exact = float(jax.jit(jax.grad(_loss))(be.asarray(radius)))
    assert abs(exact) > 1e-2
    # central differences at two steps: both agree with the exact derivative to
    # their truncation (h^2) plus round-off (eps / h) error
    eps = be.machine_eps(be.asarray(radius))
    loss_scale = abs(float(_loss(be.asarray(radius))))
    for h in (1e-3, 1e-4):
        fd = (float(_loss(be.asarray(radius + h))) - float(_loss(be.asarray(radius - h)))) / (2 * h)
        tolerance = 1e3 * h * h * abs(exact) + 1e3 * eps * loss_scale / h
        assert abs(fd - exact) <= tolerance, (h, fd, exact)


def test_vmap_over_a_parameter_the_paraxial_data_ignore(jax_backend):
    """A conic is invisible to the paraxial data (concrete under vmap, while jit stages
    everything): the solve must still notice that the rays are abstract."""
    px, py = _pupil()

    def image_y(conic):
        optic = singlet()
        optic.surfaces[1].geometry.conic = conic
        return trace_rays(optic, (0.0, 0.7), (px, py)).y

    conics = [-0.5, 0.0]
    batched = jax.vmap(image_y)(be.asarray(conics))
    for k, conic in enumerate(conics):
        _close(batched[k], image_y(be.asarray(conic)))
