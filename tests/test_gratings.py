"""Diffraction gratings (``grating``) and radial phase surfaces (``radial_phase``).

Analytic checks: the grating equation, Littrow, order 0 = refraction, evanescent
orders, a plane wave stays plane, a diffractive lens focuses with zero OPD,
its paraxial power; gradients against central differences; lens-file and .zmx
round trips.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics import backend as be
from optics import paraxial
from optics.analysis._opd import sample_wavefront
from optics.errors import LensFileError
from optics.io import optic_from_dict, optic_to_dict
from optics.optimize import value_and_gradient

WAVELENGTH = 0.55


def _system(surface, *, before=None, after=None, image=30.0, field=0.0, wavelength=WAVELENGTH):
    grating = {"thickness": image, "stop": True, **surface}
    if after is not None:
        grating["material"] = after
    surfaces = [{"thickness": math.inf}]
    if before is not None:
        surfaces.append({"thickness": 5.0, "material": before})
    return optic_from_dict(
        {
            "aperture": {"type": "epd", "value": 10.0},
            "fields": {"type": "angle", "values": [0.0, max(field, 1.0)]},
            "wavelengths": {"values": [wavelength]},
            "surfaces": [*surfaces, grating, {}],
        }
    )


def _grating(density=0.3, order=1, **extra):
    return {"type": "grating", "lines_per_um": density, "order": order, **extra}


@pytest.mark.parametrize("theta", [0.0, 12.0, -20.0])
@pytest.mark.parametrize("order", [1, -1, 2])
def test_a_plane_grating_follows_sin_theta_m_equals_sin_theta_i_plus_m_lambda_over_d(theta, order):
    density = 0.3  # lines per µm: d = 3.33 µm
    optic = _system(_grating(density, order), field=abs(theta) or 1.0)
    hy = theta / (abs(theta) or 1.0)
    ray = optics.trace_rays(optic, (0.0, hy), (0.3, -0.4))
    expected = math.sin(math.radians(theta)) + order * WAVELENGTH * density
    assert bool(be.item(ray.valid))
    assert float(be.item(ray.M)) == pytest.approx(expected, abs=1e-14)
    assert float(be.item(ray.L)) == pytest.approx(0.0, abs=1e-15)


def test_the_grating_equation_holds_on_every_backend(backend):
    optic = _system(_grating(0.3, -1), field=12.0)
    ray = optics.trace_rays(optic, (0.0, 1.0), (0.3, -0.4))
    expected = math.sin(math.radians(12.0)) - WAVELENGTH * 0.3
    assert float(be.item(ray.M)) == pytest.approx(expected, abs=1e-14)


def test_littrow_a_reflective_grating_sends_the_ray_back_on_itself():
    # Littrow: 2 sin θ = −m λ / d  (m = −1 here, the ray returns along −k).
    density, order = 0.6, -1
    theta = math.degrees(math.asin(-order * WAVELENGTH * density / 2))
    optic = _system(_grating(density, order), after="mirror", image=-30.0, field=theta)
    ray = optics.trace_rays(optic, (0.0, 1.0), (0.0, 0.0))
    s = math.sin(math.radians(theta))
    assert float(be.item(ray.M)) == pytest.approx(-s, abs=1e-14)
    assert float(be.item(ray.N)) == pytest.approx(-math.sqrt(1 - s * s), abs=1e-14)


@pytest.mark.parametrize("radius", [math.inf, 40.0, -25.0])
def test_order_zero_is_plain_refraction(radius):
    plain = _system({"radius": radius}, before="N-BK7")
    grating = _system(_grating(0.5, 0, radius=radius), before="N-BK7")
    px, py = np.array([0.0, 0.7, -0.5, 0.2]), np.array([0.0, 0.3, 0.6, -0.9])
    a = optics.trace_rays(plain, (0.0, 1.0), (px, py))
    b = optics.trace_rays(grating, (0.0, 1.0), (px, py))
    for name in ("x", "y", "z", "L", "M", "N", "opd"):
        np.testing.assert_allclose(getattr(b, name), getattr(a, name), rtol=0, atol=1e-13)


def test_an_evanescent_order_is_invalid_and_finite():
    # m λ T = 1.1 > 1 in air: no propagating first order at normal incidence.
    optic = _system(_grating(2.0, 1))
    ray = optics.trace_rays(optic, (0.0, 0.0), (np.array([0.0, 0.5]), np.array([0.0, 0.0])))
    assert not np.any(ray.valid)
    assert np.all(np.isfinite(ray.M)) and np.all(np.isfinite(ray.opd))


def test_a_plane_grating_leaves_a_plane_wavefront():
    # All rays leave along one direction d; equal optical path then means
    # opd − r·d is the same for every ray (Malus–Dupin), which needs the phase term.
    optic = _system(_grating(0.2, -1), before="N-BK7")
    px, py = np.meshgrid(np.linspace(-1, 1, 5), np.linspace(-1, 1, 5))
    ray = optics.trace_rays(optic, (0.0, 0.0), (px.ravel(), py.ravel()))
    assert np.all(ray.valid)
    along = ray.opd - (ray.x * ray.L + ray.y * ray.M + ray.z * ray.N)
    assert np.ptp(along) < 1e-12
    assert float(np.ptp(ray.M)) < 1e-15


def _diffractive_lens(focal, norm, terms=8, wavelength=WAVELENGTH, order=1):
    """A radial phase with the Taylor terms of φ = (2π/λ)(f − √(r² + f²)), r = ρ R."""
    lam = wavelength * 1e-3
    coefficients = [
        -(2 * math.pi / lam) * _binomial_half(i) * norm ** (2 * i) * focal ** (1 - 2 * i) / order
        for i in range(1, terms + 1)
    ]
    return {
        "type": "radial_phase",
        "phase_coefficients": coefficients,
        "norm_radius": norm,
        "order": order,
    }


def _binomial_half(i):
    """C(1/2, i)."""
    value = 1.0
    for k in range(i):
        value *= (0.5 - k) / (k + 1)
    return value


@pytest.mark.parametrize("order", [1, -1])
def test_a_diffractive_lens_focuses_a_collimated_beam_with_zero_opd(order):
    focal = 100.0  # F/10: the Taylor series converges fast at r/f <= 0.05
    optic = _system(_diffractive_lens(focal, 5.0, order=order), image=focal)
    px, py = np.meshgrid(np.linspace(-1, 1, 7), np.linspace(-1, 1, 7))
    inside = px**2 + py**2 <= 1
    px, py = px[inside], py[inside]
    ray = optics.trace_rays(optic, (0.0, 0.0), (px, py))
    assert np.all(be.to_numpy(ray.valid))
    assert np.max(np.hypot(be.to_numpy(ray.x), be.to_numpy(ray.y))) < 1e-12
    waves, valid, _, _ = sample_wavefront(optic, [(0.0, 0.0)], WAVELENGTH, px, py)
    assert np.all(be.to_numpy(valid))
    assert np.max(np.abs(be.to_numpy(waves))) < 1e-8
    # Only the quadratic term: the focus is the paraxial one, the wavefront is not flat.
    assert paraxial(optic).efl == pytest.approx(focal, rel=1e-14)


def test_the_phase_sign_matters_a_flipped_path_is_not_a_focus():
    # The same lens with the phase subtracted (the sign error a peer has) gives a
    # wavefront of 2 (f − √(r² + f²)): about 450 waves at the rim here, not 0.
    focal, norm = 100.0, 5.0
    optic = _system(_diffractive_lens(focal, norm), image=focal)
    ray = optics.trace_rays(optic, (0.0, 0.0), (np.array([0.0, 1.0]), np.array([0.0, 0.0])))
    phase_path = focal - math.sqrt(norm**2 + focal**2)  # mm, at the rim
    # opd includes +λφ/2π: the rim ray's path to the focus equals the axial ray's.
    assert float(ray.opd[1] - ray.opd[0]) == pytest.approx(0.0, abs=1e-12)
    flipped = float(ray.opd[1] - ray.opd[0]) - 2 * phase_path
    assert abs(flipped) / (WAVELENGTH * 1e-3) > 100


def test_the_paraxial_power_is_minus_m_a1_lambda_over_pi_r_squared():
    a1, norm, order = -300.0, 4.0, 2
    optic = _system(
        {"type": "radial_phase", "phase_coefficients": [a1], "norm_radius": norm, "order": order}
    )
    power = -order * a1 * WAVELENGTH * 1e-3 / (math.pi * norm**2)
    assert paraxial(optic).efl == pytest.approx(1 / power, rel=1e-13)
    # It scales with the wavelength: a diffractive lens's strong dispersion.
    assert paraxial(optic, 0.6).efl == pytest.approx(WAVELENGTH / 0.6 / power, rel=1e-13)


def _gradcheck(loss, value, autodiff):
    _, grad = value_and_gradient(lambda p: loss(p[0]), [value])
    with be.using("numpy", precision="float64"):
        for step in (1e-4, 5e-5):
            fd = (loss(value + step) - loss(value - step)) / (2 * step)
            assert float(grad[0]) == pytest.approx(float(be.item(fd)), rel=1e-6, abs=1e-10)


@pytest.mark.parametrize("name", ["radius", "lines_per_um"])
def test_gradients_by_radius_and_line_density_match_central_differences(name, autodiff_backend):
    values = {"radius": 60.0, "lines_per_um": 0.25}

    def loss(value):
        optic = _system(_grating(0.25, 1, radius=60.0), before="N-BK7")
        setattr(optic.surfaces[2].geometry, name, value)
        ray = optics.trace_rays(optic, (0.0, 0.5), (0.3, 0.8))
        return ray.y + 0.1 * ray.x + 0.01 * ray.opd

    _gradcheck(loss, values[name], autodiff_backend)


def test_gradient_by_a_phase_coefficient_matches_central_differences(autodiff_backend):
    def loss(value):
        optic = _system(
            {"type": "radial_phase", "phase_coefficients": [-200.0, 3.0], "norm_radius": 5.0}
        )
        optic.surfaces[1].geometry.phase_coefficients[0] = value
        ray = optics.trace_rays(optic, (0.0, 0.5), (0.2, 0.9))
        return ray.y + ray.opd

    _gradcheck(loss, -200.0, autodiff_backend)


def test_toml_lens_files_write_and_read_back_every_diffractive_type(tmp_path):
    surfaces = (
        _grating(0.4, -2, radius=50.0, conic=-0.5),
        _diffractive_lens(80.0, 5.0, terms=3),
        {
            "type": "even_asphere_phase",
            "radius": 40.0,
            "coefficients": [0.0, 2e-6],
            "phase_coefficients": [-700.0, 5.0],
            "norm_radius": 5.0,
            "order": -1,
        },
    )
    for k, surface in enumerate(surfaces):
        optic = _system(surface)
        path = tmp_path / f"lens{k}.toml"
        optics.save(optic, path)
        assert f'type = "{surface["type"]}"' in path.read_text()
        back = optics.load(path)
        assert back.surfaces[1].geometry.to_spec() == optic.surfaces[1].geometry.to_spec()


def test_lens_file_keys_round_trip():
    optic = _system(_grating(0.4, -2, radius=50.0, conic=-0.5))
    spec = optic_to_dict(optic)["surfaces"][1]
    assert spec["type"] == "grating"
    assert (spec["lines_per_um"], spec["order"], spec["radius"], spec["conic"]) == (
        0.4,
        -2,
        50.0,
        -0.5,
    )
    lens = _system(_diffractive_lens(80.0, 5.0, terms=3))
    again = optic_from_dict(optic_to_dict(lens))
    assert optic_to_dict(again) == optic_to_dict(lens)


def test_bad_grating_keys_are_lens_file_errors():
    with pytest.raises(LensFileError, match="lines_per_um"):
        _system(_grating(-1.0))
    with pytest.raises(LensFileError, match="order"):
        _system(_grating(0.3, 1.5))
    with pytest.raises(LensFileError, match="norm_radius"):
        _system({"type": "radial_phase", "phase_coefficients": [1.0], "norm_radius": 0.0})


def test_an_even_asphere_phase_is_the_asphere_plus_the_phase():
    phase = {"phase_coefficients": [-700.0, 5.0], "norm_radius": 5.0}
    sag = {"radius": 40.0, "coefficients": [0.0, 2e-6, -1e-8]}
    both = _system({"type": "even_asphere_phase", **sag, **phase}, before="N-BK7")
    asphere = _system({"type": "even_asphere", **sag}, before="N-BK7")
    flat_sag = _system({"type": "even_asphere_phase", "radius": 40.0, **phase}, before="N-BK7")
    conic = _system({"type": "radial_phase", "radius": 40.0, **phase}, before="N-BK7")
    off = _system({"type": "even_asphere_phase", **sag, **phase, "order": 0}, before="N-BK7")
    px, py = np.array([0.0, 0.6, -0.2]), np.array([0.9, -0.3, 0.5])
    trace = lambda o: optics.trace_rays(o, (0.0, 1.0), (px, py))  # noqa: E731
    for a, b in ((trace(flat_sag), trace(conic)), (trace(off), trace(asphere))):
        for name in ("x", "y", "L", "M", "opd"):
            np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=0, atol=1e-12)
    assert np.max(np.abs(trace(both).y - trace(conic).y)) > 1e-4  # the sag terms act
