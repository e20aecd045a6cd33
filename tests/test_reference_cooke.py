"""The reference Cooke triplet matches the established design code's numbers."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import REFERENCE, reference_cooke, reference_expected

from optics import backend as be
from optics import paraxial
from optics.analysis import spot_diagram
from optics.trace import trace_rays

EXPECTED = reference_expected()


def test_paraxial_data_match_reference_to_1e9_relative(backend):
    got = paraxial(reference_cooke()).as_floats()
    for key, want in EXPECTED["paraxial"].items():
        assert got[key] == pytest.approx(want, rel=1e-9, abs=0), key


def test_real_ray_intercepts_match_reference_to_1e9_mm(backend):
    optic = reference_cooke()
    for ray in EXPECTED["rays"]:
        rays = trace_rays(optic, (ray["hx"], ray["hy"]), (ray["px"], ray["py"]), ray["wavelength"])
        assert bool(be.to_numpy(rays.valid))
        for key in ("x", "y", "z", "L", "M", "N"):
            assert float(be.to_numpy(getattr(rays, key))) == pytest.approx(ray[key], abs=1e-9), key


def test_spot_radii_match_reference_to_1e9_relative(backend):
    spots = spot_diagram(reference_cooke(), pupil=6)
    assert len(spots) == len(EXPECTED["spot"])
    for spot, want in zip(spots, EXPECTED["spot"]):
        got = spot.as_dict()
        assert got["field"] == want["field"]
        assert got["n_rays"] == 127 and got["n_invalid"] == 0
        for key in ("rms_radius_chief", "rms_radius_centroid"):
            assert got[key] == pytest.approx(want[key], rel=1e-9), key
        np.testing.assert_allclose(got["centroid"], want["centroid"], atol=1e-9, rtol=0)


def test_numpy_and_torch_traces_agree_to_1e12():
    pytest.importorskip("torch")
    optic = reference_cooke()
    px = np.linspace(-1, 1, 41)
    results = {}
    for name in ("numpy", "torch"):
        with be.using(name):
            rays = trace_rays(optic, (0.0, 0.8), (be.asarray(px), be.asarray(px[::-1] * 0.5)))
            results[name] = rays.to_numpy()
    for key in ("x", "y", "z", "L", "M", "N", "opd"):
        np.testing.assert_allclose(results["numpy"][key], results["torch"][key], rtol=0, atol=1e-12)


def test_reference_lens_file_matches_python_built_optic(backend):
    from optics.io import load

    loaded = load(REFERENCE / "cooke_triplet.toml")
    got = paraxial(loaded).as_floats()
    for key, want in EXPECTED["paraxial"].items():
        assert got[key] == pytest.approx(want, rel=1e-9), key
