"""A sphere or conic hit from far away (a finite object metres in front): no lost digits.

From a start 20 m away, b² and a·g of the intersection quadratic are ~1e9
times larger than their difference; solved from there in float64 the hit
point was off by ~1e-9 mm, enough to stall real aiming's Newton (the
residual floor above its tolerance).  The intersection is now solved from
the ray's point on the tangent plane.  Measured without a reference solve:
the hit point's distance from the surface, |F| / |∇F| with F the conic's
implicit function, evaluated in NumPy's extended precision (64-bit mantissa
on x86) along the float64 ray.
"""

from __future__ import annotations

import numpy as np
import pytest

from optics.geometry.conic import conic_intersect

pytestmark = pytest.mark.skipif(
    np.finfo(np.longdouble).eps > 1e-18, reason="needs an extended-precision long double"
)


def _distance_from_surface(c, k, x, y, z, L, M, N, t):
    """|F| / |grad F| at the point t along the ray, F = c (x² + y² + (1+k) z²) − 2 z."""
    c, k, x, y, z, L, M, N, t = (
        np.asarray(v, dtype=np.longdouble) for v in (c, k, x, y, z, L, M, N, t)
    )
    X, Y, Z = x + t * L, y + t * M, z + t * N
    F = c * (X * X + Y * Y + (1 + k) * Z * Z) - 2 * Z
    grad = np.sqrt((2 * c * X) ** 2 + (2 * c * Y) ** 2 + (2 * (1 + k) * c * Z - 2) ** 2)
    return np.abs(F / grad).astype(float)


@pytest.mark.parametrize("radius, conic", [(22.0, 0.0), (-40.0, 0.0), (30.0, -0.6)])
@pytest.mark.parametrize("distance", [2.0e4, 1.0e6])
def test_far_start_hits_the_surface_to_round_off(radius, conic, distance):
    rng = np.random.default_rng(3)
    target = rng.uniform(-5.0, 5.0, (2, 64))  # points near the vertex, mm
    start = np.array([-0.36 * distance, 0.1 * distance, -distance])  # a field 20° off axis
    d = np.stack([target[0] - start[0], target[1] - start[1], np.full(64, distance)])
    L, M, N = d / np.linalg.norm(d, axis=0)
    x, y, z = (np.full(64, v) for v in start)
    t, hit = conic_intersect(1.0 / radius, conic, x, y, z, L, M, N)
    assert np.all(hit)
    # A position error of a few round-offs of the start's distance is inevitable (the
    # start itself carries it); solved from the far start it was ~1e3 times more.
    miss = _distance_from_surface(1.0 / radius, conic, x, y, z, L, M, N, t)
    assert miss.max() < 4 * np.finfo(float).eps * distance


def test_real_aiming_from_20_m_converges_without_continuation(monkeypatch):
    import optics
    from optics.io import optic_from_dict, optic_to_dict
    from optics.trace import _aim_solve

    spec = optic_to_dict(optics.load("cooke_triplet"))
    spec["surfaces"][0]["thickness"] = 2.0e4  # the object 20 m in front, angle fields
    optic = optic_from_dict(spec, "cooke_at_20m.toml")

    def no_rescue(*args, **kwargs):
        raise AssertionError("the direct Newton left rays to the continuation")

    monkeypatch.setattr(_aim_solve, "_continue", no_rescue)
    bundle = optics.trace_bundle(optic, pupil=6, aiming="real")
    assert bool(np.all(np.asarray(bundle.rays.valid)))
