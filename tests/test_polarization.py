"""Polarization ray tracing: Fresnel amplitudes, PRT matrices, Jones pupils (polarization.md)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import derivative, singlet

from optics import Aperture, Fields, Optic, Surface, Wavelengths
from optics import backend as be
from optics.coatings.fresnel import fresnel_amplitudes
from optics.geometry import Standard
from optics.geometry.coordinate_break import CoordinateBreak
from optics.materials import MIRROR, ConstantIndex
from optics.optimize import gradients
from optics.polarization import (
    Absorbing,
    diattenuation,
    exit_field,
    jones_pupil,
    polarization_trace,
    retardance,
    transmission,
)
from optics.trace import trace_surfaces


def _np(value):
    return np.asarray(be.to_numpy(be.detach(value)))


def _matrix(nested):
    """Nested r x c tuple of arrays (shape S) as an ndarray (S..., r, c)."""
    return np.moveaxis(np.array([[_np(v) for v in row] for row in nested]), (0, 1), (-2, -1))


def _interface(radius=math.inf, index=1.5, field=30.0):
    """One refracting surface (the stop), air to glass; the image in the glass."""
    return Optic(
        [
            Surface(thickness=math.inf),
            Surface(Standard(radius), 10.0, ConstantIndex(index), is_stop=True),
            Surface(),
        ],
        Aperture("epd", 8.0),
        Fields("angle", [(0.0, 0.0), (0.0, field)]),
        Wavelengths([0.55], 0),
    )


def _fold_mirror():
    """A plane mirror at 45° that sends the beam up (+y), image 20 mm after it."""
    return Optic(
        [
            Surface(thickness=math.inf),
            Surface(thickness=30.0, is_stop=True),
            Surface(CoordinateBreak(), tilt=(45.0, 0.0, 0.0)),
            Surface(material=MIRROR),
            Surface(CoordinateBreak(), thickness=-20.0, tilt=(45.0, 0.0, 0.0)),
            Surface(),
        ],
        Aperture("epd", 20.0),
        Fields("angle", [(0.0, 0.0), (0.0, 5.0)]),
        Wavelengths([0.55], 0),
    )


PUPIL = (np.array([0.0, 0.6, -0.3, 0.0]), np.array([0.0, 0.0, 0.5, -0.8]))


def test_fresnel_amplitudes_normal_incidence_energy_brewster_and_tir(backend):
    n1, n2 = 1.0, 1.5
    cos_i = be.asarray(np.linspace(0.05, 1.0, 9))
    rs, rp, ts, tp = (_np(v) for v in fresnel_amplitudes(n1, n2, cos_i))
    # Born & Wolf's basis (docs/coatings.md): at normal incidence rp = −rs
    np.testing.assert_allclose([rs[-1], -rp[-1]], [(n1 - n2) / (n1 + n2)] * 2, rtol=1e-14)
    ci = _np(cos_i)
    ct = np.sqrt(1.0 - (n1 / n2) ** 2 * (1.0 - ci**2))
    ratio = n2 * ct / (n1 * ci)  # power per |amplitude|² across the interface
    np.testing.assert_allclose(np.abs(rs) ** 2 + ratio * np.abs(ts) ** 2, 1.0, rtol=1e-13)
    np.testing.assert_allclose(np.abs(rp) ** 2 + ratio * np.abs(tp) ** 2, 1.0, rtol=1e-13)
    brewster = math.cos(math.atan(n2 / n1))
    assert abs(_np(fresnel_amplitudes(n1, n2, be.asarray([brewster]))[1])[0]) < 1e-14
    # Glass to air beyond the critical angle (41.8°): every amplitude reflected, with a phase.
    rs, rp, _, _ = (_np(v) for v in fresnel_amplitudes(n2, n1, be.asarray([math.cos(0.9)])))
    np.testing.assert_allclose(np.abs([rs[0], rp[0]]), 1.0, rtol=1e-14)
    assert abs(np.angle(rs[0])) > 0.1


def _expected_prt(k_in, k_out, normal, n1, n2):
    """ts s sᵀ + tp p' pᵀ + k' kᵀ from the geometric normal, ray by ray (not the PRT code)."""
    out = []
    for a, b, nv in zip(k_in, k_out, normal):
        cos_i = abs(a @ nv)
        s = np.cross(a, nv)
        s = s / np.linalg.norm(s) if np.linalg.norm(s) > 1e-12 else np.array([0.0, 1.0, 0.0])
        _, _, ts, tp = (np.real(_np(v)) for v in fresnel_amplitudes(n1, n2, be.asarray(cos_i)))
        p_in, p_out = np.cross(a, s), np.cross(b, s)
        out.append(ts * np.outer(s, s) + tp * np.outer(p_out, p_in) + np.outer(b, a))
    return np.array(out)


@pytest.mark.parametrize("radius", [math.inf, 12.0])
def test_prt_at_one_interface_is_chipmans_from_fresnel(backend, radius):
    optic = _interface(radius)
    traced = polarization_trace(optic, (0.0, 1.0), PUPIL)
    at = trace_surfaces(optic, (0.0, 1.0), PUPIL)
    x, y, z = (_np(v) for v in (at[1].x, at[1].y, at[1].z))
    normal = np.stack([_np(v) for v in optic.surfaces[1].geometry.normal(x, y, z)], -1)
    k_in = np.stack([_np(v) for v in traced.k_in], -1)
    k_out = np.stack([_np(v) for v in traced.k_out], -1)
    expected = _expected_prt(k_in, k_out, normal, 1.0, 1.5)
    assert _np(traced.valid).all()
    np.testing.assert_allclose(_matrix(traced.prt), expected, atol=1e-13)
    # s polarized light (x here: the plane of incidence of the chief ray is y-z) loses Rs.
    chief = polarization_trace(optic, (0.0, 1.0), (0.0, 0.0))
    rs = np.real(_np(fresnel_amplitudes(1.0, 1.5, be.asarray(math.cos(math.radians(30.0))))[0]))
    np.testing.assert_allclose(_np(transmission(chief, (1.0, 0.0))), 1.0 - rs**2, rtol=1e-13)


def test_fold_mirror_prt_is_a_reflection_and_its_jones_matrix_minus_identity(backend):
    traced = polarization_trace(_fold_mirror(), (0.0, 1.0), PUPIL)
    assert _np(traced.valid).all()
    k_in = np.stack([_np(v) for v in traced.k_in], -1)
    k_out = np.stack([_np(v) for v in traced.k_out], -1)
    n = k_out - k_in
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    # A perfect conductor: E' = −(I − 2nnᵀ) E on the transverse field, and k → k'.
    householder = np.eye(3) - 2.0 * n[:, :, None] * n[:, None, :]
    expected = -householder + 2.0 * k_out[:, :, None] * k_in[:, None, :]
    P = _matrix(traced.prt)
    np.testing.assert_allclose(P, expected, atol=1e-13)
    identity = np.broadcast_to(np.eye(3), P.shape)
    np.testing.assert_allclose(P @ np.swapaxes(P, -1, -2), identity, atol=1e-13)
    minus_identity = np.broadcast_to(-np.eye(2), (4, 2, 2))
    np.testing.assert_allclose(_matrix(jones_pupil(traced)), minus_identity, atol=1e-13)
    for state in [None, (1.0, 0.0), (0.0, 1.0), (1.0, 1j)]:
        np.testing.assert_allclose(_np(transmission(traced, state)), 1.0, rtol=1e-13)
    assert np.abs(_np(retardance(traced))).max() < 1e-7 and _np(diattenuation(traced)).max() < 1e-7


def test_the_exit_field_is_transverse_and_carries_the_transmitted_power(backend):
    from optics.io import load

    traced = polarization_trace(load("cooke_triplet"), (0.0, 1.0), PUPIL)
    state = (0.6, 0.8j)
    field = np.stack([_np(v) for v in exit_field(traced, state)], -1)
    k_out = np.stack([_np(v) for v in traced.k_out], -1)
    np.testing.assert_allclose(np.abs(np.sum(field * k_out, -1)), 0.0, atol=1e-13)
    power = _np(traced.flux) * np.sum(np.abs(field) ** 2, -1)
    np.testing.assert_allclose(power, _np(transmission(traced, state)), rtol=1e-12)
    assert 0.5 < power.min() and power.max() < 1.0


def test_coaxial_on_axis_chief_ray_has_no_retardance_or_diattenuation(backend):
    from optics.io import load

    optic = load("cooke_triplet")
    on_axis = polarization_trace(optic, (0.0, 0.0), (0.0, 0.0))
    tol = 64 * be.machine_eps(1.0)
    assert float(_np(diattenuation(on_axis))) <= tol
    assert float(_np(retardance(on_axis))) <= tol
    J = _matrix(jones_pupil(on_axis))
    np.testing.assert_allclose(J, J[0, 0] * np.eye(2), atol=tol)
    # Off axis the same rays are diattenuating: the check above could fail.
    off = polarization_trace(optic, (0.0, 1.0), (0.0, 0.0))
    assert float(_np(diattenuation(off))) > 1e-3


def test_uncoated_singlet_transmits_the_product_of_one_minus_r_at_normal_incidence(backend):
    from optics.materials import CatalogGlass

    glass = CatalogGlass("N-BK7")
    optic = singlet()
    optic.surfaces[1].material = glass
    n = float(_np(glass.index(be.asarray(0.55))))
    one_minus_r = 1.0 - ((n - 1.0) / (n + 1.0)) ** 2
    traced = polarization_trace(optic, (0.0, 0.0), (0.0, 0.0), 0.55)
    for state in [None, (1.0, 0.0), (0.0, 1.0), (1.0, -1j)]:
        np.testing.assert_allclose(_np(transmission(traced, state)), one_minus_r**2, rtol=1e-13)
    # Bulk absorption multiplies in the internal transmittance exp(−α t) of the 5 mm path.
    optic.surfaces[1].material = Absorbing(glass, 0.02)
    traced = polarization_trace(optic, (0.0, 0.0), (0.0, 0.0), 0.55)
    expected = one_minus_r**2 * math.exp(-0.02 * 5.0)
    np.testing.assert_allclose(_np(transmission(traced)), expected, rtol=1e-13)


# JAX's eager trace compiles each operation (about 20 s on 2 cores): slow there, as the
# JAX_COMPILE_HEAVY cases of tests/conftest.py; torch runs by default.
@pytest.mark.parametrize("name", ["torch", pytest.param("jax", marks=pytest.mark.slow)])
def test_transmission_gradient_wrt_curvature_matches_central_differences(name):
    pytest.importorskip(name)
    with be.using(name, precision="float64", device="cpu"):
        _check_transmission_gradient()


def _check_transmission_gradient():
    def transmitted(c):
        optic = singlet(epd=20.0)  # the marginal ray: incidence angles of 11° and 16°
        optic.surfaces[1].geometry.curvature = c
        traced = polarization_trace(optic, (0.0, 0.0), (0.0, 0.9))
        return transmission(traced, (1.0, 0.0))

    c0 = 1.0 / 30.0
    exact = derivative(transmitted, be.asarray(c0))[0]
    for h in (1e-4, 1e-5):
        with be.using("numpy"):  # the reference on another backend, without derivatives
            fd = (_np(transmitted(c0 + h)) - _np(transmitted(c0 - h))) / (2.0 * h)
        assert abs(exact) > 1e-4
        np.testing.assert_allclose(exact, fd, rtol=1e-5)


class _PhaseMirror:
    """A coating whose mirror delays p by ``delta`` radians: a perfect mirror's rs = −1,
    rp = +e^{iδ} in Born & Wolf's basis, as optics.coatings writes amplitudes."""

    def __init__(self, delta):
        self.delta = delta

    def amplitudes(self, n1, n2, cos_i, wavelength_um):
        one = 0.0 * cos_i + 1.0
        return -one + 0.0j, one * complex(math.cos(self.delta), math.sin(self.delta)), one, one


