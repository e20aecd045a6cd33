"""No host reads inside a Torch trace: its checks are read once, after it.

``be.count_host_reads`` patches the tensor class so that every ``item``,
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
from optics import backend as be
from optics.errors import ConfigurationError
from optics.geometry.newton_types import Chebyshev
from optics.solvers import forced_iterations

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _systems import build, pupil  # noqa: E402

pytestmark = pytest.mark.skipif(
    "torch" not in be.available_backends(), reason="the torch backend is not installed"
)


def _trace_reads(optic, *, grad=False):
    px, py = (be.asarray(v) for v in pupil(200))
    optics.trace_rays(optic, 0.0, 0.7, px, py)  # warm caches (glass data, prepared terms)
    with be.count_host_reads() as reads:
        rays = optics.trace_rays(optic, 0.0, 0.7, px, py)
        if grad:
            be.sum(rays.x).backward()
    return reads, rays


@pytest.mark.parametrize("grad", [False, True])
def test_a_cooke_trace_reads_the_host_once(grad):
    with be.using("torch", precision="float64"):
        optic = build("cooke")
        if grad:
            optic.surfaces[2].geometry.radius = be.parameter(optic.surfaces[2].geometry.radius)
        with be.enable_grad() if grad else be.no_grad():
            reads, rays = _trace_reads(optic, grad=grad)
    assert reads["where"] == ["numpy"]  # the one deferred read of the checks
    assert np.all(be.to_numpy(rays.valid))


@pytest.mark.parametrize("grad", [False, True])
def test_a_chebyshev_trace_with_a_fixed_step_count_reads_the_host_once(grad):
    with be.using("torch", precision="float64"):
        optic = build("cooke_chebyshev")
        if grad:
            optic.surfaces[6].geometry.radius = be.parameter(optic.surfaces[6].geometry.radius)
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


def test_deferred_solver_counts_warn_when_the_block_ends():
    with be.using("torch", precision="float64"):
        geometry = Chebyshev(-20.0, 0.0, [[0.0, 0.001], [0.001, 0.0]], norm_x=4.0, norm_y=4.0)
        x = be.asarray([0.0, 3.0, 5.0, -6.0])
        zeros = be.zeros_like(x)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with be.count_host_reads() as reads, be.deferred_reads():
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
            with be.deferred_reads():
                be.read_later((be.asarray(0.0),), check)
                ran.append("after the check")
        assert ran == ["after the check"]  # the block ran on; the check raised at its end
        with be.deferred_reads():
            be.read_later((0.0,), lambda values: ran.append(values))  # Python numbers: at once
            assert ran[-1] == [0.0]
