"""Fresnel coefficients and thin-film stacks against closed forms and the ``tmm`` package.

The analytic cases: a quarter-wave MgF2 layer on N-BK7 at normal incidence,
Brewster's angle, the phase of total internal reflection, energy conservation of
lossless stacks.  ``tmm`` (Byrnes, PyPI) computes the same stacks by its own
transfer matrices; we agree to 1e-12 in amplitudes and powers.

Physics checks run on NumPy; the backend-sensitive ones (values on every backend,
exact zero-layer identity, TIR) on the shared ``backend`` fixture, and the
derivatives in tests/test_coatings_gradients.py.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from optics import backend as be
from optics.coatings import (
    Coating,
    ComplexIndex,
    IdealCoating,
    Layer,
    fresnel_amplitudes,
    fresnel_power,
    interface_amplitudes,
)
from optics.errors import OpticsError
from optics.materials import CatalogGlass

tmm = pytest.importorskip("tmm")

ANGLES = np.array([0.0, 10.0, 30.0, 45.0, 60.0, 75.0, 85.0])


def _np(values):
    return tuple(be.to_numpy(v) for v in values)


def test_quarter_wave_mgf2_on_bk7_has_the_textbook_reflectance(backend):
    wavelength = 0.55
    n_film = float(CatalogGlass("MgF2").index(wavelength))
    n_glass = float(CatalogGlass("N-BK7").index(wavelength))
    coating = Coating([Layer("MgF2", 1.0, "qw")], reference_wavelength=wavelength)
    reflectance = coating.reflectance(1.0, n_glass, be.asarray(1.0), wavelength)
    expected = ((n_glass - n_film**2) / (n_glass + n_film**2)) ** 2
    assert abs(float(be.to_numpy(reflectance)) - expected) < 64 * be.machine_eps(reflectance)
    # and it is the minimum: a thicker or thinner layer reflects more
    for quarter_waves in (0.9, 1.1):
        other = Coating([Layer("MgF2", quarter_waves, "qw")], wavelength)
        assert float(be.to_numpy(other.reflectance(1.0, n_glass, 1.0, wavelength))) > expected


def test_rp_vanishes_at_brewsters_angle_and_nowhere_else():
    n1, n2 = 1.0, 1.5168
    brewster = math.atan(n2 / n1)
    cos_b = be.asarray([math.cos(brewster)])
    _, rp, _, _ = fresnel_amplitudes(n1, n2, cos_b)
    assert abs(be.to_numpy(rp)[0]) < 16 * be.machine_eps(be.fft.real(rp))
    near = be.asarray([math.cos(brewster - 0.05), math.cos(brewster + 0.05)])
    _, rp_near, _, _ = _np(fresnel_power(n1, n2, near))
    assert np.all(rp_near > 1e-5)


def test_rp_is_minus_rs_at_normal_incidence():
    rs, rp, ts, tp = _np(fresnel_amplitudes(1.0, 1.7, be.asarray([1.0])))
    np.testing.assert_allclose(rp, -rs, rtol=0, atol=4e-16)
    np.testing.assert_allclose(rs, (1.0 - 1.7) / 2.7, rtol=1e-15)
    np.testing.assert_allclose(ts, tp, rtol=1e-15)


def test_total_internal_reflection_has_unit_modulus_and_the_closed_form_phase(backend):
    n1, n2 = 1.5168, 1.0
    angles = np.radians([42.0, 50.0, 60.0, 80.0])  # the critical angle is 41.25 degrees
    cos_i = be.asarray(np.cos(angles))
    rs, rp, ts, tp = _np(fresnel_amplitudes(n1, n2, cos_i))
    np.testing.assert_allclose(np.abs(rs), 1.0, rtol=1e-14)
    np.testing.assert_allclose(np.abs(rp), 1.0, rtol=1e-14)
    # Born & Wolf 1.5 (60): tan(δs/2) = sqrt(sin²θ − n²)/cosθ, tan(δp/2) = that / n²,
    # n = n2/n1; with exp(−iωt) the reflected phase is −δ (rs = e^{−iδs}, rp = e^{−iδp}).
    n = n2 / n1
    root = np.sqrt(np.sin(angles) ** 2 - n**2)
    delta_s = 2 * np.arctan(root / np.cos(angles))
    delta_p = 2 * np.arctan(root / (n**2 * np.cos(angles)))
    np.testing.assert_allclose(np.angle(rs), -delta_s, atol=1e-13)
    np.testing.assert_allclose(np.angle(rp), -delta_p, atol=1e-13)
    _, _, t_s, t_p = _np(fresnel_power(n1, n2, cos_i))
    np.testing.assert_array_equal(t_s, 0.0)
    np.testing.assert_array_equal(t_p, 0.0)


def _lossless_stack():
    return Coating(
        [Layer(1.38, 99.6), Layer(2.35, 58.5), Layer(1.46, 94.2), Layer(2.05, 30.0)],
        order="as_listed",
    )


@pytest.mark.parametrize("n1, n2", [(1.0, 1.5168), (1.5168, 1.0), (1.0, 1.0)])
def test_lossless_stacks_conserve_energy(n1, n2):
    coating = _lossless_stack()
    cos_i = be.asarray(np.cos(np.radians(ANGLES))[:, None])
    wavelength = be.asarray(np.linspace(0.4, 0.8, 9)[None, :])
    rs, rp, ts, tp = _np(coating.power(n1, n2, cos_i, wavelength))
    assert rs.shape == (len(ANGLES), 9)
    np.testing.assert_allclose(rs + ts, 1.0, atol=1e-14)
    np.testing.assert_allclose(rp + tp, 1.0, atol=1e-14)


def test_a_coating_of_no_layers_is_exactly_the_bare_interface(backend):
    cos_i = be.asarray(np.cos(np.radians(ANGLES)))
    n2 = 1.7 + 0.02j
    bare = _np(fresnel_amplitudes(1.0, n2, cos_i))
    for coated in (
        Coating([]).amplitudes(1.0, n2, cos_i, 0.55),
        interface_amplitudes(None, 1.0, n2, cos_i, 0.55),
    ):
        for a, b in zip(bare, _np(coated)):
            np.testing.assert_array_equal(a, b)


def _tmm_case(pol, indices, thicknesses_um, angle_deg, wavelength):
    d = [math.inf, *thicknesses_um, math.inf]
    return tmm.coh_tmm(pol, indices, d, math.radians(angle_deg), wavelength)


STACKS = {
    "dielectric AR on glass": ([1.0, 1.38, 2.1, 1.46, 1.5168], [0.0996, 0.0612, 0.1301]),
    "absorbing films": ([1.0, 1.45 + 0.02j, 2.3 + 0.1j, 1.5168], [0.08, 0.05]),
    "silver mirror": ([1.0, 1.46, 0.055 + 3.32j, 1.5], [0.09, 0.05]),
    "from glass, beyond the critical angle": ([1.6, 1.38, 2.0, 1.0], [0.1, 0.07]),
}


@pytest.mark.parametrize("name", sorted(STACKS))
def test_stacks_agree_with_the_tmm_package(name):
    indices, thicknesses = STACKS[name]
    films = [
        Layer(ComplexIndex(n.real, n.imag), 1e3 * d) for n, d in zip(indices[1:-1], thicknesses)
    ]
    coating = Coating(films, order="as_listed")
    angles = ANGLES if "critical" not in name else np.array([0.0, 20.0, 50.0, 70.0])
    for wavelength in (0.45, 0.55, 0.7):
        cos_i = np.cos(np.radians(angles)) + 0j
        ours = _np(coating.amplitudes(indices[0], indices[-1], be.asarray(cos_i), wavelength))
        power = _np(coating.power(indices[0], indices[-1], be.asarray(cos_i), wavelength))
        for k, angle in enumerate(angles):
            for p, pol in enumerate("sp"):
                ref = _tmm_case(pol, indices, thicknesses, angle, wavelength)
                assert abs(ours[p][k] - ref["r"]) < 1e-12, (pol, angle, wavelength)
                assert abs(ours[2 + p][k] - ref["t"]) < 1e-12, (pol, angle, wavelength)
                assert abs(power[p][k] - ref["R"]) < 1e-12
                assert abs(power[2 + p][k] - ref["T"]) < 1e-12


def test_bare_interfaces_agree_with_tmm_for_complex_indices():
    for n1, n2 in ((1.0, 1.5), (1.5, 1.0), (1.0, 0.2 + 3.4j), (1.33, 2.4 + 0.3j)):
        angles = np.radians(ANGLES)
        ours = _np(fresnel_amplitudes(n1, n2, be.asarray(np.cos(angles))))
        for k, angle in enumerate(angles):
            theta_t = tmm.snell(n1, n2, angle)
            for p, pol in enumerate("sp"):
                ref_r = tmm.interface_r(pol, n1, n2, angle, theta_t)
                ref_t = tmm.interface_t(pol, n1, n2, angle, theta_t)
                if (
                    abs(n2.imag if isinstance(n2, complex) else 0)
                    or n1 < n2
                    or angle < math.asin(n2 / n1)
                ):
                    assert abs(ours[p][k] - ref_r) < 1e-12
                    assert abs(ours[2 + p][k] - ref_t) < 1e-12


def test_leaving_the_glass_applies_the_layers_in_reverse():
    layers = [Layer(1.38, 100.0), Layer(2.1, 60.0), Layer(1.46, 80.0)]
    zemax_order = Coating(layers)
    reversed_stack = Coating(layers[::-1], order="as_listed")
    cos_i = be.asarray(np.cos(np.radians([0.0, 20.0, 35.0])))
    for a, b in zip(
        _np(zemax_order.amplitudes(1.5168, 1.0, cos_i, 0.55)),
        _np(reversed_stack.amplitudes(1.5168, 1.0, cos_i, 0.55)),
    ):
        np.testing.assert_array_equal(a, b)
    # indices given as arrays take the per-element choice, with the same result
    per_ray = zemax_order.amplitudes(
        be.asarray([1.5168, 1.0]), be.asarray([1.0, 1.5168]), cos_i[1], 0.55
    )
    for a, b, c in zip(
        _np(per_ray),
        _np(reversed_stack.amplitudes(1.5168, 1.0, cos_i[1], 0.55)),
        _np(Coating(layers, order="as_listed").amplitudes(1.0, 1.5168, cos_i[1], 0.55)),
    ):
        np.testing.assert_allclose(a, [b, c], rtol=1e-15)
    entering = _np(zemax_order.amplitudes(1.0, 1.5168, cos_i, 0.55))
    as_listed = _np(Coating(layers, order="as_listed").amplitudes(1.0, 1.5168, cos_i, 0.55))
    for a, b in zip(entering, as_listed):
        np.testing.assert_array_equal(a, b)


def test_backends_agree_with_numpy(backend):
    coating = Coating([Layer("MgF2", 1.0, "qw"), Layer(ComplexIndex(2.0, 0.01), 80.0)], 0.55)
    cos_i = np.cos(np.radians(ANGLES))
    with be.using("numpy"):
        expected = _np(coating.amplitudes(1.0, 1.5168, be.asarray(cos_i), 0.6))
    got = coating.amplitudes(1.0, 1.5168, be.asarray(cos_i), 0.6)
    assert be.backend_of(got[0]) == backend
    for a, b in zip(_np(got), expected):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)


def test_ideal_coating_gives_its_r_and_t_at_every_angle():
    ideal = IdealCoating(R=0.3, T=0.6)
    cos_i = be.asarray(np.cos(np.radians(ANGLES)))
    rs, rp, ts, tp = _np(ideal.power(1.0, 1.5168, cos_i, 0.55))
    for value, expected in ((rs, 0.3), (rp, 0.3), (ts, 0.6), (tp, 0.6)):
        np.testing.assert_allclose(value, expected, rtol=1e-14)
    # beyond the critical angle nothing is transmitted
    _, _, ts, tp = _np(ideal.power(1.5168, 1.0, be.asarray([0.2]), 0.55))
    assert ts[0] == 0.0 and tp[0] == 0.0


def test_unpolarized_is_the_mean_of_s_and_p():
    coating = _lossless_stack()
    cos_i = be.asarray(np.cos(np.radians(ANGLES)))
    rs, rp, ts, tp = _np(coating.power(1.0, 1.5168, cos_i, 0.55))
    np.testing.assert_allclose(
        be.to_numpy(coating.reflectance(1.0, 1.5168, cos_i, 0.55)), (rs + rp) / 2
    )
    np.testing.assert_allclose(
        be.to_numpy(coating.transmittance(1.0, 1.5168, cos_i, 0.55, "p")), tp
    )


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: Layer(1.38, 100.0, "um"), "unit"),
        (lambda: Layer(1.38, -1.0), "thickness"),
        (lambda: Coating([Layer(1.38, 1.0, "qw")]).amplitudes(1.0, 1.5, 1.0, 0.55), "reference"),
        (lambda: _lossless_stack().reflectance(1.0, 1.5, 1.0, 0.55, "circular"), "polarization"),
        (lambda: IdealCoating(R=0.7, T=0.6), r"R \+ T"),
        (lambda: Coating([Layer("mirror", 10.0)]).amplitudes(1.0, 1.5, 1.0, 0.55), "mirror"),
    ],
)
def test_bad_coating_input_names_the_parameter(make, words):
    with pytest.raises(OpticsError, match=words):
        make()


def test_float32_inputs_give_complex64_close_to_float64(torch_backend):
    coating = Coating([Layer("MgF2", 1.0, "qw"), Layer(2.05, 120.0)], 0.55)
    cos64 = np.cos(np.radians([0.0, 30.0, 60.0]))
    with be.using("torch", precision="float32"):
        cos_i = be.asarray(cos64.astype(np.float32))
        rs = coating.amplitudes(1.0, 1.5168, cos_i, 0.55)[0]
        reflectance = coating.reflectance(1.0, 1.5168, cos_i, 0.55)
    assert str(rs.dtype) == "torch.complex64" and str(reflectance.dtype) == "torch.float32"
    expected = be.to_numpy(coating.reflectance(1.0, 1.5168, be.asarray(cos64), 0.55))
    eps32 = be.machine_eps(reflectance)
    np.testing.assert_allclose(be.to_numpy(reflectance), expected, rtol=64 * eps32)


def test_a_tabulated_medium_interpolates_like_numpy_interp(backend):
    from optics.coatings import TabulatedIndex

    table = TabulatedIndex("ALUM", (0.4, 0.55, 0.8), (0.49, 0.96, 2.8), (4.86, 6.69, 8.45))
    wavelengths = np.array([0.3, 0.4, 0.47, 0.55, 0.61, 0.8, 1.2])
    got = be.to_numpy(table.index(be.asarray(wavelengths)))
    np.testing.assert_allclose(
        got.real, np.interp(wavelengths, table.wavelengths, table.n), rtol=1e-15
    )
    np.testing.assert_allclose(
        got.imag, np.interp(wavelengths, table.wavelengths, table.kappa), rtol=1e-15
    )
    with pytest.raises(OpticsError, match="increase"):
        TabulatedIndex("BAD", (0.5, 0.4), (1.0, 1.0), (0.0, 0.0))