def test_a_coating_supplies_the_amplitudes_and_its_retardance_is_seen(backend):
    # and an ideal coating (R = 1, no phase) is the bare perfect mirror
    from optics.coatings import IdealCoating

    bare = polarization_trace(_fold_mirror(), (0.0, 0.0), (0.0, 0.0))
    ideal = _fold_mirror()
    ideal.surfaces[3].coating = IdealCoating(R=1.0, T=0.0)
    coated = polarization_trace(ideal, (0.0, 0.0), (0.0, 0.0))
    np.testing.assert_allclose(_np(retardance(coated)), _np(retardance(bare)), atol=1e-12)
    optic = _fold_mirror()
    optic.surfaces[3].coating = _PhaseMirror(0.4)
    traced = polarization_trace(optic, (0.0, 0.0), (0.0, 0.0))
    np.testing.assert_allclose(_np(retardance(traced)), 0.4, rtol=1e-12)
    np.testing.assert_allclose(_np(transmission(traced)), 1.0, rtol=1e-13)


def test_blocks_of_a_large_batch_equal_one_eager_batch():
    optic = singlet(fields=(0.0, 10.0))
    rng = np.random.default_rng(3)
    px, py = rng.uniform(-0.7, 0.7, 70000), rng.uniform(-0.7, 0.7, 70000)
    blocked = polarization_trace(optic, (0.0, 1.0), (px, py))
    eager = polarization_trace(optic, (0.0, 1.0), (px, py), method="eager")
    np.testing.assert_array_equal(_np(transmission(blocked)), _np(transmission(eager)))
    np.testing.assert_array_equal(_matrix(blocked.prt), _matrix(eager.prt))


