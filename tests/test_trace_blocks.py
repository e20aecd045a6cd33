"""Cache-blocked eager traces (optics.trace.methods.blocked) equal one-batch traces bit for bit.

A trace that records no gradient runs large batches block by block; every
ray sees the same elementwise arithmetic, so blocked and one-batch results
must be identical, not merely close.  Small blocks (``Blocked(block=64)``) make
small batches split into several blocks (with a shorter last one).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import CORPUS
from host_reads import count_host_reads

from optics import accel
from optics import backend as be
from optics.io import load
from optics.trace import trace_bundle, trace_rays, trace_surfaces
from optics.trace.methods import Blocked, eager

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _systems import FIELD, build, pupil  # noqa: E402

FIELDS = ("x", "y", "z", "L", "M", "N", "wavelength", "intensity", "opd", "valid")
BLOCK = 64  # rays per block: 1000 rays make 16 blocks, the last one short


@pytest.fixture
def blocking(backend):
    """The backend fixture's name; skips backends that always trace one batch (JAX)."""
    with be.no_grad():
        size = accel.ray_block_size(be.asarray([0.0]))
    if size is None:
        pytest.skip(f"the {backend} backend always traces one batch")
    return backend


def _one_batch_and_blocked(function):
    """``function(method)`` traced as one batch and in blocks of BLOCK rays (no gradient)."""
    with be.no_grad():
        whole = function("eager")
        blocked = function(Blocked(BLOCK))
    return whole, blocked


def _assert_identical(whole, blocked):
    if isinstance(whole, list):
        assert len(whole) == len(blocked)
        for a, b in zip(whole, blocked):
            _assert_identical(a, b)
        return
    for name in FIELDS:
        a, b = (be.to_numpy(getattr(rays, name)) for rays in (whole, blocked))
        assert a.shape == b.shape, name
        np.testing.assert_array_equal(a, b, err_msg=name, strict=True)


def _pupil(n=1000, scale=1.0):
    return tuple(be.asarray(v * scale) for v in pupil(n))


@pytest.mark.parametrize("system", ["cooke", "cooke_chebyshev"])
def test_a_blocked_trace_is_bit_identical_to_one_batch(system, blocking, monkeypatch):
    calls = []
    loop = eager.surface_loop
    monkeypatch.setattr(eager, "surface_loop", lambda *a, **k: calls.append(1) or loop(*a, **k))
    optic = build(system)
    px, py = _pupil(scale=3.0)  # rays that miss, reflect totally or leave the freeform too
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the freeform's solve counts them
        whole, blocked = _one_batch_and_blocked(
            lambda method: trace_rays(optic, FIELD, (px, py), method=method)
        )
    _assert_identical(whole, blocked)
    assert len(calls) == 1 + 16  # one batch, then 15 blocks of 64 rays and one of 40
    assert 0 < be.to_numpy(whole.valid).sum() < 1000


def test_recorded_rays_per_ray_wavelengths_and_fields_are_identical(blocking):
    optic = build("cooke_chebyshev")
    px, py = _pupil()
    wavelength = be.asarray(np.linspace(0.45, 0.65, 1000))
    hy = be.asarray(np.linspace(-1.0, 1.0, 1000))
    whole, blocked = _one_batch_and_blocked(
        lambda method: trace_surfaces(optic, (0.0, hy), (px, py), wavelength, method=method)
    )
    _assert_identical(whole, blocked)
    # Scalar field and pupil arguments broadcast against a per-ray pupil column.
    whole, blocked = _one_batch_and_blocked(
        lambda method: trace_rays(optic, (0.3, 0.5), (px, 0.2), method=method)
    )
    _assert_identical(whole, blocked)


def test_a_mirror_system_and_real_aiming_are_identical(blocking):
    px, py = _pupil(400)
    mirror = load(CORPUS / "cassegrain.toml")
    whole, blocked = _one_batch_and_blocked(
        lambda method: trace_rays(mirror, (0.0, 0.5), (px, py), method=method)
    )
    _assert_identical(whole, blocked)
    optic = load("double_gauss")
    optic.aiming = "real"
    whole, blocked = _one_batch_and_blocked(
        lambda method: trace_rays(optic, (0.0, 0.7), (px, py), method=method)
    )
    _assert_identical(whole, blocked)


@pytest.mark.filterwarnings("ignore::optics.trace.aim.PupilAimWarning")
def test_a_blocked_bundle_is_identical(blocking):
    optic = build("cooke")
    pupil_samples = _pupil(300)
    whole, blocked = _one_batch_and_blocked(
        lambda method: trace_bundle(optic, pupil=pupil_samples, method=method)
    )
    _assert_identical(whole.rays, blocked.rays)
    _assert_identical(whole.chief, blocked.chief)
    for a, b in ((whole.chief_blocked, blocked.chief_blocked), (whole.px, blocked.px)):
        np.testing.assert_array_equal(be.to_numpy(a), be.to_numpy(b))


def test_the_blocks_of_a_trace_warn_once_with_the_counts_of_all(blocking):
    optic = build("cooke_chebyshev")
    geometry = optic.surfaces[6].geometry
    geometry.norm_x = geometry.norm_y = 4.0  # rays beyond 4 mm land outside the freeform
    px, py = _pupil()
    messages = []
    for method in ("eager", Blocked(BLOCK)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with be.no_grad():
                trace_rays(optic, FIELD, (px, py), method=method)
        messages.append([str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)])
    assert len(messages[0]) == 1 and "outside_domain=" in messages[0][0]
    assert "of 1000 problems" in messages[0][0]
    assert messages[1] == messages[0]


def test_a_blocked_torch_trace_reads_the_host_once(torch_backend):
    optic = build("cooke")
    px, py = _pupil()
    with be.no_grad():
        trace_rays(optic, FIELD, (px, py), method=Blocked(BLOCK))  # warm caches (glass data)
        with count_host_reads() as reads:
            trace_rays(optic, FIELD, (px, py), method=Blocked(BLOCK))
    assert reads["where"] == ["numpy"]


def test_grad_recording_and_jax_traces_stay_one_batch(backend):
    x = be.asarray(np.zeros(10))
    with be.no_grad():
        sizes = [accel.ray_block_size(x)]
    with be.enable_grad():
        sizes.append(accel.ray_block_size(be.parameter(x)) if backend != "numpy" else None)
    if backend == "jax":
        assert sizes == [None, None]
    elif backend == "torch":
        assert sizes[0] >= 1024 and sizes[1] is None
    else:
        assert sizes[0] >= 1024
