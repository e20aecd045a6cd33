"""Chunked tracing: trace_bundle / spot_diagram in pupil slices equal the one-batch results."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis._spot_stream import hull_candidates
from optics.analysis.spot import spot_diagram
from optics.sampling import hexapolar, hexapolar_count, hexapolar_range
from optics.trace import Streamed, iter_bundle, trace_bundle


def _vignetted_cooke():
    """The Cooke triplet with a stop small enough to vignette part of every field."""
    optic = optics.load("cooke_triplet")
    optic.surfaces[6].semi_diameter = 7.0
    return optic


def test_hexapolar_range_is_a_slice_of_the_pattern():
    for rings in (0, 1, 2, 7, 30):
        px, py = (be.to_numpy(v) for v in hexapolar(rings))
        assert px.size == hexapolar_count(rings)
        # The ring closed form against the pattern's definition, ring by ring.
        radius = np.hypot(px, py) * max(rings, 1)
        expected = np.concatenate([[0]] + [np.full(6 * i, i) for i in range(1, rings + 1)])
        np.testing.assert_allclose(radius, expected, atol=1e-12)
        for start, stop in ((0, 1), (1, 7), (5, 40), (px.size - 3, px.size + 10)):
            sx, sy = hexapolar_range(rings, start, stop)
            assert np.array_equal(be.to_numpy(sx), px[start:stop])
            assert np.array_equal(be.to_numpy(sy), py[start:stop])


def test_chunked_bundle_equals_one_batch(backend):
    optic = _vignetted_cooke()
    whole = trace_bundle(optic, pupil=9)
    chunked = trace_bundle(optic, pupil=9, method=Streamed(101, progress=False))
    valid = be.to_numpy(whole.rays.valid)
    assert 0 < valid.sum() < valid.size  # the case vignettes some rays
    for f in dataclasses.fields(whole.rays):
        a, b = (be.to_numpy(getattr(bundle.rays, f.name)) for bundle in (whole, chunked))
        assert a.shape == b.shape
        np.testing.assert_allclose(b[valid], a[valid], rtol=0, atol=1e-12)
    np.testing.assert_array_equal(be.to_numpy(chunked.rays.valid), valid)
    np.testing.assert_allclose(be.to_numpy(chunked.chief.y), be.to_numpy(whole.chief.y), atol=1e-12)
    np.testing.assert_array_equal(
        be.to_numpy(chunked.chief_blocked), be.to_numpy(whole.chief_blocked)
    )


def test_chunked_bundle_with_real_aiming_equals_one_batch():
    optic = optics.load("cooke_triplet")
    whole = trace_bundle(optic, pupil=4, aiming="real")
    chunked = trace_bundle(optic, pupil=4, aiming="real", method=Streamed(50, progress=False))
    valid = be.to_numpy(whole.rays.valid)
    np.testing.assert_array_equal(be.to_numpy(chunked.rays.valid), valid)
    for name in ("x", "y", "L", "M", "opd"):
        a, b = (be.to_numpy(getattr(bundle.rays, name)) for bundle in (whole, chunked))
        np.testing.assert_allclose(b[valid], a[valid], rtol=0, atol=1e-12)


def test_slices_respect_the_budget():
    optic = optics.load("cooke_triplet")
    sizes = [
        be.size(b.px) for b in iter_bundle(optic, pupil=5, method=Streamed(40, progress=False))
    ]
    n_combinations = len(optic.fields.normalized()) * len(optic.wavelengths.values)
    assert max(sizes) * n_combinations <= 40
    assert sum(sizes) == hexapolar_count(5)


@pytest.mark.parametrize("pupil", ["hexapolar", "random"])
def test_chunked_spot_equals_one_batch(backend, pupil):
    optic = _vignetted_cooke()
    rng = np.random.default_rng(3)
    samples = None
    if pupil == "random":
        radius, angle = np.sqrt(rng.random(700)), 2 * np.pi * rng.random(700)
        samples = (be.asarray(radius * np.cos(angle)), be.asarray(radius * np.sin(angle)))
    whole = spot_diagram(optic, pupil=samples)
    chunked = spot_diagram(optic, pupil=samples, method=Streamed(250, progress=False))
    assert len(whole) == len(chunked)
    for a, b in zip(whole, chunked):
        da, db = a.as_dict(), b.as_dict()
        assert da["n_invalid"] == db["n_invalid"] and da["n_rays"] == db["n_rays"]
        assert da["chief_blocked"] == db["chief_blocked"]
        for key in ("rms_radius_chief", "rms_radius_centroid", "geo_radius"):
            assert db[key] == pytest.approx(da[key], abs=1e-12, rel=0)
        assert db["centroid"] == pytest.approx(da["centroid"], abs=1e-12, rel=0)
    assert any(r.n_invalid > 0 for r in whole)


def test_hull_candidates_keep_the_farthest_point_from_anywhere():
    rng = np.random.default_rng(0)
    for shape in ("disk", "square", "line", "few"):
        n = {"few": 5}.get(shape, 20000)
        points = rng.normal(size=(n, 2))
        if shape == "disk":
            points /= np.maximum(1.0, np.linalg.norm(points, axis=1))[:, None]
        elif shape == "square":
            points = rng.random((n, 2))
        elif shape == "line":
            points = np.outer(rng.random(n), [1.0, 2.0])
        kept = points[hull_candidates(points.T, 32)]
        assert len(kept) < max(n, 6) or shape in ("line", "few")
        for center in rng.normal(scale=0.3, size=(20, 2)):
            far = np.max(np.linalg.norm(points - center, axis=1))
            assert np.max(np.linalg.norm(kept - center, axis=1)) == pytest.approx(far, abs=1e-14)
