"""A fourth backend registered from outside optics, by the recipe of docs/backend.md alone.

``tests/strict_backend.py`` implements the contract on array-api-strict, a
library with the Array API standard and nothing more.  Registered with
``be.register_backend``, it traces the Cooke triplet and its Chebyshev variant
(Newton surfaces) without gradients to 1e-12 mm of NumPy, and computes spots:
so the contract is complete, and the numerics lean on no NumPy or Torch
behaviour (implicit promotion, in-place writes, flat indexing, non-standard
functions).
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from helpers import cooke_chebyshev

import optics
from optics import backend as be

pytest.importorskip("array_api_strict")
COMPONENTS = ("x", "y", "z", "L", "M", "N", "opd")
DESIGNS = {"cooke": lambda: optics.load("cooke_triplet"), "chebyshev": cooke_chebyshev}


@pytest.fixture
def strict():
    be.register_backend(be.BackendInfo("strict", "strict_backend", requires="array_api_strict"))
    try:
        with be.using("strict", precision="float64"):
            yield "strict"
    finally:
        be.unregister_backend("strict")


def test_the_registered_backend_is_chosen_like_the_built_in_ones(strict):
    assert be.get_backend() == "strict"
    assert "strict" in be.available_backends()
    assert type(be.zeros(3)).__module__.startswith("array_api_strict")


@pytest.mark.filterwarnings("ignore::optics.trace.PupilAimWarning")
@pytest.mark.parametrize("design", sorted(DESIGNS))
def test_rays_on_array_api_strict_equal_numpy(strict, design):
    px, py = np.meshgrid(np.linspace(-1, 1, 9), np.linspace(-1, 1, 9))
    inside = (px * px + py * py <= 1).reshape(-1)
    px, py = px.reshape(-1)[inside], py.reshape(-1)[inside]
    for hy in (0.0, 0.7, 1.0):
        rays = optics.trace_rays(DESIGNS[design](), (0.0, hy), (be.asarray(px), be.asarray(py)))
        assert type(rays.y).__module__.startswith("array_api_strict")
        with be.using("numpy"):
            expected = optics.trace_rays(DESIGNS[design](), (0.0, hy), (px, py))
        assert be.to_numpy(rays.valid).tolist() == np.asarray(expected.valid).tolist()
        for name in COMPONENTS:
            got, want = be.to_numpy(getattr(rays, name)), np.asarray(getattr(expected, name))
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"{name} at {hy}")


@pytest.mark.filterwarnings("ignore::optics.trace.PupilAimWarning")
@pytest.mark.parametrize("design", sorted(DESIGNS))
def test_spot_diagrams_on_array_api_strict_equal_numpy(strict, design):
    spots = optics.spot_diagram(DESIGNS[design]())
    with be.using("numpy"):
        expected = optics.spot_diagram(DESIGNS[design]())
    assert len(spots) == len(expected) == 9
    for got, want in zip(spots, expected):
        assert got.n_rays == want.n_rays and got.n_invalid == want.n_invalid
        assert float(be.item(got.rms_radius_chief)) == pytest.approx(
            float(want.rms_radius_chief), rel=1e-12
        )


def test_a_backend_that_lacks_a_required_name_is_refused_naming_it(monkeypatch):
    import strict_backend

    partial = types.ModuleType("partial_backend")
    for name in dir(strict_backend):
        if name not in ("scatter", "hypot") and not name.startswith("__"):
            setattr(partial, name, getattr(strict_backend, name))
    monkeypatch.setitem(sys.modules, "partial_backend", partial)
    be.register_backend(be.BackendInfo("partial", "partial_backend"))
    try:
        with pytest.raises(be.BackendUnavailableError, match=r"does not define hypot, scatter"):
            with be.using("partial"):
                pass
    finally:
        be.unregister_backend("partial")


def test_the_built_in_backends_define_every_required_name():
    from optics.backend import _contract, _registry

    for name in be.available_backends():
        module = _registry.load(name)
        assert _contract.missing(module, _registry.info(name)) == []


def test_the_layers_above_reach_a_backend_through_capabilities_and_hooks():
    """be.capabilities, be.hook and be.on_backend_load: what optics.accel may ask."""
    import numpy as np

    from optics import backend as be

    assert be.capabilities().name == be.get_backend()
    assert be.capabilities("numpy").ray_block == 2**15
    from optics.backend import _registry
    from optics.backend._hooks import DEFAULTS

    assert be.hook("compiled_stage", np.zeros(2)) == DEFAULTS.compiled_stage  # NumPy: no stages
    assert be.hook("accumulate", np.zeros(2), 1.0) != DEFAULTS.accumulate  # in-place total += term

    seen = []
    hooks = list(_registry.LOAD_HOOKS)
    try:
        be.on_backend_load(seen.append)
        assert "numpy" in seen  # already loaded: called at once
    finally:
        _registry.LOAD_HOOKS[:] = hooks  # the test leaves no hook behind
