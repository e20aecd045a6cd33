"""A ray starting far from a strongly curved surface still lands on the sheet at the vertex."""

from __future__ import annotations

import numpy as np
import pytest

from optics.geometry import Standard


@pytest.mark.parametrize("conic", [0.0, -5.09])
def test_a_ray_from_far_away_hits_the_vertex_sheet_not_the_nearest_root(conic):
    # R = -31.7 (centre of curvature toward the ray), the ray starts 131 mm before the
    # vertex: the nearest root is on the far side of the sphere (or the far hyperboloid
    # sheet), 63 mm before the vertex; the surface is the sheet through the vertex.
    surface = Standard(radius=-31.7, conic=conic)
    x = np.array([0.0, 0.0])
    y = np.array([0.0, 12.0])
    z = np.array([-131.0, -131.0])
    L, M, N = np.zeros(2), np.array([0.0, -0.0788]), np.array([1.0, np.sqrt(1 - 0.0788**2)])
    t, hit = surface.intersect(x, y, z, L, M, N)
    assert np.all(hit)
    zh = z + t * N
    yh = y + t * M
    np.testing.assert_allclose(zh, surface.sag(x + t * L, yh), atol=1e-12)
    assert np.all(np.abs(zh) < 5.0)  # near the vertex, not 63 mm before it


def test_a_ray_reflected_by_a_primary_mirror_hits_the_secondary_near_its_vertex():
    # A Cassegrain secondary (hyperboloid, R = -19.2, k = -3.236) seen from the primary
    # 14.9 mm away: the nearest root is on the far sheet, behind the ray's start.
    surface = Standard(radius=-19.2, conic=-3.236)
    y, z = np.array([10.0]), np.array([14.9])
    M, N = np.array([-0.4179165]), -np.sqrt(1 - np.array([0.4179165]) ** 2)
    t, hit = surface.intersect(np.zeros(1), y, z, np.zeros(1), M, N)
    assert hit[0] and t[0] > 0
    assert abs(z[0] + t[0] * N[0]) < 3.0
