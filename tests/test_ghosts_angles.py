"""Ghost energies from each ray's own incidence angles (optics/ghosts/_rays_energy.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import singlet

import optics
from optics import backend as be
from optics.coatings import Coating, Layer
from optics.ghosts import ghost_optic, ghost_path, ghost_rays, ghosts, path_energy
from optics.ghosts._rays_energy import ray_fractions
from optics.optimize import gradients

N_GLASS, THETA = 1.5, 40.0


def _fresnel(n1, n2, sin1):
    """(Rs, Rp) of a bare interface from n1 into n2, sin θ1 = ``sin1`` (closed form)."""
    c1 = math.sqrt(1 - sin1**2)
    c2 = math.sqrt(1 - (n1 * sin1 / n2) ** 2)
    rs = (n1 * c1 - n2 * c2) / (n1 * c1 + n2 * c2)
    rp = (n2 * c1 - n1 * c2) / (n2 * c1 + n1 * c2)
    return rs**2, rp**2


def _plate():
    return singlet(math.inf, math.inf, 5.0, N_GLASS, 20.0, 1.0, (0.0, THETA))


def test_on_axis_small_aperture_equals_the_normal_incidence_energy():
    optic = optics.load("achromat")
    optic.aperture.value = 0.2
    report = ghosts(optic, rings=2)
    w = optic.primary_wavelength
    for ghost in report.ghosts:
        normal = path_energy(optic, ghost_path(optic, *ghost.surfaces), w)
        expected = normal["energy"] / normal["primary"]
        assert ghost.energy == pytest.approx(expected, rel=1e-4)


@pytest.mark.parametrize("polarization", ["s", "p", "unpolarized"])
def test_an_oblique_plate_ghost_is_the_closed_form_fresnel_product(polarization):
    optic = _plate()
    w = optic.primary_wavelength
    rays = ghost_rays(optic, (0.0, 1.0), 1, w)
    got = be.to_numpy(
        ray_fractions(
            optic, ghost_optic(optic, 2, 1), ghost_path(optic, 2, 1), rays, w, polarization
        )
    )
    sin_air = math.sin(math.radians(THETA))
    r_in = _fresnel(1.0, N_GLASS, sin_air)  # entering: air -> glass at θ
    r_back = _fresnel(N_GLASS, 1.0, sin_air / N_GLASS)  # inside: glass -> air at θ'
    # T(in at 1) R(2) R(1) T(out at 2), each reflection from inside the glass at θ'.
    s = (1 - r_in[0]) * r_back[0] ** 2 * (1 - r_back[0])
    p = (1 - r_in[1]) * r_back[1] ** 2 * (1 - r_back[1])
    expected = {"s": s, "p": p, "unpolarized": (s + p) / 2}[polarization]
    assert got.shape == (7,)
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    assert s != pytest.approx(p, rel=0.1)  # oblique: s and p differ


def test_a_coated_surface_uses_the_coatings_reflectance_at_the_rays_angle():
    mgf2 = Coating([Layer(1.38, 0.25, "qw")], reference_wavelength=0.55)
    bare, coated = _plate(), _plate()
    coated.surfaces[2].coating = mgf2
    w = bare.primary_wavelength
    rays = ghost_rays(bare, (0.0, 1.0), 1, w)
    args = (ghost_path(bare, 2, 1), rays, w)
    ratio = be.to_numpy(ray_fractions(coated, ghost_optic(coated, 2, 1), *args, "s")) / be.to_numpy(
        ray_fractions(bare, ghost_optic(bare, 2, 1), *args, "s")
    )
    sin_glass = math.sin(math.radians(THETA)) / N_GLASS
    cos_glass = math.sqrt(1 - sin_glass**2)
    # Only surface 2 changed: its reflection (glass -> air) and its exit transmission.
    rs, _ = _fresnel(N_GLASS, 1.0, sin_glass)
    r_c = float(mgf2.reflectance(N_GLASS, 1.0, cos_glass, w, "s"))
    t_c = float(mgf2.transmittance(N_GLASS, 1.0, cos_glass, w, "s"))
    np.testing.assert_allclose(ratio, (r_c * t_c) / (rs * (1 - rs)), rtol=1e-9)
    assert r_c < rs - 1e-3  # the film lowers R at this angle: the coating, not Fresnel, acts


def test_ghost_energy_is_reported_per_field_and_changes_off_axis():
    optic = _plate()
    on = ghosts(optic, field=(0.0, 0.0), rings=1).ghosts[0]
    off = ghosts(optic, field=(0.0, 1.0), rings=1).ghosts[0]
    assert on.energy == pytest.approx(
        path_energy(optic, ghost_path(optic, 2, 1), 0.55)["energy"]
        / path_energy(optic, ghost_path(optic, 2, 1), 0.55)["primary"],
        rel=1e-9,
    )
    assert off.energy > on.energy  # R grows with the angle for unpolarized light at 40°


def _plate_ghost_energy(thickness_nm):
    optic = _plate()
    optic.surfaces[2].coating = Coating([Layer(1.38, thickness_nm)])
    w = optic.primary_wavelength
    rays = ghost_rays(optic, (0.0, 1.0), 1, w)
    path = ghost_path(optic, 2, 1)
    return be.mean(ray_fractions(optic, ghost_optic(optic, 2, 1), path, rays, w))


def _numpy_energy(thickness_nm):
    with be.using("numpy", precision="float64"):
        return float(be.to_numpy(_plate_ghost_energy(thickness_nm)))


def test_ghost_energy_gradient_in_a_coating_thickness(autodiff_backend):
    point = 80.0
    value, (gradient,) = gradients(_plate_ghost_energy, [be.asarray(point)])
    assert abs(float(value) - _numpy_energy(point)) < 1e3 * be.machine_eps(1.0) * abs(float(value))
    gradient = float(gradient)
    errors = []
    for h in (1e-2 * point, 1e-3 * point):
        central = (_numpy_energy(point + h) - _numpy_energy(point - h)) / (2 * h)
        errors.append(abs(central - gradient))
    assert errors[1] < 1e-6 * abs(gradient), errors
    assert errors[1] <= errors[0]
    assert abs(gradient) > 1e-8  # the film thickness matters to the ghost


def _singlet_ghost_energy(radius):
    optic = singlet(radius, -50.0, 5.0, N_GLASS, 47.0, 10.0, (0.0, 5.0))
    w = optic.primary_wavelength
    rays = ghost_rays(optic, (0.0, 1.0), 1, w)
    path = ghost_path(optic, 2, 1)
    return be.mean(ray_fractions(optic, ghost_optic(optic, 2, 1), path, rays, w))


def test_ghost_energy_gradient_in_a_radius(autodiff_backend):
    point = 50.0
    _, (gradient,) = gradients(_singlet_ghost_energy, [be.asarray(point)])
    gradient = float(gradient)

    def numpy_value(r):
        with be.using("numpy", precision="float64"):
            return float(be.to_numpy(_singlet_ghost_energy(r)))

    errors = []
    for h in (1e-2, 1e-3):
        central = (numpy_value(point + h) - numpy_value(point - h)) / (2 * h)
        errors.append(abs(central - gradient))
    assert errors[1] < 1e-5 * abs(gradient), errors
    assert errors[1] <= errors[0]
    assert abs(gradient) > 1e-9  # the angles, hence R and T, follow the curvature
