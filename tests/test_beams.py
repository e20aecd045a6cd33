"""Gaussian beams: q through the ABCD matrices, angular spectrum, fibre coupling."""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics import Optic, Surface, Wavelengths
from optics import backend as be
from optics.beams import (
    BeamParameter,
    angular_spectrum,
    coordinates,
    fibre_coupling,
    gaussian_field,
    gaussian_overlap,
    mode_parameter,
    overlap_efficiency,
    propagate_beam,
    system_matrices,
)
from optics.errors import ConfigurationError
from optics.geometry import Standard
from optics.materials import MIRROR, ConstantIndex
from optics.optimize import value_and_gradient
from optics.params import replaced
from optics.system import Aperture

WAVELENGTH = 1.064  # µm
FOCAL = 50.0


def _thin_lens(object_distance, image_distance=120.0, index=1.5):
    """A zero-thickness biconvex lens of focal length FOCAL (mm) in air."""
    radius = 2 * (index - 1) * FOCAL
    return Optic(
        [
            Surface(thickness=object_distance),
            Surface(Standard(radius), 0.0, ConstantIndex(index)),
            Surface(Standard(-radius), image_distance),
            Surface(),
        ],
        aperture=Aperture("object_na", 0.01),
        wavelengths=Wavelengths([WAVELENGTH]),
    )


def _self(s, w0, m2=1.0, f=FOCAL):
    """Self's thin-lens formula (S. A. Self, Appl. Opt. 22, 658, 1983): (s'', w0'')."""
    z_r = math.pi * w0**2 / (m2 * WAVELENGTH * 1e-3)
    image = 1 / (1 / f - 1 / (s + z_r**2 / (s - f)))
    magnification = 1 / math.sqrt((1 - s / f) ** 2 + (z_r / f) ** 2)
    return image, magnification * w0


@pytest.mark.parametrize(
    ("s", "w0", "m2"), [(80.0, 0.1, 1.0), (30.0, 0.05, 1.0), (200.0, 0.2, 1.7)]
)
def test_thin_lens_waist_follows_self_s_formula(s, w0, m2):
    beam = propagate_beam(_thin_lens(s), w0, m2=m2)[1]  # after the lens
    image, waist = _self(s, w0, m2)
    assert float(beam.waist_position) == pytest.approx(image, rel=1e-12)
    assert float(beam.waist) == pytest.approx(waist, rel=1e-12)


def test_a_waist_in_the_front_focal_plane_is_imaged_to_the_back_focal_plane():
    # Self's formula at s = f: s'' = f whatever z_R (the Fourier-transform property).
    for w0 in (0.02, 0.3):
        beam = propagate_beam(_thin_lens(FOCAL), w0)[1]
        assert float(beam.waist_position) == pytest.approx(FOCAL, rel=1e-12)
        z_r = math.pi * w0**2 / (WAVELENGTH * 1e-3)
        assert float(beam.waist) == pytest.approx(w0 * FOCAL / z_r, rel=1e-12)


def test_a_concave_mirror_images_the_waist_like_a_lens_of_half_its_radius():
    s, w0 = 90.0, 0.1
    mirror = Optic(
        [Surface(thickness=s), Surface(Standard(-2 * FOCAL), -150.0, MIRROR), Surface()],
        aperture=Aperture("object_na", 0.01),
        wavelengths=Wavelengths([WAVELENGTH]),
    )
    beam = propagate_beam(mirror, w0)[0]
    image, waist = _self(s, w0)
    assert float(beam.waist_position) == pytest.approx(-image, rel=1e-12)  # toward −z
    assert float(beam.waist) == pytest.approx(waist, rel=1e-12)


def test_system_matrix_is_unimodular_and_its_power_is_the_paraxial_one():
    lens = optics.load("double_gauss")
    A, B, C, D = system_matrices(lens)[-2]  # vertex 1 to just after the last lens surface
    assert float(A * D - B * C) == pytest.approx(1.0, abs=1e-12)
    assert float(-1 / C) == pytest.approx(float(optics.paraxial(lens).efl), rel=1e-12)


def test_beam_radius_on_a_surface_is_the_free_space_gaussian_width():
    w0, s = 0.1, 80.0
    radius = float(propagate_beam(_thin_lens(s), w0)[0].radius)  # at the lens, before bending
    z_r = math.pi * w0**2 / (WAVELENGTH * 1e-3)
    assert radius == pytest.approx(w0 * math.sqrt(1 + (s / z_r) ** 2), rel=1e-12)


