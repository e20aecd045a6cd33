"""Every Newton–Raphson surface type: sag vs slopes, lens files, traces on both backends."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from _newton_cases import NAMES, as_backend, make, ray_batch, singlet_with

from optics import backend as be
from optics import paraxial
from optics.errors import LensFileError
from optics.geometry import GEOMETRY_TYPES, Standard
from optics.geometry.newton_types import (
    NEWTON_TYPES,
    QBFS,
    Biconic,
    Chebyshev,
    EvenAsphere,
    OddAsphere,
    Toroidal,
)
from optics.io import optic_from_dict, optic_to_dict
from optics.trace import trace_rays

LENS_FILE_TYPES = (
    "even_asphere",
    "odd_asphere",
    "xy_polynomial",
    "chebyshev",
    "zernike",
    "qbfs",
    "q2d",
    "biconic",
    "toroidal",
)
STEPS = (1e-4, 5e-5)


def _points():
    grid = np.linspace(-7.0, 7.0, 7)
    x, y = (a.ravel() for a in np.meshgrid(grid, grid * 0.9 + 0.1))
    return x, y


def _max_error(a, b):
    return float(np.max(np.abs(be.to_numpy(a) - be.to_numpy(b))))


def test_every_lens_file_type_is_registered_with_the_newton_keys():
    for name in LENS_FILE_TYPES:
        cls = GEOMETRY_TYPES[name]
        assert cls in NEWTON_TYPES
        assert {"radius", "conic", "tol", "max_iter"} <= set(cls.spec_keys)


@pytest.mark.parametrize("name", NAMES)
def test_slopes_match_finite_differences_of_the_sag(name, backend):
    geometry = make(name)
    x, y = (be.asarray(v) for v in _points())
    _, sx, sy = geometry.sag_and_gradient(x, y)
    errors = []
    for h in STEPS:
        fx = (geometry.sag(x + h, y) - geometry.sag(x - h, y)) / (2 * h)
        fy = (geometry.sag(x, y + h) - geometry.sag(x, y - h)) / (2 * h)
        errors.append(max(_max_error(fx, sx), _max_error(fy, sy)))
    roundoff = 100 * be.machine_eps(x) * 10.0 / min(STEPS)
    assert errors[0] < 1e-7
    assert errors[1] <= 0.3 * errors[0] + roundoff, errors


@pytest.mark.parametrize("name", NAMES)
def test_intersection_lands_on_the_surface_within_the_tolerance(name, backend):
    geometry = make(name)
    x, y, z, L, M, N = as_backend(ray_batch())
    t, hit = geometry.intersect(x, y, z, L, M, N)
    assert bool(be.all(hit))
    residual = geometry.sag(x + t * L, y + t * M) - (z + t * N)
    assert float(be.max(be.abs(residual))) <= geometry.tol


@pytest.mark.parametrize("name", NAMES)
def test_normal_from_the_solve_equals_the_normal_of_the_sag(name, backend):
    geometry = make(name)
    x, y, z, L, M, N = as_backend(ray_batch())
    t, _, normal = geometry.intersect_with_normal(x, y, z, L, M, N)
    xh, yh, zh = x + t * L, y + t * M, z + t * N
    for got, expected in zip(normal(xh, yh, zh), geometry.normal(xh, yh, zh)):
        assert _max_error(got, expected) < 1e-15
    nz = be.to_numpy(normal(xh, yh, zh)[2])
    assert np.all(nz < 0)


@pytest.mark.parametrize("name", NAMES)
def test_traces_agree_between_numpy_and_torch(name):
    pytest.importorskip("torch")
    results = {}
    for backend_name in ("numpy", "torch"):
        with be.using(backend_name, precision="float64"), be.no_grad():
            optic = singlet_with(make(name))
            rays = trace_rays(optic, (0.3, 1.0), _pupil())
            results[backend_name] = rays.to_numpy()
    for key in ("x", "y", "z", "L", "M", "N", "opd"):
        np.testing.assert_allclose(results["torch"][key], results["numpy"][key], rtol=0, atol=1e-12)
    assert np.array_equal(results["torch"]["valid"], results["numpy"]["valid"])
    assert results["numpy"]["valid"].all()


@pytest.mark.parametrize("name", NAMES)
def test_a_grad_recording_trace_matches_numpy_at_round_off_tolerance(name):
    pytest.importorskip("torch")
    results = {}
    for backend_name in ("numpy", "torch"):
        with be.using(backend_name, precision="float64"):
            geometry = make(name)
            geometry.tol = 0.0  # solved to round-off: the implicit correction moves nothing
            rays = trace_rays(singlet_with(geometry), (0.3, 1.0), _pupil())
            results[backend_name] = rays.to_numpy()
    for key in ("x", "y", "z", "L", "M", "N"):
        np.testing.assert_allclose(results["torch"][key], results["numpy"][key], rtol=0, atol=1e-12)


def _pupil():
    from optics.sampling import hexapolar

    return hexapolar(4)


@pytest.mark.parametrize("name", NAMES)
def test_paraxial_data_see_only_the_base_radius(name, backend):
    geometry = make(name)
    first_order = paraxial(singlet_with(geometry))
    reference = paraxial(singlet_with(Standard(geometry.radius)))
    assert float(first_order.efl) == pytest.approx(float(reference.efl), rel=1e-15)


@pytest.mark.parametrize("name", NAMES)
def test_lens_file_round_trip_keeps_the_surface(name, backend):
    optic = singlet_with(make(name))
    again = optic_from_dict(optic_to_dict(optic))
    x, y = (be.asarray(v) for v in _points())
    for a, b in zip(
        optic.surfaces[1].geometry.sag_and_gradient(x, y),
        again.surfaces[1].geometry.sag_and_gradient(x, y),
    ):
        assert _max_error(a, b) == 0.0
    assert type(again.surfaces[1].geometry) is type(optic.surfaces[1].geometry)


def test_tol_and_max_iter_are_read_from_the_lens_file():
    geometry = EvenAsphere.from_spec(
        {"radius": 20.0, "coefficients": [1e-4], "tol": 1e-12, "max_iter": 7}, "surface 1"
    )
    assert (geometry.tol, geometry.max_iter) == (1e-12, 7)
    assert EvenAsphere.from_spec({"radius": 20.0}, "s").tol == 1e-10
    assert EvenAsphere.from_spec({"radius": 20.0}, "s").max_iter == 100


@pytest.mark.parametrize(
    "cls, spec, key",
    [
        (EvenAsphere, {"radius": 20.0, "coefficients": "1e-4"}, "coefficients"),
        (EvenAsphere, {"radius": 20.0, "max_iter": 2.5}, "max_iter"),
        (EvenAsphere, {"radius": 20.0, "tol": -1.0}, "tol"),
        (EvenAsphere, {"radius": 0.0}, "radius"),
        (
            Chebyshev,
            {"radius": 20.0, "coefficients": [[1.0, 2.0], [3.0]], "norm_x": 1.0, "norm_y": 1.0},
            "coefficients",
        ),
        (
            Chebyshev,
            {"radius": 20.0, "coefficients": [[1.0]], "norm_x": -1.0, "norm_y": 1.0},
            "norm_x",
        ),
        (
            GEOMETRY_TYPES["zernike"],
            {"coefficients": [0.0] * 38, "norm_radius": 5.0, "ordering": "fringe"},
            "coefficients",
        ),
        (
            GEOMETRY_TYPES["zernike"],
            {"coefficients": [0.1], "norm_radius": 5.0, "ordering": "ansi"},
            "ordering",
        ),
        (
            GEOMETRY_TYPES["q2d"],
            {"coefficients": [{"type": "b", "m": 0, "n": 0, "value": 1.0}], "norm_radius": 5.0},
            "coefficients[0]",
        ),
        (
            GEOMETRY_TYPES["q2d"],
            {"coefficients": [{"type": "a", "m": 1, "n": 0}], "norm_radius": 5.0},
            "coefficients[0]",
        ),
        (QBFS, {"terms": [0.1], "norm_radius": 0.0}, "norm_radius"),
    ],
)
def test_bad_lens_file_values_name_the_surface_and_key(cls, spec, key):
    with pytest.raises(LensFileError, match=rf"surface 3.*{key.split('[')[0]}"):
        cls.from_spec(spec, "surface 3")


def test_odd_asphere_slope_and_its_autograd_are_finite_at_the_vertex(torch_backend):
    import torch

    geometry = OddAsphere(20.0, 0.0, [1e-2, 1e-3, 1e-4])
    x = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    y = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    z, sx, sy = geometry.sag_and_gradient(x, y)
    assert [float(v.detach()) for v in (z, sx, sy)] == [0.0, 0.0, 0.0]
    (sx + sy + z).sum().backward()
    assert torch.isfinite(x.grad).all() and torch.isfinite(y.grad).all()


def test_forbes_departure_is_zero_beyond_the_normalization_radius(backend):
    geometry = QBFS(30.0, -0.3, [0.01, -0.002], norm_radius=5.0)
    conic = QBFS(30.0, -0.3, [], norm_radius=5.0)
    x = be.asarray([5.5, 7.0, 0.0])
    y = be.asarray([0.0, 3.0, 6.0])
    for a, b in zip(geometry.sag_and_gradient(x, y), conic.sag_and_gradient(x, y)):
        assert _max_error(a, b) == 0.0


def test_biconic_with_equal_sections_is_the_standard_conic(backend):
    x, y = (be.asarray(v) for v in _points())
    biconic = Biconic(25.0, -0.7, radius_x=25.0, conic_x=-0.7)
    for a, b in zip(biconic.sag_and_gradient(x, y), Standard(25.0, -0.7).sag_and_gradient(x, y)):
        assert _max_error(a, b) < 1e-14


def test_a_toroid_rotated_about_its_centre_of_curvature_is_a_sphere(backend):
    x, y = (be.asarray(v) for v in _points())
    toroid = Toroidal(25.0, 0.0, radius_rotation=25.0)
    for a, b in zip(toroid.sag_and_gradient(x, y), Standard(25.0).sag_and_gradient(x, y)):
        assert _max_error(a, b) < 1e-13


def test_an_asphere_without_terms_intersects_like_the_closed_form_conic(backend):
    x, y, z, L, M, N = as_backend(ray_batch())
    t, hit = EvenAsphere(25.0, -0.5, []).intersect(x, y, z, L, M, N)
    t_conic, hit_conic = Standard(25.0, -0.5).intersect(x, y, z, L, M, N)
    assert _max_error(t, t_conic) < 1e-13
    assert bool(be.all(hit)) and bool(be.all(hit_conic))


def test_rays_outside_the_chebyshev_square_are_invalid_and_counted(backend):
    geometry = Chebyshev(-20.0, 0.0, [[0.0, 0.001], [0.001, 0.0]], norm_x=4.0, norm_y=4.0)
    x = be.asarray([0.0, 3.0, 5.0, -6.0])
    zeros = be.zeros_like(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t, hit = geometry.intersect(x, zeros, zeros - 2.0, zeros, zeros, zeros + 1.0)
    assert be.to_numpy(hit).tolist() == [True, True, False, False]
    assert np.all(np.isfinite(be.to_numpy(t)))
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "outside_domain=2" in messages[0]


def test_a_plane_based_surface_seeds_from_the_vertex_plane(backend):
    geometry = GEOMETRY_TYPES["xy_polynomial"](math.inf, 0.0, [[0.0, 0.0, 1e-3], [0.0], [1e-3]])
    x, y, z, L, M, N = as_backend(ray_batch())
    t, hit = geometry.intersect(x, y, z, L, M, N)
    residual = geometry.sag(x + t * L, y + t * M) - (z + t * N)
    assert bool(be.all(hit)) and float(be.max(be.abs(residual))) <= 1e-10


@pytest.mark.parametrize("name", NAMES)
def test_sag_slopes_and_their_autograd_are_finite_at_the_vertex(name, torch_backend):
    import torch

    x = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    y = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    values = make(name).sag_and_gradient(x, y)
    assert all(bool(torch.isfinite(v).all()) for v in values)
    sum(v.sum() for v in values).backward()
    assert torch.isfinite(x.grad).all() and torch.isfinite(y.grad).all()
