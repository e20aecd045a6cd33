"""Real-ray tracing against analytic results: Snell, mirrors, plates, failures."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import singlet

from optics import backend as be
from optics.frames import rotation_matrix
from optics.geometry import Standard
from optics.materials import ConstantIndex, Mirror
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths
from optics.trace import trace_rays, trace_surfaces


def _optic(surfaces, epd=10.0, fields=((0.0, 0.0),), stop=1):
    surfaces = [Surface(thickness=math.inf), *surfaces, Surface()]
    surfaces[stop].is_stop = True
    return Optic(
        surfaces, Aperture("epd", epd), Fields("angle", list(fields)), Wavelengths([0.55], 0)
    )


def _value(x):
    return be.to_numpy(x)


def test_plane_parallel_plate_displaces_ray_by_snell_law(backend):
    n, d, angle = 1.5, 10.0, 20.0
    optic = _optic(
        [Surface(Standard(), d, ConstantIndex(n)), Surface(Standard(), 5.0)], fields=[(0.0, angle)]
    )
    path = trace_surfaces(optic, (0.0, 1.0), (0.0, 0.0))
    inside = math.asin(math.sin(math.radians(angle)) / n)
    shift = _value(path[2].y) - _value(path[1].y)
    assert shift == pytest.approx(d * math.tan(inside), rel=1e-12)
    assert _value(path[3].M) == pytest.approx(math.sin(math.radians(angle)), rel=1e-12)


def test_spherical_surface_bends_parallel_ray_by_snell_law(backend):
    radius, n, height = 30.0, 1.6, 4.0
    optic = _optic([Surface(Standard(radius), 20.0, ConstantIndex(n))], epd=2 * height)
    path = trace_surfaces(optic, (0.0, 0.0), (0.0, 1.0))
    incidence = math.asin(height / radius)
    refracted = math.asin(math.sin(incidence) / n)
    assert _value(path[1].y) == pytest.approx(height, rel=1e-13)
    assert _value(path[1].z) == pytest.approx(radius - math.sqrt(radius**2 - height**2), rel=1e-12)
    assert _value(path[1].M) == pytest.approx(-math.sin(incidence - refracted), rel=1e-12)


def test_paraboloid_mirror_focuses_collimated_light_with_equal_paths(backend):
    radius = -100.0
    mirror = Surface(Standard(radius, -1.0), radius / 2, Mirror())
    optic = _optic([mirror], epd=40.0)
    px, py = np.meshgrid(np.linspace(-1, 1, 9), np.linspace(-1, 1, 9))
    inside = px**2 + py**2 <= 1
    rays = trace_rays(optic, (0.0, 0.0), (be.asarray(px[inside]), be.asarray(py[inside])))
    assert bool(be.to_numpy(be.all(rays.valid)))
    np.testing.assert_allclose(_value(rays.x), 0.0, atol=1e-12)
    np.testing.assert_allclose(_value(rays.y), 0.0, atol=1e-12)
    np.testing.assert_allclose(_value(rays.z), radius / 2, atol=1e-12)
    np.testing.assert_allclose(
        _value(rays.N),
        -np.cos(np.arctan(np.hypot(_value(rays.L), _value(rays.M)) / -_value(rays.N))),
        atol=1e-12,
    )
    opd = _value(rays.opd)
    np.testing.assert_allclose(opd, opd[0], atol=1e-10)


def test_total_internal_reflection_marks_ray_invalid_with_finite_values(backend):
    # A steep ray inside glass meeting a plane exit face beyond the critical angle.
    optic = _optic(
        [Surface(Standard(8.0), 6.0, ConstantIndex(1.8)), Surface(Standard(), 5.0)], epd=15.0
    )
    rays = trace_rays(optic, (0.0, 0.0), (0.0, be.asarray([0.0, 0.2, 0.99])))
    valid = _value(rays.valid)
    assert valid.tolist() == [True, True, False]
    assert np.isfinite(_value(rays.x)).all() and np.isfinite(_value(rays.M)).all()


def test_ray_missing_a_sphere_is_invalid_not_nan(backend):
    optic = _optic([Surface(Standard(5.0), 5.0, ConstantIndex(1.5))], epd=14.0)
    rays = trace_rays(optic, (0.0, 0.0), (0.0, be.asarray([0.0, 0.5, 0.9])))
    assert _value(rays.valid).tolist() == [True, True, False]
    assert np.isfinite(_value(rays.y)).all()


def test_semi_diameter_vignettes_rays_outside_it(backend):
    optic = _optic([Surface(Standard(50.0), 5.0, ConstantIndex(1.5), semi_diameter=3.0)], epd=10.0)
    rays = trace_rays(optic, (0.0, 0.0), (0.0, be.asarray([0.0, 0.5, 0.7])))
    assert _value(rays.valid).tolist() == [True, True, False]


def test_rotation_matrix_is_rz_ry_rx_product_in_degrees(backend):
    rx, ry, rz = 10.0, -25.0, 40.0

    def rot(axis, degrees):
        c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
        return {
            "x": np.array([[1, 0, 0], [0, c, -s], [0, s, c]]),
            "y": np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]]),
            "z": np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]]),
        }[axis]

    want = rot("z", rz) @ rot("y", ry) @ rot("x", rx)
    got = np.array([[float(_value(v)) for v in row] for row in rotation_matrix(rx, ry, rz)])
    np.testing.assert_allclose(got, want, atol=1e-15)


def test_fold_mirror_tilted_45_degrees_sends_axial_ray_along_plus_y(backend):
    fold = Surface(Standard(), -10.0, Mirror(), tilt=(45.0, 0.0, 0.0))
    optic = _optic([fold], epd=2.0)
    path = trace_surfaces(optic, (0.0, 0.0), (0.0, 0.0))
    after = path[1]
    np.testing.assert_allclose(
        [_value(after.L), _value(after.M), _value(after.N)], [0, 1, 0], atol=1e-15
    )


def test_decentered_surface_equals_shifted_rays_through_centred_one(backend):
    dy = 0.7
    decentered = _optic([Surface(Standard(20.0), 30.0, ConstantIndex(1.5), decenter=(0.0, dy))])
    centred = _optic([Surface(Standard(20.0), 30.0, ConstantIndex(1.5))])
    py = be.asarray([-0.8, -0.3, 0.0, 0.4, 0.9])
    a = trace_surfaces(decentered, (0.0, 0.0), (0.0, py))[1]
    b = trace_surfaces(centred, (0.0, 0.0), (0.0, py - dy / 5.0))[1]
    np.testing.assert_allclose(_value(a.y) - dy, _value(b.y), atol=1e-13)
    np.testing.assert_allclose(_value(a.M), _value(b.M), atol=1e-14)


def test_rotation_about_axis_leaves_a_sphere_unchanged(backend):
    plain = _optic(
        [Surface(Standard(20.0), 30.0, ConstantIndex(1.5))], fields=[(0.0, 0.0), (3.0, 5.0)]
    )
    rotated = _optic(
        [Surface(Standard(20.0), 30.0, ConstantIndex(1.5), tilt=(0.0, 0.0, 33.0))],
        fields=[(0.0, 0.0), (3.0, 5.0)],
    )
    px = be.asarray([0.0, 0.5, -0.3])
    a = trace_rays(plain, (0.5, 0.8), (px, px * 0.5))
    b = trace_rays(rotated, (0.5, 0.8), (px, px * 0.5))
    for key in ("x", "y", "z", "L", "M", "N"):
        np.testing.assert_allclose(_value(getattr(a, key)), _value(getattr(b, key)), atol=1e-13)


def test_image_position_gradient_matches_central_differences(torch_backend):
    def image_y(radius):
        optic = singlet(radius1=radius)
        return trace_rays(optic, (0.0, 1.0), (0.0, 0.7)).y

    radius = be.parameter(50.0)
    y = image_y(radius)
    y.backward()
    autograd = float(be.to_numpy(radius.grad))
    fd = {}
    for h in (1e-3, 5e-4):
        fd[h] = float(be.to_numpy(image_y(50.0 + h) - image_y(50.0 - h))) / (2 * h)
    assert fd[1e-3] == pytest.approx(fd[5e-4], rel=1e-6)
    assert autograd == pytest.approx(fd[5e-4], rel=1e-7)
