"""The compiled trace (``trace_rays(..., method="compiled")``) equals the eager one.

Default tests compile with TorchDynamo's ``aot_eager`` backend: the same
captured forward and backward graphs as Inductor, in seconds instead of tens
of seconds, and ``fullgraph=True`` makes any graph break an error.  The slow
tests (``--runslow``) compile with Inductor and ask TorchDynamo for the graph
break count directly.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import cooke_chebyshev

from optics import backend as be
from optics.errors import ConfigurationError
from optics.io import load
from optics.materials import ConstantIndex
from optics.optimize.merit import Merit, Operand
from optics.trace import Compiled, trace_rays
from optics.trace.methods import compiled

torch = pytest.importorskip("torch")

# torch.compile / jax.jit graphs: a step of their own (./dev compile-tests, .ci/run).
pytestmark = pytest.mark.compile

FIELD = (0.0, 0.7)
COMPONENTS = ("x", "y", "z", "L", "M", "N", "opd")
# Few masked steps keep the captured graph (and the test) small; these
# departures converge in 3-4 steps from the base-sphere seed.
ITERATIONS = 6


SYSTEMS = {"cooke": lambda: load("cooke_triplet"), "cooke_chebyshev": cooke_chebyshev}


def pupil(n=300, reach=1.0):
    """Random pupil points; ``reach`` > 1 adds rays that miss or leave the freeform's square."""
    rng = np.random.default_rng(7)
    radius, angle = reach * np.sqrt(rng.random(n)), 2 * np.pi * rng.random(n)
    return be.asarray(radius * np.cos(angle)), be.asarray(radius * np.sin(angle))


def trainable(optic):
    """The six lens radii as gradient leaves."""
    leaves = []
    for surface in optic.surfaces[1:-1]:
        surface.geometry.radius = be.parameter(surface.geometry.radius)
        leaves.append(surface.geometry.radius)
    return leaves


def spot_loss(rays):
    return be.sum(be.where(rays.valid, rays.x * rays.x + rays.y * rays.y, 0.0))


def assert_same_rays(actual, expected, atol=1e-12):
    assert tuple(actual.x.shape) == tuple(expected.x.shape)
    assert bool(be.all(actual.valid == expected.valid))
    for name in COMPONENTS:
        a, e = getattr(actual, name), getattr(expected, name)
        valid = be.to_numpy(expected.valid)
        np.testing.assert_allclose(
            be.to_numpy(a)[valid], be.to_numpy(e)[valid], rtol=0, atol=atol, err_msg=name
        )


def eager_and_compiled(name, reach, compiler="aot_eager", grad=False):
    """(eager, compiled) rays, and with ``grad`` the two gradients of the spot loss."""
    optic = SYSTEMS[name]()
    leaves = trainable(optic) if grad else []
    px, py = pupil(reach=reach)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # eager counts the rejected rays
        results = []
        for run in (
            lambda: trace_rays(optic, FIELD, (px, py)),
            lambda: trace_rays(optic, FIELD, (px, py), method=Compiled(compiler, ITERATIONS)),
        ):
            if grad:
                rays = run()
                results.append((rays, torch.autograd.grad(spot_loss(rays), leaves)))
            else:
                with be.no_grad():
                    results.append((run(), None))
    return results


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_compiled_rays_equal_the_eager_rays(name, torch_backend):
    (eager, _), (fused, _) = eager_and_compiled(name, reach=1.0)
    assert_same_rays(fused, eager)


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_compiled_gradients_equal_the_eager_gradients(name, torch_backend):
    (eager, eager_grad), (fused, fused_grad) = eager_and_compiled(name, reach=1.0, grad=True)
    assert_same_rays(fused, eager)
    for a, e in zip(fused_grad, eager_grad):
        assert float(abs(a - e)) <= 1e-12 * max(1.0, float(abs(e)))


def test_rejected_freeform_rays_match_and_get_finite_gradients(torch_backend):
    (eager, eager_grad), (fused, fused_grad) = eager_and_compiled(
        "cooke_chebyshev", reach=2.5, grad=True
    )
    n_valid = int(be.sum(be.astype(eager.valid, be.float_dtype())))
    assert 0 < n_valid < be.size(eager.valid), "the case needs both kinds of rays"
    assert_same_rays(fused, eager)
    for a, e in zip(fused_grad, eager_grad):
        assert bool(be.isfinite(a))
        assert float(abs(a - e)) <= 1e-12 * max(1.0, float(abs(e)))


def test_compiled_merit_equals_the_eager_merit_and_its_gradient(torch_backend, monkeypatch):
    monkeypatch.setattr(compiled, "DEFAULT_COMPILER", "aot_eager")
    optic = load("cooke_triplet")
    leaves = trainable(optic)
    values = []
    for merit in (
        Merit([Operand("rms_spot", rings=3)]),
        Merit([Operand("rms_spot", rings=3)], method=Compiled("aot_eager")),
    ):
        value = merit(optic)
        values.append((float(be.detach(value)), torch.autograd.grad(value, leaves)))
    (eager, eager_grad), (fused, fused_grad) = values
    assert fused == pytest.approx(eager, rel=1e-12, abs=0)
    for a, e in zip(fused_grad, eager_grad):
        assert float(abs(a - e)) <= 1e-12 * max(1.0, float(abs(e)))


