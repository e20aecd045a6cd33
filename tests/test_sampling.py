"""Pupil samplers: the points they promise, in the working dtype of the configured backend."""

from __future__ import annotations

import numpy as np
import pytest

from optics import backend as be
from optics import sampling


@pytest.mark.parametrize(
    ("sampler", "count"),
    [
        (lambda: sampling.hexapolar(3), 1 + 3 * 3 * 4),
        (lambda: sampling.grid(8), None),
        (lambda: sampling.random(50), 50),
        (lambda: sampling.fan(11, "x"), 11),
        (lambda: sampling.fan(11, "y"), 11),
    ],
)
def test_every_sampler_returns_the_working_dtype(precision, sampler, count):
    px, py = sampler()
    for values in (px, py):
        assert values.dtype == be.float_dtype()
        assert be.to_numpy(values).dtype == np.dtype(precision)
    radius = np.hypot(be.to_numpy(px).astype(float), be.to_numpy(py).astype(float))
    assert radius.max() <= 1 + 4 * be.machine_eps(px)
    if count is not None:
        assert be.size(px) == count


def test_hexapolar_rings_lie_on_their_circles(backend):
    px, py = sampling.hexapolar(4)
    radius = np.hypot(be.to_numpy(px), be.to_numpy(py))
    start = 1
    for ring in range(1, 5):
        np.testing.assert_allclose(radius[start : start + 6 * ring], ring / 4, rtol=1e-15)
        start += 6 * ring


@pytest.mark.parametrize("rings", [-3, 2.5, True])
def test_hexapolar_refuses_a_bad_ring_count(rings):
    with pytest.raises(ValueError, match="rings"):
        sampling.hexapolar(rings)
