"""No host reads inside a Torch trace: its checks are read once, after it.

``count_host_reads`` (tests/host_reads.py) patches the tensor class so that every ``item``,
``bool``, ``int``, ``float``, ``__index__``, ``tolist`` and ``numpy`` call is
counted (on a GPU each would wait for the device).  A trace may make exactly
one: the deferred read of its checks (solver rejection counts, the paraxial
stop height, glass wavelength ranges) at its end.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import optics
from optics import accel
from optics import backend as be
from optics.errors import ConfigurationError
from optics.geometry.newton_types import Chebyshev
from optics.solvers import SYNC_FREE_ITERATIONS, forced_iterations, solver_settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _systems import build, pupil  # noqa: E402
from host_reads import count_host_reads  # noqa: E402

pytestmark = pytest.mark.skipif(
    "torch" not in be.available_backends(), reason="the torch backend is not installed"
)


def _trace_reads(optic, *, grad=False):
    px, py = (be.asarray(v) for v in pupil(200))
    optics.trace_rays(optic, (0.0, 0.7), (px, py))  # warm caches (glass data, prepared terms)
    with count_host_reads() as reads:
        rays = optics.trace_rays(optic, (0.0, 0.7), (px, py))
        if grad:
            be.sum(rays.x).backward()
    return reads, rays


def _optic(system, grad, surface):
    """The benchmark system, with surface ``surface``'s radius a gradient leaf if ``grad``."""
    optic = build(system)
    if grad:
        geometry = optic.surfaces[surface].geometry
        geometry.radius = be.parameter(geometry.radius)
    return optic


@pytest.mark.parametrize("grad", [False, True])
def test_a_cooke_trace_reads_the_host_once(grad):
    with be.using("torch", precision="float64"):
        optic = _optic("cooke", grad, 2)
        with be.enable_grad() if grad else be.no_grad():
            reads, rays = _trace_reads(optic, grad=grad)
    assert reads["where"] == ["numpy"]  # the one deferred read of the checks
    assert np.all(be.to_numpy(rays.valid))


