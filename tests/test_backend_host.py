"""accel.on_host (constant scalar work with NumPy) and the process's malloc thresholds."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest
from helpers import reference_cooke

from optics import accel, paraxial
from optics import backend as be
from optics.accel import allocator as _allocator
from optics.backend import _registry
from optics.materials import Abbe, index_at
from optics.optimize import value_and_gradient


@dataclasses.dataclass
class _Lens:
    curvature: object
    index: object


def _power(lens):
    """A few scalar operations on the lens, and which backend ran them."""
    power = (be.asarray(lens.index) - 1.0) * lens.curvature
    return {"power": power, "ran_on": be.backend_of(power), "pair": [power, 2.0 * power]}


def test_plain_numbers_run_with_numpy_and_come_back_on_the_configured_backend(precision):
    """With NumPy where the backend dispatches slowly (jax); elsewhere a plain call."""
    got = accel.on_host(_power, _Lens(0.02, 1.5))
    slow = _registry.info(be.get_backend()).slow_dispatch
    assert got["ran_on"] == ("numpy" if slow else be.get_backend())
    assert be.backend_of(got["power"]) == be.get_backend()
    assert got["power"].dtype == be.float_dtype()
    assert be.backend_of(got["pair"][1]) == be.get_backend()
    assert float(got["pair"][1]) == pytest.approx(0.02, rel=1e-6)


def test_backend_parameters_run_on_their_backend_with_derivatives(autodiff_backend):
    got = accel.on_host(_power, _Lens(be.parameter(0.02), 1.5))
    assert got["ran_on"] == be.get_backend()
    loss, gradient = value_and_gradient(
        lambda c: accel.on_host(_power, _Lens(c[0], 1.5))["power"], [0.02]
    )
    assert loss == pytest.approx(0.01, rel=1e-12)
    assert gradient[0] == pytest.approx(0.5, rel=1e-12)


def test_paraxial_data_on_the_host_equal_the_backend_evaluation(backend):
    """Host (NumPy, then converted) and backend evaluations of the same Cooke triplet agree."""
    optic = reference_cooke()
    on_host = paraxial(optic)
    assert be.backend_of(on_host.efl) == be.get_backend()
    optic.surfaces[1].geometry.radius = be.asarray(optic.surfaces[1].geometry.radius)
    on_backend = paraxial(optic)  # a backend array in the optic: no host path
    for name in ("efl", "bfl", "epd", "ep_position", "xp_position", "fno", "image_height"):
        a, b = float(getattr(on_host, name)), float(getattr(on_backend, name))
        assert a == pytest.approx(b, rel=1e-13, abs=1e-13), name


def test_index_at_a_number_follows_the_material(autodiff_backend):
    def index(nd):
        n = index_at(Abbe(nd=nd[0], vd=40.0), 0.55)  # a backend nd: evaluated on the backend
        assert be.backend_of(n) == be.get_backend()
        return n

    value, gradient = value_and_gradient(index, [1.6])
    assert gradient[0] != 0.0
    plain = index_at(Abbe(nd=1.6, vd=40.0), 0.55)
    assert be.backend_of(plain) == be.get_backend()
    assert float(plain) == pytest.approx(value, rel=1e-14)


def test_malloc_trim_threshold_setting(monkeypatch):
    monkeypatch.setenv("OPTICS_MALLOC_TRIM_MB", "0")
    assert _allocator.trim_megabytes() == 0
    assert _allocator._tune(0) is False  # 0 leaves malloc alone
    monkeypatch.setenv("OPTICS_MALLOC_TRIM_MB", "99999")
    assert _allocator.trim_megabytes() == 2047  # a C int of bytes
    monkeypatch.delenv("OPTICS_MALLOC_TRIM_MB")
    assert _allocator.trim_megabytes() == _allocator.DEFAULT_TRIM_MB
    monkeypatch.setenv("OPTICS_MALLOC_TRIM_MB", "lots")
    with pytest.raises(ValueError, match="OPTICS_MALLOC_TRIM_MB.*'lots'"):
        _allocator.trim_megabytes()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_the_first_backend_after_accel_sets_the_malloc_thresholds_once():
    code = (
        "from optics import backend as be\n"
        "from optics.accel import allocator as _allocator\n"
        "be.asarray([1.0])\n"
        "print(_allocator._DONE.get('result'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    glibc = _allocator._glibc_mallopt() is not None
    assert out.stdout.strip() == str(glibc)
    off = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "OPTICS_MALLOC_TRIM_MB": "0"},
    )
    assert off.stdout.strip() == "False"