def test_diattenuation_and_retardance_match_svd_and_polar_decomposition(backend):
    scipy_linalg = pytest.importorskip("scipy.linalg")
    rng = np.random.default_rng(7)
    mats = rng.normal(size=(6, 2, 2)) + 1j * rng.normal(size=(6, 2, 2))
    mats = np.concatenate([mats, rng.normal(size=(3, 2, 2)) + 0j])  # real ones too
    J = tuple(tuple(be.asarray(mats[:, r, c]) for c in range(2)) for r in range(2))
    sigma = np.linalg.svd(mats, compute_uv=False)
    expected_d = (sigma[:, 0] ** 2 - sigma[:, 1] ** 2) / (sigma[:, 0] ** 2 + sigma[:, 1] ** 2)
    np.testing.assert_allclose(_np(diattenuation(J)), expected_d, rtol=1e-12)
    expected_r = []
    for m in mats:
        lam = np.linalg.eigvals(scipy_linalg.polar(m)[0])
        expected_r.append(abs(np.angle(lam[0] / lam[1])))
    np.testing.assert_allclose(_np(retardance(J)), expected_r, rtol=1e-10, atol=1e-12)
    real = tuple(tuple(be.asarray(mats[6:, r, c].real) for c in range(2)) for r in range(2))
    np.testing.assert_allclose(_np(retardance(real)), expected_r[6:], rtol=1e-10, atol=1e-12)