def _free_space_gaussian(w0, z, count, pitch, wavelength):
    """Siegman's paraxial beam: (q0/q) exp(−ik r²/(2q)) exp(−ikz), q = z + i z_R."""
    k = 2 * math.pi / (wavelength * 1e-3)
    z_r = math.pi * w0**2 / (wavelength * 1e-3)
    x = (np.arange(count) - count // 2) * pitch
    r2 = x[None, :] ** 2 + x[:, None] ** 2
    q = z + 1j * z_r
    return (1j * z_r / q) * np.exp(-1j * k * r2 / (2 * q)) * np.exp(-1j * k * z)


def test_angular_spectrum_of_a_gaussian_is_the_free_space_gaussian(backend):
    w0, count, pitch, z = 0.05, 256, 0.004, 12.0
    waist = BeamParameter(0.0, math.pi * w0**2 / (WAVELENGTH * 1e-3))
    start = gaussian_field(waist, WAVELENGTH, count, pitch)
    field = be.to_numpy(angular_spectrum(start, pitch, WAVELENGTH, z))
    expected = _free_space_gaussian(w0, z, count, pitch, WAVELENGTH)
    # The angular spectrum is exact; the paraxial beam is off by ~ (k w0)^-2 ~ 1e-5.
    assert np.max(np.abs(field - expected)) < 3e-5 * np.max(np.abs(expected))
    there = angular_spectrum(start, pitch, WAVELENGTH, z)
    back = be.to_numpy(angular_spectrum(there, pitch, WAVELENGTH, -z))
    np.testing.assert_allclose(back, be.to_numpy(start), atol=1e-12)


def test_an_evanescent_grating_decays_at_its_analytic_rate():
    count, pitch, z = 64, 0.0002, 0.0005  # period 4 samples = 0.8 µm < λ
    x = np.asarray(coordinates(count, pitch))
    grating = np.cos(2 * math.pi * x / (4 * pitch))[None, :] * np.ones((count, 1)) + 0j
    out = be.to_numpy(angular_spectrum(be.asarray(grating), pitch, WAVELENGTH, z))
    f = 1 / (4 * pitch)
    rate = 2 * math.pi * math.sqrt(f**2 - (1 / (WAVELENGTH * 1e-3)) ** 2)
    np.testing.assert_allclose(np.abs(out), np.abs(grating) * math.exp(-rate * z), atol=1e-12)


def test_matched_mode_couples_completely():
    s, w0 = 80.0, 0.1
    image, waist = _self(s, w0)
    lens = _thin_lens(s, image_distance=image)  # the fibre face on the image waist
    assert float(fibre_coupling(lens, w0, waist)) == pytest.approx(1.0, abs=1e-12)
    assert float(fibre_coupling(lens, w0, 1.3 * waist)) < 0.97


def test_closed_form_overlap_equals_the_sampled_overlap_integral():
    lam, count, pitch = WAVELENGTH, 256, 0.002
    beam = BeamParameter(3.0, math.pi * 0.04**2 / (lam * 1e-3))  # 3 mm past a 40 µm waist
    mode = mode_parameter(0.05, lam)
    sampled = overlap_efficiency(
        gaussian_field(beam, lam, count, pitch), gaussian_field(mode, lam, count, pitch)
    )
    closed = gaussian_overlap(beam, mode)
    # The ratio of the widths alone: 4 / (w1/w2 + w2/w1)² when both are flat.
    flat = gaussian_overlap(BeamParameter(0.0, beam.imag), mode)
    assert float(sampled) == pytest.approx(float(closed), rel=1e-10)
    assert float(flat) == pytest.approx(4 / (0.04 / 0.05 + 0.05 / 0.04) ** 2, rel=1e-12)
    assert float(closed) < float(flat)  # the curvature mismatch costs


@pytest.mark.parametrize("path", ["surfaces[2].thickness", "surfaces[1].radius"])
def test_coupling_gradient_matches_central_differences(autodiff_backend, path):
    s, w0 = 80.0, 0.1
    image, waist = _self(s, w0)
    lens = _thin_lens(s, image_distance=image + 3.0)
    start = float(be.item(optics.params.get_param(lens, path)))

    def efficiency(value):
        return fibre_coupling(replaced(lens, path, value), w0, 0.9 * waist)

    _, gradient = value_and_gradient(lambda p: efficiency(p[0]), [start])
    with be.using("numpy"):
        for step in (1e-3, 1e-4):
            up, down = float(efficiency(start + step)), float(efficiency(start - step))
            numeric = (up - down) / (2 * step)
            # Truncation ~ step² (1e-8 at 1e-3), round-off ~ eps / step (1e-10 at 1e-4).
            assert gradient[0] == pytest.approx(numeric, rel=1e-6)


def test_fibre_coupling_operand_is_the_analysis():
    from optics.optimize import MeritContext
    from optics.optimize.operands_beams import fibre_coupling as operand

    s, w0 = 80.0, 0.1
    lens = _thin_lens(s, image_distance=100.0)
    value = operand(MeritContext(lens), waist=w0, mode_field_radius=0.1)
    assert float(value) == pytest.approx(float(fibre_coupling(lens, w0, 0.1)), rel=1e-14)
    with pytest.raises(ConfigurationError, match="'mode_field_radius' must be a positive"):
        operand(MeritContext(lens), waist=w0, mode_field_radius=-1.0)


def test_bad_beams_are_refused_with_the_value():
    lens = _thin_lens(80.0)
    with pytest.raises(ConfigurationError, match="waist must be a positive"):
        propagate_beam(lens, -0.1)
    with pytest.raises(ConfigurationError, match="M² must be a finite number >= 1"):
        propagate_beam(lens, 0.1, m2=0.5)


def test_optimizing_fibre_coupling_puts_the_fibre_on_the_image_waist(torch_backend):
    from optics.optimize import Operand, Problem, optimize

    s, w0 = 80.0, 0.1
    image, waist = _self(s, w0)
    lens = _thin_lens(s, image_distance=image + 20.0)
    coupling = Operand("fibre_coupling", waist=w0, mode_field_radius=waist, target=1.0)
    problem = Problem(lens, ["surfaces[2].thickness"], [coupling])
    result = optimize(problem, "dls", steps=30)
    assert result.operands_after[0]["value"] > 1 - 1e-7
    # 1 − η grows as the square of the focus error: DLS closes in on it to ~0.01 mm.
    assert float(be.item(lens.surfaces[2].thickness)) == pytest.approx(image, abs=0.05)
