"""Pure array math of the wavefront analyses: FFTs, pupil quadrature, Zernike fits, PSF, MTF.

The exact relations tested (W020, W040 in waves, ρ the normalized pupil radius):

* W = W020 ρ² (defocus): Fringe Z1 = Z4 = W020 / 2; Noll Z4 = W020 / √12;
  RMS to the chief ray = W020 / √3; RMS with piston removed = W020 / √12;
  RMS to centroid = W020 / √12; P-V = W020.
* W = W040 ρ⁴ (spherical): Fringe Z9 = W040 / 6, Z4 = W040 / 2, Z1 = W040 / 3;
  RMS with piston removed = W040 √(1/5 − 1/9) = 2 W040 / (3 √5).
* Strehl ≈ exp(−(2πσ)²) for small σ (Maréchal / Mahajan).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from optics import backend as be
from optics.analysis._mtf import diffraction_limit, interpolate_lags, mtf_from_psf
from optics.analysis._psf import SamplingWarning, check_sampling, fast_size, psf_from_opd
from optics.analysis._wavefront import pupil_samples, wavefront_statistics
from optics.analysis._zernike_fit import zernike_evaluate, zernike_fit
from optics.polynomials import zernike_basis
from optics.sampling import gauss_pupil, square_grid


def test_fft_helpers_agree_between_numpy_and_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    phase = rng.normal(size=(6, 6))
    ref = be.fft.fftshift(be.fft.abs2(be.fft.fft2(be.fft.expi(phase), (16, 16))))
    got = be.fft.fftshift(be.fft.abs2(be.fft.fft2(be.fft.expi(torch.tensor(phase)), (16, 16))))
    direct = np.fft.fftshift(np.abs(np.fft.fft2(np.exp(1j * phase), s=(16, 16))) ** 2)
    np.testing.assert_allclose(ref, direct, rtol=1e-12)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(be.fft.ifft2(be.fft.fft2(phase)).real, phase, atol=1e-13)


def test_fft_gradient_matches_central_differences(torch_backend):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    phase0 = rng.normal(size=(5, 5)) * 0.3

    def peak(phase):
        image = be.fft.abs2(be.fft.fft2(be.fft.expi(phase), (12, 12)))
        return be.sum(image[..., 0, :3]) + image[..., 2, 3]

    phase = torch.tensor(phase0, requires_grad=True)
    peak(phase).backward()
    for i, j in ((0, 0), (2, 3), (4, 1)):
        for step in (1e-4, 1e-6):
            plus, minus = phase0.copy(), phase0.copy()
            plus[i, j] += step
            minus[i, j] -= step
            fd = (peak(torch.tensor(plus)) - peak(torch.tensor(minus))).item() / (2 * step)
            assert phase.grad[i, j].item() == pytest.approx(fd, rel=1e-6, abs=1e-8)


def test_gauss_pupil_integrates_even_powers_exactly():
    px, py, w = (be.to_numpy(a) for a in gauss_pupil(6))
    assert w.sum() == pytest.approx(1.0, abs=1e-15)
    rho2 = px**2 + py**2
    for k in range(12):  # mean of ρ^(2k) over the disk is 1 / (k + 1); degree 2k <= 4·6 − 2
        assert (w * rho2**k).sum() == pytest.approx(1.0 / (k + 1), rel=1e-13)
    assert (w * px**3 * py).sum() == pytest.approx(0.0, abs=1e-15)


def test_fringe_terms_are_orthogonal_under_the_quadrature():
    px, py, w = gauss_pupil(12)
    basis = be.to_numpy(zernike_basis(37, px, py, "fringe"))
    gram = (basis * be.to_numpy(w)[:, None]).T @ basis
    from optics.polynomials import fringe_to_nm

    expected = [1.0 / ((n + 1) * (1 if m == 0 else 2)) for n, m in map(fringe_to_nm, range(1, 38))]
    np.testing.assert_allclose(np.diag(gram), expected, rtol=1e-12)
    np.testing.assert_allclose(gram - np.diag(np.diag(gram)), 0.0, atol=1e-13)


def _quadrature(rings=12):
    px, py, w = pupil_samples(rings)
    return px, py, w, (px**2 + py**2)


def test_pure_defocus_gives_the_known_zernike_and_rms(backend):
    px, py, w, rho2 = _quadrature()
    w020 = 0.37
    waves = w020 * rho2
    fringe = be.to_numpy(zernike_fit(px, py, waves, w).coefficients)
    noll = be.to_numpy(zernike_fit(px, py, waves, w, terms=22, ordering="noll").coefficients)
    assert fringe[0] == pytest.approx(w020 / 2, rel=1e-12)
    assert fringe[3] == pytest.approx(w020 / 2, rel=1e-12)
    np.testing.assert_allclose(np.delete(fringe, [0, 3]), 0.0, atol=1e-13)
    assert noll[3] == pytest.approx(w020 / math.sqrt(12), rel=1e-12)
    stats = wavefront_statistics(waves, px, py, w, be.isfinite(waves))
    assert float(stats["rms"]) == pytest.approx(w020 / math.sqrt(3), rel=1e-12)
    assert float(stats["rms_piston_removed"]) == pytest.approx(w020 / math.sqrt(12), rel=1e-12)
    assert float(stats["rms_to_centroid"]) == pytest.approx(w020 / math.sqrt(12), rel=1e-12)
    assert float(stats["pv"]) == pytest.approx(w020, rel=1e-12)  # centre and rim are sampled


def test_pure_spherical_gives_z9_and_the_balanced_rms(backend):
    px, py, w, rho2 = _quadrature()
    w040 = -0.8
    waves = w040 * rho2 * rho2
    fringe = be.to_numpy(zernike_fit(px, py, waves, w).coefficients)
    assert fringe[8] == pytest.approx(w040 / 6, rel=1e-12)
    assert fringe[3] == pytest.approx(w040 / 2, rel=1e-12)
    assert fringe[0] == pytest.approx(w040 / 3, rel=1e-12)
    stats = wavefront_statistics(waves, px, py, w, be.isfinite(waves))
    expected = abs(w040) * 2 / (3 * math.sqrt(5))
    assert float(stats["rms_piston_removed"]) == pytest.approx(expected, rel=1e-12)


def test_tilt_is_removed_by_the_centroid_rms_and_zernike_evaluate_round_trips(backend):
    px, py, w, rho2 = _quadrature()
    coefficients = be.asarray([0.1, 0.3, -0.2, 0.05, 0.0, 0.02, 0.0, 0.01, -0.03])
    waves = zernike_evaluate(coefficients, px, py)
    fit = zernike_fit(px, py, waves, w, terms=9)
    np.testing.assert_allclose(be.to_numpy(fit.coefficients), be.to_numpy(coefficients), atol=1e-13)
    tilted = waves + 0.7 * px - 0.4 * py
    a = wavefront_statistics(waves, px, py, w, be.isfinite(waves))
    b = wavefront_statistics(tilted, px, py, w, be.isfinite(waves))
    assert float(b["rms_to_centroid"]) == pytest.approx(float(a["rms_to_centroid"]), rel=1e-11)


def test_invalid_samples_do_not_enter_the_fit(backend):
    px, py, w, rho2 = _quadrature()
    valid = be.to_numpy(py) < 0.6  # a vignetted top of the pupil
    waves = be.where(be.asarray(valid), 0.25 * rho2, 99.0)
    fit = zernike_fit(px, py, waves, be.where(be.asarray(valid), w, 0.0), terms=4)
    np.testing.assert_allclose(be.to_numpy(fit.coefficients), [0.125, 0, 0, 0.125], atol=1e-12)


def _disk(n):
    px, py, inside = square_grid(n)
    return px, py, be.reshape(be.astype(inside, be.float_dtype()), (n, n))


def test_strehl_follows_marechal_for_small_aberrations(backend):
    n = 64
    px, py, amplitude = _disk(n)
    # Noll Z11 (balanced primary spherical) has unit RMS; sigma its coefficient.
    z11 = be.reshape(zernike_basis(11, px, py, "noll")[:, 10], (n, n))
    for sigma in (0.01, 0.03):
        image = psf_from_opd(sigma * z11 * amplitude, amplitude, 2 * n)
        strehl = float(be.item(be.max(image)))
        assert strehl == pytest.approx(math.exp(-((2 * math.pi * sigma) ** 2)), rel=3e-3)
    perfect = psf_from_opd(0.0 * amplitude, amplitude, 2 * n)
    assert float(be.item(be.max(perfect))) == pytest.approx(1.0, abs=1e-13)
    assert float(be.item(perfect[n, n])) == pytest.approx(1.0, abs=1e-13)  # C at G // 2


def test_unaberrated_mtf_matches_the_diffraction_limit():
    n = 256
    _, _, amplitude = _disk(n)
    along_x, along_y = mtf_from_psf(psf_from_opd(0.0 * amplitude, amplitude, 2 * n))
    lags = np.arange(n + 1.0)
    analytic = be.to_numpy(diffraction_limit(be.asarray(lags), float(n)))
    # The staircase edge of an N-sample disk: error ~0.05 / N (measured 1.7e-4 at N = 256).
    np.testing.assert_allclose(be.to_numpy(along_x)[: n + 1], analytic, atol=3e-4)
    np.testing.assert_allclose(be.to_numpy(along_y)[: n + 1], analytic, atol=3e-4)
    half = interpolate_lags(along_x, be.asarray([0.5 * n, 10.25]))
    curve = be.to_numpy(along_x)
    expected = [curve[n // 2], 0.75 * curve[10] + 0.25 * curve[11]]
    np.testing.assert_allclose(be.to_numpy(half), expected, rtol=1e-12)


def test_undersampled_pupil_phase_warns_instead_of_passing_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_sampling(0.3, (0.0, 1.0), 64)  # a quarter-wave-ish step is fine
    with pytest.warns(SamplingWarning, match="aliases"):
        check_sampling(0.8, (0.0, 1.0), 64)


def test_fast_fft_sizes():
    assert [fast_size(n) for n in (1, 64, 65, 100, 129, 257)] == [1, 64, 72, 100, 135, 270]
