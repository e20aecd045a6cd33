"""A compiled trace's unconverged Newton rays are traced again eagerly: no ray is lost.

With one masked Newton step per surface nearly every ray reaches the
Chebyshev surface unconverged; the compiled trace must still equal the eager
one, ray by ray and in its gradient, on torch and jax.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _zemax_corpus import corpus_dir, needs_corpus
from helpers import UNLIKE_DESIGNS, cooke_chebyshev, corpus_design

from optics import backend as be
from optics.geometry.aspheres import EvenAsphere
from optics.io import load
from optics.optimize import value_and_gradient
from optics.trace import Compiled, trace_rays, trace_surfaces
from optics.trace.methods import compiled
from optics.trace.methods._compiled_inputs import unpadded

# torch.compile / jax.jit graphs: a step of their own (./dev compile-tests, .ci/run).
pytestmark = pytest.mark.compile

FIELD = (0.0, 0.7)
COMPONENTS = ("x", "y", "z", "L", "M", "N", "opd")


def pupil(n=300, reach=1.0):
    rng = np.random.default_rng(5)
    radius, angle = reach * np.sqrt(rng.random(n)), 2 * np.pi * rng.random(n)
    return be.asarray(radius * np.cos(angle)), be.asarray(radius * np.sin(angle))


def trace(optic, px, py, compiled_steps=None):
    """The eager trace, or the compiled one with ``compiled_steps`` masked Newton steps."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # rays off the freeform's square
        if compiled_steps is None:
            return trace_rays(optic, FIELD, (px, py))
        return trace_rays(optic, FIELD, (px, py), method=Compiled("aot_eager", compiled_steps))


def assert_same_rays(fused, eager):
    """The same valid mask, and the same valid rays to 1e-12 mm; returns the mask."""
    valid = be.to_numpy(eager.valid)
    assert be.to_numpy(fused.valid).tolist() == valid.tolist()
    for name in COMPONENTS:
        np.testing.assert_allclose(
            be.to_numpy(getattr(fused, name))[valid],
            be.to_numpy(getattr(eager, name))[valid],
            rtol=0,
            atol=1e-12,
            err_msg=name,
        )
    return valid


def graph_flags(monkeypatch):
    """Record the unconverged masks the graphs return (before they are traced again)."""
    seen = []
    original = compiled.retrace_unconverged

    def recording(system, inputs, rays, unconverged):
        seen.append(int(be.sum(be.astype(unconverged, be.float_dtype()))))
        return original(system, inputs, rays, unconverged)

    monkeypatch.setattr(compiled, "retrace_unconverged", recording)
    return seen


@pytest.mark.parametrize("reach", [1.0, 2.5])  # 2.5: rays that miss the freeform too
def test_one_newton_step_in_the_graph_still_gives_the_eager_rays(
    autodiff_backend, monkeypatch, reach
):
    seen = graph_flags(monkeypatch)
    optic = cooke_chebyshev()
    px, py = pupil(reach=reach)
    with be.no_grad():
        eager = trace(optic, px, py)
        fused = trace(optic, px, py, compiled_steps=1)
    assert seen and seen[0] > 100, "one step must leave most rays unconverged"
    valid = assert_same_rays(fused, eager)
    assert valid.any() and (reach == 1.0 or not valid.all())


def test_enough_steps_leave_nothing_to_trace_again(autodiff_backend, monkeypatch):
    seen = graph_flags(monkeypatch)
    px, py = pupil()
    with be.no_grad():
        trace(cooke_chebyshev(), px, py, compiled_steps=6)
    assert seen == [0]


def test_a_design_without_newton_surfaces_returns_no_mask(autodiff_backend, monkeypatch):
    seen = graph_flags(monkeypatch)
    px, py = pupil()
    with be.no_grad():
        trace(load("cooke_triplet"), px, py, compiled_steps=1)
    assert seen == []


def test_the_retraced_rays_carry_the_eager_gradient(autodiff_backend):
    optic = cooke_chebyshev()
    lenses = optic.surfaces[1:-1]
    start = [float(s.geometry.radius) for s in lenses]
    px, py = pupil(reach=1.2)

    def loss(steps):
        def fn(radii):
            for surface, radius in zip(lenses, radii):
                surface.geometry.radius = radius
            rays = trace(optic, px, py, compiled_steps=steps)
            return be.sum(be.where(rays.valid, rays.x * rays.x + rays.y * rays.y, 0.0))

        return fn

    eager_value, eager_grad = value_and_gradient(loss(None), start)
    fused_value, fused_grad = value_and_gradient(loss(1), start)
    assert fused_value == pytest.approx(eager_value, rel=1e-12)
    np.testing.assert_allclose(fused_grad, eager_grad, rtol=1e-10, atol=0)
    assert np.all(eager_grad != 0)


