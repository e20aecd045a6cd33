"""The closed-form conic intersection returns the vertex-sheet root for any start point.

Every expected distance is solved by hand in the test: an axis-parallel ray at
height h meets the vertex sheet at the sag z = c h² / (1 + √(1 − (1+k) c² h²)),
so t = (sag − z0) / N; an oblique ray is built backwards from a chosen point
on the vertex sheet, so its distance is the one it was built with.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from optics import backend as be
from optics import paraxial
from optics.geometry import Standard
from optics.geometry.aspheres import EvenAsphere
from optics.geometry.conic import conic_intersect
from optics.geometry.newton_base import NewtonRaphsonGeometry
from optics.materials import ConstantIndex
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths
from optics.trace import trace_surfaces


def _sag(radius, conic, h):
    c = 1.0 / radius
    return c * h * h / (1.0 + math.sqrt(1.0 - (1.0 + conic) * c * c * h * h))


def _parallel(radius, conic, heights, z0, n):
    """Rays parallel to the axis at ``heights`` from z0, N = n (±1), and their hand-solved t."""
    h = np.asarray(heights, dtype=float)
    expected = np.array([(_sag(radius, conic, v) - z0) / n for v in h])
    zero = np.zeros_like(h)
    rays = (h * 0.6, h * 0.8, zero + z0, zero, zero, zero + n)
    return rays, expected


def _built(radius, conic, hit_heights, tilts_deg, distance, n_sign):
    """Rays that pass through chosen vertex-sheet points (r, 0, sag(r)) after ``distance`` mm.

    The direction (sin θ, 0, ±cos θ) crosses the sheet the way the travel
    direction does, so the wanted root is t = distance by construction.
    """
    rays, expected = [], []
    for r in hit_heights:
        for tilt in tilts_deg:
            th = math.radians(tilt)
            d = (math.sin(th), 0.0, n_sign * math.cos(th))
            hit = (r, 0.0, _sag(radius, conic, r))
            c = 1.0 / radius
            slope = c * r / math.sqrt(1.0 - (1.0 + conic) * c * c * r * r)  # dz/dx at the hit
            assert n_sign * (d[2] - slope * d[0]) > 0, "the ray must cross the sheet forward"
            rays.append([hit[i] - distance * d[i] for i in range(3)] + list(d))
            expected.append(distance)
    columns = np.array(rays).T
    return tuple(columns), np.array(expected)


def _intersect(radius, conic, rays):
    geometry = Standard(radius, conic)
    t, hit = geometry.intersect(*(be.asarray(a) for a in rays))
    return be.to_numpy(t), be.to_numpy(hit)


def _check(radius, conic, rays, expected):
    t, hit = _intersect(radius, conic, rays)
    assert hit.all()
    np.testing.assert_allclose(t, expected, rtol=0, atol=1e-12 * max(1.0, np.abs(expected).max()))
    # and the hit point lies on the surface: F = c r² + (1+k) c z² − 2 z = 0
    x, y, z, L, M, N = rays
    c = 1.0 / radius
    xh, yh, zh = x + t * L, y + t * M, z + t * N
    residual = c * (xh**2 + yh**2) + (1 + conic) * c * zh**2 - 2 * zh
    assert np.abs(residual).max() < 1e-12


@pytest.mark.parametrize("n", [1.0, -1.0])
def test_sphere_rays_starting_beyond_the_centre_of_curvature(backend, n):
    # R = 20: the centre is at z = 20; the start plane z0 = 30 lies beyond it.
    rays, expected = _parallel(20.0, 0.0, [0.0, 1.0, 5.0, 12.0, 19.0], 30.0, n)
    _check(20.0, 0.0, rays, expected)
    rays, expected = _built(20.0, 0.0, [0.0, 4.0, 10.0], [-25.0, 0.0, 10.0, 30.0], -45.0 * n, n)
    _check(20.0, 0.0, rays, expected)


@pytest.mark.parametrize("n", [1.0, -1.0])
def test_sphere_rays_starting_before_the_vertex_are_unchanged(backend, n):
    rays, expected = _parallel(-35.0, 0.0, [0.0, 2.0, 9.0, 30.0], -10.0 * n, n)
    _check(-35.0, 0.0, rays, expected)


def test_hyperbolic_mirror_hit_by_rays_travelling_minus_z(backend):
    # A Cassegrain-like convex secondary: R = -100, k = -3, centre of the hyperboloid
    # at z = 1 / ((1+k) c) = 50; the rays come back from z0 = 200, beyond it.
    rays, expected = _parallel(-100.0, -3.0, [0.0, 3.0, 10.0, 25.0], 200.0, -1.0)
    _check(-100.0, -3.0, rays, expected)
    rays, expected = _built(-100.0, -3.0, [0.0, 8.0, 20.0], [-8.0, 0.0, 5.0], 180.0, -1.0)
    _check(-100.0, -3.0, rays, expected)


def test_concave_hyperbolic_primary_both_directions(backend):
    # R = -400, k = -1.2 (Ritchey–Chrétien primary); rays from the left and from the secondary.
    for z0, n in ((-50.0, 1.0), (150.0, -1.0), (2500.0, -1.0)):
        rays, expected = _parallel(-400.0, -1.2, [0.0, 20.0, 60.0], z0, n)
        _check(-400.0, -1.2, rays, expected)


def test_curved_image_surface_behind_an_eye_lens(backend):
    # Retina R = -12 mm: the centre is 12 mm in front of the vertex; rays start 16 mm in front.
    rays, expected = _parallel(-12.0, 0.0, [0.0, 3.0, 8.0, 11.5], -16.0, 1.0)
    _check(-12.0, 0.0, rays, expected)
    rays, expected = _built(-12.0, 0.0, [0.0, 5.0, 10.0], [-10.0, 0.0, 20.0, 35.0], 16.0, 1.0)
    _check(-12.0, 0.0, rays, expected)


@pytest.mark.parametrize("conic", [-0.5, 0.6])
@pytest.mark.parametrize("n", [1.0, -1.0])
def test_ellipsoid_from_inside(backend, conic, n):
    # Prolate (k = -0.5) and oblate (k = 0.6) ellipsoids, R = 10; the rays start at the
    # centre z = 1 / ((1+k) c): the vertex-sheet root is behind them when travelling +z.
    centre = 10.0 / (1.0 + conic)
    rays, expected = _parallel(10.0, conic, [0.0, 2.0, 5.0], centre, n)
    _check(10.0, conic, rays, expected)
    rays, expected = _built(10.0, conic, [0.0, 3.0], [-20.0, 15.0], -centre * n, n)
    _check(10.0, conic, rays, expected)


def test_paraboloid_axis_parallel_rays_from_far_away(backend):
    rays, expected = _parallel(-200.0, -1.0, [0.0, 10.0, 80.0], 5000.0, -1.0)
    _check(-200.0, -1.0, rays, expected)


def test_rays_that_meet_only_the_far_sheet_are_rejected(backend):
    # Sphere R = 20 (centre z = 20): a steep line through (0, 0, 35) meets it at
    # t = -15 cos θ ± √(225 cos² θ + 175), z = 32.2 and 36.9, both on the far hemisphere.
    th = math.radians(80.0)
    for n in (1.0, -1.0):
        rays = tuple(np.array([v]) for v in (0.0, 0.0, 35.0, math.sin(th), 0.0, n * math.cos(th)))
        _, hit = _intersect(20.0, 0.0, rays)
        assert not hit.any()
    # Hyperboloid c = 0.01, k = -3: the far sheet's vertex is z = 2 / ((1+k) c) = -100;
    # a line across its tip, x from -5 to 5 at z ≈ -101, meets only that sheet.
    th = math.radians(85.0)
    rays = tuple(np.array([v]) for v in (-5.0, 0.0, -101.0, math.sin(th), 0.0, math.cos(th)))
    _, hit = _intersect(100.0, -3.0, rays)
    assert not hit.any()
    # A line that misses the sphere altogether.
    rays = tuple(np.array([v]) for v in (30.0, 0.0, 0.0, 0.0, 0.0, 1.0))
    t, hit = _intersect(20.0, 0.0, rays)
    assert not hit.any() and np.isfinite(t).all()


def test_near_plane_curvature_gives_the_plane_distance(backend):
    rays = tuple(np.array([v]) for v in (1.0, 2.0, -7.0, 0.1, 0.2, math.sqrt(0.95)))
    t, hit = _intersect(1e13, 0.0, rays)
    assert hit.all()
    assert t[0] == pytest.approx(7.0 / math.sqrt(0.95), rel=1e-12)


def _torch_t(radius, conic, rays):
    r, k = be.parameter(radius), be.parameter(conic)
    t, hit = conic_intersect(1.0 / r, k, *(be.asarray(a) for a in rays))
    return t, hit, r, k


@pytest.mark.parametrize(
    ("radius", "conic", "z0", "n"),
    [
        (20.0, -0.3, 30.0, 1.0),
        (-100.0, -3.0, 200.0, -1.0),
        (-12.0, 0.4, -16.0, 1.0),
        (50.0, -2.0, -5.0, 1.0),
    ],
)
def test_distance_gradient_matches_central_differences(torch_backend, radius, conic, z0, n):
    rays, _ = _parallel(radius, conic, [0.5, 3.0], z0, n)
    x, y, z, _, _, n_ = rays
    rays = (x, y + 0.3, z, x * 0 + 0.05, x * 0, n_ * math.sqrt(1 - 0.05**2))
    t, hit, r, k = _torch_t(radius, conic, rays)
    assert bool(be.all(hit))
    be.sum(t).backward()
    autograd = {"radius": float(be.to_numpy(r.grad)), "conic": float(be.to_numpy(k.grad))}

    def total(rr, kk):
        tt, _ = conic_intersect(1.0 / rr, kk, *(be.asarray(a) for a in rays))
        return float(be.to_numpy(be.sum(tt)))

    for name, scale in (("radius", abs(radius)), ("conic", 1.0)):
        fd = {}
        for h in (1e-4 * scale, 5e-5 * scale):
            dr, dk = (h, 0.0) if name == "radius" else (0.0, h)
            plus, minus = total(radius + dr, conic + dk), total(radius - dr, conic - dk)
            fd[h] = (plus - minus) / (2 * h)
        first, second = fd.values()
        assert first == pytest.approx(second, rel=1e-5, abs=1e-9), name
        assert autograd[name] == pytest.approx(second, rel=1e-6, abs=1e-9), name


def test_gradients_are_finite_for_misses_and_zero_for_rejected_rays(torch_backend):
    th = math.radians(80.0)
    rays = (
        np.array([3.0, 30.0, 0.0]),  # a regular hit, a miss, a far-sheet-only line
        np.zeros(3),
        np.array([-10.0, 0.0, 35.0]),
        np.array([0.0, 0.0, math.sin(th)]),
        np.zeros(3),
        np.array([1.0, 1.0, math.cos(th)]),
    )
    t, hit, r, k = _torch_t(20.0, 0.0, rays)
    assert be.to_numpy(hit).tolist() == [True, False, False]
    assert np.isfinite(be.to_numpy(be.detach(t))).all()
    be.sum(t).backward()
    assert np.isfinite(float(be.to_numpy(r.grad)))
    t, hit, r, k = _torch_t(20.0, 0.0, rays)
    be.sum(be.where(hit, t, 0.0)).backward()
    masked = float(be.to_numpy(r.grad))
    t, _, r, _ = _torch_t(20.0, 0.0, tuple(a[:1] for a in rays))
    be.sum(t).backward()
    # The rejected rays add exactly nothing (the hit ray's own dt/dR is not 0).
    assert masked == float(be.to_numpy(r.grad)) != 0.0


@pytest.mark.parametrize(("z0", "n"), [(30.0, 1.0), (30.0, -1.0), (-5.0, 1.0)])
def test_newton_surface_seeded_by_the_base_conic_starting_beyond_the_centre(backend, z0, n):
    # An even asphere without terms intersects exactly like its base conic.
    rays, expected = _parallel(20.0, -0.4, [0.0, 3.0, 9.0], z0, n)
    geometry = EvenAsphere(20.0, -0.4, [])
    assert isinstance(geometry, NewtonRaphsonGeometry)
    t, hit = geometry.intersect(*(be.asarray(a) for a in rays))
    assert bool(be.all(hit))
    np.testing.assert_allclose(be.to_numpy(t), expected, rtol=0, atol=1e-11)


def test_launch_plane_beyond_the_first_centre_of_curvature(backend):
    # A weak meniscus with its stop 30 mm behind it: the entrance pupil (where an object at
    # infinity launches its rays) lies beyond surface 1's centre of curvature (R = 20),
    # so every ray meets surface 1 at a negative distance.  Axis-parallel rays must land
    # on the sag z = R - sqrt(R² - h²).
    optic = Optic(
        [
            Surface(thickness=math.inf),
            Surface(Standard(20.0), 4.0, ConstantIndex(1.5)),
            Surface(Standard(25.0), 30.0),
            Surface(Standard(), 20.0, is_stop=True),
            Surface(),
        ],
        Aperture("epd", 10.0),
        Fields("angle", [(0.0, 0.0)]),
        Wavelengths([0.55], 0),
    )
    assert float(be.to_numpy(paraxial(optic).ep_position)) > 20.0
    py = np.array([0.0, 0.3, -0.6, 1.0])
    path = trace_surfaces(optic, (0.0, 0.0), (0.0, be.asarray(py)))
    assert be.to_numpy(path[-1].valid).all()
    h = be.to_numpy(path[1].y)
    np.testing.assert_allclose(be.to_numpy(path[1].z), 20.0 - np.sqrt(400.0 - h * h), atol=1e-13)
    assert np.abs(h).max() > 2.0