@pytest.mark.parametrize("grad", [False, True])
def test_a_chebyshev_trace_with_a_fixed_step_count_reads_the_host_once(grad):
    with be.using("torch", precision="float64"):
        optic = _optic("cooke_chebyshev", grad, 6)
        with be.enable_grad() if grad else be.no_grad(), forced_iterations(12):
            reads, fixed = _trace_reads(optic, grad=grad)
        with be.no_grad():
            early_exit, eager = _trace_reads(optic)
    assert reads["where"] == ["numpy"]
    # The early-exit loop reads one count per Newton step (its exit test) and nothing else.
    assert early_exit["where"][-1] == "numpy"
    assert set(early_exit["where"][:-1]) == {"item"} and 2 <= len(early_exit["where"]) <= 13
    np.testing.assert_allclose(
        be.to_numpy(be.detach(fixed.x)), be.to_numpy(eager.x), rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("grad", [False, True])
def test_a_sync_free_chebyshev_trace_reads_the_host_once(grad):
    # The mode a GPU trace runs in by default; forced here on the CPU.
    with be.using("torch", precision="float64"):
        optic = _optic("cooke_chebyshev", grad, 6)
        radius = optic.surfaces[6].geometry.radius
        gradients = []
        for mode in (True, False):
            with be.enable_grad() if grad else be.no_grad(), solver_settings(sync_free=mode):
                result = _trace_reads(optic, grad=grad)
            if grad:  # the gradient of sum(x) of the traced (second) call
                gradients.append(be.to_numpy(radius.grad).copy())
                radius.grad = None
            if mode:
                reads, sync_free = result
            else:
                early_exit, eager = result
    assert reads["where"] == ["numpy"]
    assert early_exit["where"].count("item") >= 2  # the early exit's per-step counts
    np.testing.assert_allclose(
        be.to_numpy(be.detach(sync_free.x)), be.to_numpy(be.detach(eager.x)), rtol=0, atol=1e-12
    )
    assert be.to_numpy(sync_free.valid).tolist() == be.to_numpy(eager.valid).tolist()
    if grad:  # d sum(x) / d radius of the counted call, both modes
        assert np.isfinite(gradients[0]) and gradients[0] != 0.0
        np.testing.assert_allclose(gradients[0], gradients[1], rtol=1e-10)


def test_the_sync_free_mode_is_the_default_where_host_reads_are_not_cheap(monkeypatch):
    # A CUDA tensor is the real case; the capability is patched on the CPU.
    with be.using("torch", precision="float64"):
        optic = build("cooke_chebyshev")
        with be.no_grad():
            _, cheap = _trace_reads(optic)
            monkeypatch.setattr(accel, "host_reads_cheap", lambda *values: False)
            reads, costly = _trace_reads(optic)
    assert reads["where"] == ["numpy"]
    np.testing.assert_allclose(be.to_numpy(costly.x), be.to_numpy(cheap.x), rtol=0, atol=1e-12)


def test_a_ray_still_moving_after_the_sync_free_steps_is_reported_after_the_trace():
    # Oblique rays onto a steep Chebyshev term need 3-4 Newton steps from the vertex
    # plane; with 3 forced sync-free steps one is non_converged: invalid, warned once at
    # the end of the block, the others equal the early-exit roots.
    with be.using("torch", precision="float64"):
        geometry = Chebyshev(float("inf"), 0.0, [[0.0, 0.0, 0.0, 0.5]], norm_x=4.0, norm_y=4.0)
        y = be.asarray([-3.0, -1.0, 0.0, 1.0])
        zeros = be.zeros_like(y)
        ray = (zeros, y, zeros - 2.0, zeros, zeros + 0.6, zeros + 0.8)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with solver_settings(sync_free=False):
                t_exact, hit_exact = geometry.intersect(*ray)
            with count_host_reads() as reads, accel.deferred_reads():
                with solver_settings(sync_free=True, forced_iterations=3):
                    t, hit = geometry.intersect(*ray)
                assert not caught
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert reads["count"] == 1
    assert be.to_numpy(hit_exact).all()
    assert len(messages) == 1 and "non_converged=1" in messages[0]
    assert be.to_numpy(hit).tolist() == [True, True, True, False]
    np.testing.assert_allclose(be.to_numpy(t)[:3], be.to_numpy(t_exact)[:3], rtol=0, atol=1e-12)
    assert SYNC_FREE_ITERATIONS > 4  # the default count leaves room for such rays


def test_deferred_solver_counts_warn_when_the_block_ends():
    with be.using("torch", precision="float64"):
        geometry = Chebyshev(-20.0, 0.0, [[0.0, 0.001], [0.001, 0.0]], norm_x=4.0, norm_y=4.0)
        x = be.asarray([0.0, 3.0, 5.0, -6.0])
        zeros = be.zeros_like(x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with count_host_reads() as reads, accel.deferred_reads():
                t, hit = geometry.intersect(x, zeros, zeros - 2.0, zeros, zeros, zeros + 1.0)
                assert not caught  # nothing read yet
                during = reads["count"]
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "outside_domain=2" in messages[0]
    assert reads["count"] == during + 1  # the counts, read once at the end
    assert be.to_numpy(hit).tolist() == [True, True, False, False]


def test_a_deferred_check_raises_when_the_block_ends():
    def check(values):
        if values[0] == 0.0:
            raise ConfigurationError("the stop (surface 3) is imaged to infinity")

    with be.using("torch", precision="float64"):
        ran = []
        with pytest.raises(ConfigurationError, match="imaged to infinity"):
            with accel.deferred_reads():
                accel.read_later((be.asarray(0.0),), check)
                ran.append("after the check")
        assert ran == ["after the check"]  # the block ran on; the check raised at its end
        with accel.deferred_reads():
            accel.read_later((0.0,), lambda values: ran.append(values))  # Python numbers: at once
            assert ran[-1] == [0.0]