def test_unpadded_masks_keep_the_broadcast_shape():
    mask = np.array([True, False, True, False, True, True])
    assert unpadded(mask, (2, 2), 4).tolist() == [[True, False], [True, False]]


def test_compiled_bundles_are_traced_again_too(autodiff_backend, monkeypatch):
    """A compiled bundle (merit functions' bundles) retraces its unconverged rays as well."""
    from optics.trace import trace_bundle

    seen = graph_flags(monkeypatch)
    optic = cooke_chebyshev()
    px, py = pupil(reach=2.5)
    with be.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        eager = trace_bundle(optic, [FIELD], [0.55], (px, py), method="eager").rays
        fused = trace_bundle(optic, [FIELD], [0.55], (px, py), method=Compiled("aot_eager", 1))
    assert seen and seen[0] > 100
    flat = lambda rays: rays.map(lambda v: v[0, 0])  # noqa: E731
    assert not assert_same_rays(flat(fused.rays), flat(eager)).all()


@needs_corpus
@pytest.mark.parametrize(
    "name",
    # four aspheres, most rays vignetted (the 20-surface patent-US20030048547A1-t3,
    # 139 rays retraced, passes too but compiles for 27 s)
    ["rayoptics-US08011793-1.zmx"],
)
def test_real_aspheric_designs_traced_with_two_steps_equal_the_eager_trace(
    torch_backend, monkeypatch, name
):
    seen = graph_flags(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        optic = load(corpus_dir() / name, glass_fallback="model")
    px, py = pupil(n=2000)
    with be.no_grad():
        eager = trace_rays(optic, (0.0, 1.0), (px, py))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            fused = trace_rays(
                optic,
                (0.0, 1.0),
                (px, py),
                method=Compiled("aot_eager", 2),
            )
    assert seen and seen[0] > 0, "two steps must leave some rays to trace again"
    valid = be.to_numpy(eager.valid)
    assert be.to_numpy(fused.valid).tolist() == valid.tolist() and valid.any()
    for component in COMPONENTS[:-1]:  # lengths relative to the system's size
        a, e = (be.to_numpy(getattr(r, component))[valid] for r in (fused, eager))
        assert np.max(np.abs(a - e)) <= 1e-12 * max(1.0, np.max(np.abs(e)))


@pytest.mark.parametrize("design", UNLIKE_DESIGNS)
def test_an_aspheric_first_surface_traced_with_no_step_equals_eager_on_unlike_designs(
    autodiff_backend, monkeypatch, design
):
    """Surface 1 becomes an even asphere with a 20 µm r⁴ departure at the traced rays' rim.

    With no Newton step in the graph nearly every ray that reaches the asphere
    is traced again (a near-axial beam would converge in one step).
    """
    seen = graph_flags(monkeypatch)
    optic = corpus_design(design)
    px, py = pupil()
    with be.no_grad():
        at_first = trace_surfaces(optic, FIELD, (px, py))[1]
    reached = be.to_numpy(at_first.valid)
    rim = float(np.max(np.hypot(be.to_numpy(at_first.x), be.to_numpy(at_first.y))[reached]))
    base = optic.surfaces[1].geometry
    optic.surfaces[1].geometry = EvenAsphere(base.radius, base.conic, [0.0, 0.02 / rim**4])
    with be.no_grad():
        eager = trace(optic, px, py)
        fused = trace(optic, px, py, compiled_steps=0)
    valid = be.to_numpy(eager.valid)
    # every ray that reaches the asphere but those whose departure is below the tolerance
    assert len(seen) == 1 and 0.9 * reached.sum() <= seen[0] <= reached.sum() and valid.any()
    assert be.to_numpy(fused.valid).tolist() == valid.tolist()
    size = max(float(np.max(np.abs(be.to_numpy(getattr(eager, k))[valid]))) for k in "xyz")
    for component in COMPONENTS:  # lengths relative to the system's size
        a, e = (be.to_numpy(getattr(r, component))[valid] for r in (fused, eager))
        assert np.max(np.abs(a - e)) <= 1e-12 * max(1.0, size), component