def test_gradients_reach_thicknesses_and_a_material_index(torch_backend):
    optic = load("cooke_triplet")
    optic.surfaces[2].thickness = be.parameter(optic.surfaces[2].thickness)
    optic.surfaces[3].material = ConstantIndex(be.parameter(1.62))
    leaves = [optic.surfaces[2].thickness, optic.surfaces[3].material.value]
    px, py = pupil()
    gradients = []
    for run in (
        lambda: trace_rays(optic, FIELD, (px, py)),
        lambda: trace_rays(optic, FIELD, (px, py), method=Compiled("aot_eager")),
    ):
        gradients.append(torch.autograd.grad(spot_loss(run()), leaves))
    for a, e in zip(*reversed(gradients)):
        assert float(abs(e)) > 0
        assert float(abs(a - e)) <= 1e-12 * max(1.0, float(abs(e)))


def test_numpy_backend_refuses_compiled_with_a_clear_error():
    with be.using("numpy"):
        optic = load("cooke_triplet")
        with pytest.raises(ConfigurationError, match="compiles graphs"):
            trace_rays(optic, (0.0, 0.0), (0.0, 0.0), method="compiled")


def test_rays_along_the_way_are_refused_by_the_compiled_method(torch_backend):
    from optics.trace import prepare
    from optics.trace.methods import RayBatch

    system = prepare(load("cooke_triplet"))
    batch = RayBatch(0.0, 0.0, be.asarray([0.0]), be.asarray([0.0]), 0.55, True, keep=(1,))
    with pytest.raises(ConfigurationError, match="records the surfaces"):
        Compiled("aot_eager").trace(system, batch)


@pytest.mark.parametrize(
    ("n", "bucket"),
    [(1, 256), (256, 256), (257, 320), (1000, 1024), (1025, 1280), (10**6, 1048576)],
)
def test_batch_bucket_pads_by_at_most_a_quarter(n, bucket):
    assert compiled.batch_bucket(n) == bucket
    assert compiled.batch_bucket(bucket) == bucket


def test_the_cache_keys_on_topology_bucket_and_per_ray_inputs(torch_backend):
    compiled.clear_cache()
    px, py = pupil(300)

    def trace(optic, hy, x, y):
        with be.no_grad():
            return trace_rays(optic, (0.0, hy), (x, y), method=Compiled("eager", 1))

    cooke = load("cooke_triplet")
    trace(cooke, 0.7, px, py)
    trace(cooke, 0.3, px[:290], py[:290])  # same bucket (320), another field: reused
    trace(load("cooke_triplet"), 0.7, px, py)  # another Optic, same topology: reused
    assert [entry.calls for entry in compiled.cache_entries()] == [3]
    trace(cooke, 0.7, px[:200], py[:200])  # bucket 256
    trace(cooke, be.asarray(np.linspace(0, 1, 300)), px, py)  # the field varies per ray
    trace(cooke_chebyshev(), 0.7, px, py)  # another topology
    keys = [entry.key for entry in compiled.cache_entries()]
    assert len(keys) == 4 and len(set(keys)) == 4
    compiled.clear_cache()
    assert compiled.cache_entries() == []


def test_compiled_batches_keep_the_broadcast_shape(torch_backend):
    optic = load("cooke_triplet")
    px = be.asarray(np.linspace(-0.5, 0.5, 5))
    py = be.asarray(np.linspace(-0.4, 0.4, 3))[:, None]
    with be.no_grad():
        eager = trace_rays(optic, FIELD, (px, py))
        fused = trace_rays(optic, FIELD, (px, py), method=Compiled("eager"))
    assert tuple(fused.x.shape) == (3, 5)
    assert_same_rays(fused, eager)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SYSTEMS))
def test_the_whole_trace_is_one_graph_without_breaks(name, torch_backend):
    optic = SYSTEMS[name]()
    trainable(optic)
    px, py = pupil()
    report = compiled.explain_trace(optic, FIELD, (px, py), newton_iterations=ITERATIONS)
    assert report.graph_break_count == 0, report.break_reasons
    assert report.graph_count == 1


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SYSTEMS))
def test_inductor_rays_and_gradients_equal_the_eager_ones(name, torch_backend):
    (eager, eager_grad), (fused, fused_grad) = eager_and_compiled(
        name, reach=1.0, compiler="inductor", grad=True
    )
    assert_same_rays(fused, eager)
    for a, e in zip(fused_grad, eager_grad):
        assert float(abs(a - e)) <= 1e-12 * max(1.0, float(abs(e)))