# --- the bare refraction's closed form (optics/polarization/trace.py, _refraction) -------


def _snell_pair(n1, n2, cos_i):
    """k_in · k_out of a refraction at incidence cos_i, and cos θt (Snell's law)."""
    sin_i = np.sqrt(1.0 - cos_i**2)
    sin_t = n1 * sin_i / n2
    cos_t = np.sqrt(1.0 - sin_t**2)
    return cos_i * cos_t + sin_i * sin_t, cos_t  # cos(θi − θt)


@pytest.mark.parametrize("n1, n2", [(1.0, 1.6), (1.6, 1.0), (1.5, 1.52)])
def test_bare_refraction_matches_fresnel_amplitudes_in_both_paths(backend, n1, n2):
    from optics.polarization.trace import _refraction

    cos_i = np.linspace(1.0, 0.8, 9)  # below the critical angle of 1.6 -> 1 (cos 0.78)
    c, cos_t = _snell_pair(n1, n2, cos_i)
    rs, rp, ts, tp = (_np(v).real for v in fresnel_amplitudes(n1, n2, be.asarray(cos_i)))
    flux = n2 * cos_t / (n1 * cos_i)
    c_ = be.asarray(c)
    # Scalar indices: the closed form; per-ray indices: the guarded general formulas.
    per_ray = [be.asarray(np.full(c.shape, n)) for n in (n1, n2)]
    for a, b in ((be.asarray(n1), be.asarray(n2)), per_ray):
        got = [_np(v) for v in _refraction(a, b, c_, None, 0.55)]
        # cos θt from c loses digits near normal incidence where n1 ≈ n2 (c ≈ 1 − ε):
        tol = 256 * be.machine_eps(c_) / abs(n2 - n1)
        np.testing.assert_allclose(got, [ts, tp, flux], rtol=tol)


def test_bare_refraction_between_equal_indices_is_the_identity(backend):
    from optics.polarization.trace import _refraction

    c = be.asarray(np.ones(4))
    for a, b in ((be.asarray(1.5), be.asarray(1.5)), (1.5, 1.5 * (1 + 1e-12))):
        ts, tp, flux = (_np(v) for v in _refraction(a, b, c, None, 0.55))
        np.testing.assert_allclose([ts, tp, flux], 1.0, rtol=1e-10)


def _refraction_sum(n2, c, per_ray):
    from optics.polarization.trace import _refraction

    c = be.asarray(np.array([0.999, 0.99, 0.97])) * c
    n1 = be.asarray(1.0)
    if per_ray:
        n1, n2 = n1 + 0.0 * c, n2 + 0.0 * c
    ts, tp, flux = _refraction(n1, n2, c, None, 0.55)
    return be.sum(ts + 2.0 * tp + 3.0 * flux)


@pytest.mark.parametrize("per_ray", [False, True], ids=["closed-form", "guarded"])
def test_bare_refraction_gradient_matches_central_differences(autodiff_backend, per_ray):
    point = (1.6, 1.0)
    value, grads = gradients(
        lambda n2, c: _refraction_sum(n2, c, per_ray), [be.asarray(v) for v in point]
    )

    def numpy_value(p):
        with be.using("numpy", precision="float64"):
            return float(_np(_refraction_sum(be.asarray(p[0]), be.asarray(p[1]), per_ray)))

    assert abs(value - numpy_value(point)) < 64 * be.machine_eps(1.0) * abs(value)
    for k, gradient in enumerate(grads):
        errors = []
        for h in (1e-4, 1e-5):
            up, down = list(point), list(point)
            up[k] += h
            down[k] -= h
            fd = (numpy_value(up) - numpy_value(down)) / (2 * h)
            errors.append(abs(fd - float(gradient)))
        assert abs(float(gradient)) > 1e-3
        assert errors[1] < 1e-6 * abs(float(gradient)), (k, errors, gradient)
        assert errors[1] <= errors[0] + 1e-12
