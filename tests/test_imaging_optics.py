"""The simulator against optics: point PSFs, a perfect lens, relative illumination, the warp,
and a brute-force ray render.

References are independent of the simulator's own pipeline: optics' FFT PSF
(``optics.analysis.psf``) binned into pixels here, the diffraction-limited
MTF and the pixel aperture of a perfect lens, Foote's closed form for the
irradiance from a Lambertian disk, real chief rays from ``optics.trace_rays``,
and rays traced per scene pixel and binned.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics.analysis import psf
from optics.imaging import Scene, Sensor, place_scene, simulate_image
from optics.imaging.warp import relative_illumination
from optics.io import optic_from_dict
from optics.sampling import square_grid

WAVE = [0.55]


def _ideal(epd, focal=50.0):
    return optic_from_dict(
        {
            "aperture": {"type": "epd", "value": epd},
            "fields": {"type": "angle", "values": [0.0, 10.0]},
            "wavelengths": {"values": WAVE},
            "surfaces": [
                {"thickness": float("inf")},
                {"type": "paraxial", "focal_length": focal, "thickness": focal, "stop": True},
                {},
            ],
        }
    )


def _placed(lens, n, pitch):
    return place_scene(lens, Scene(np.zeros((n, n, 1)), wavelengths=WAVE), _half(n, pitch))


def _half(n, pitch):
    return 0.5 * pitch * math.hypot(n, n)


def test_point_sources_at_the_grid_points_reproduce_the_fft_psfs_there():
    lens = optics.load("cooke_triplet")
    n, pitch, size = 65, 0.004, 15
    image = np.zeros((n, n, 1))
    points = [16, 32, 48]  # the inner grid points of a 5 x 5 grid over 65 pixels
    for a in points:
        for b in points:
            image[a, b, 0] = 1.0
    result = simulate_image(
        lens,
        image,
        wavelengths=WAVE,
        sensor=Sensor(pitch=pitch),
        psf_grid_size=5,
        kernel_size=size,
        distortion=False,
        illumination=False,
    )
    out = np.asarray(result.image)[:, :, 1]
    placed = _placed(lens, n, pitch)
    r = size // 2
    for i, a in enumerate(points):
        for j, b in enumerate(points):
            field = result.psfs.fields[(i + 1) * 5 + (j + 1)]
            ref = psf(placed.optic, field, WAVE[0], samples=32, grid=64)
            image_psf, grid = np.asarray(ref.image), ref.grid
            v, u = np.mgrid[0:grid, 0:grid]
            # bin the PSF pixels by their centres: +x to the right, +y up (rows down)
            col = np.rint((u - grid // 2) * float(ref.dx) / pitch).astype(int) + r
            row = np.rint(-(v - grid // 2) * float(ref.dy) / pitch).astype(int) + r
            keep = (col >= 0) & (col < size) & (row >= 0) & (row < size)
            binned = np.zeros((size, size))
            np.add.at(binned, (row[keep], col[keep]), image_psf[keep])
            patch = out[a - r : a + r + 1, b - r : b + r + 1]
            # binning by centres vs the simulator's pixel-area integration: 3.2 % of the peak
            assert (
                np.abs(patch / patch.sum() - binned / binned.sum()).max()
                < 0.05 * binned.max() / binned.sum()
            )
            assert patch.sum() == pytest.approx(1.0, abs=1e-9)  # no light lost between grid points


def test_a_perfect_lens_reproduces_a_sine_scene_with_the_diffraction_and_pixel_mtf():
    """One PSF (grid size 1): optics' ideal lens is perfect in ray positions at every field,
    but its OPD off axis carries a spurious tilt and coma (0.08 and 0.04 waves at 0.4 degrees
    here: the thin-lens phase term is exact on axis only), so its off-axis FFT PSFs are not
    a perfect lens's."""
    lens = _ideal(epd=10.0)  # F/5
    n, pitch, period = 64, 0.004, 16
    x = np.arange(n)
    scene = np.broadcast_to(0.5 + 0.4 * np.sin(2 * np.pi * x / period), (n, n))[:, :, None]
    result = simulate_image(
        lens,
        np.ascontiguousarray(scene),
        wavelengths=WAVE,
        sensor=Sensor(pitch=pitch),
        psf_grid_size=1,
        pupil_samples=64,
        illumination=False,
    )
    assert abs(result.info["distortion_corner_percent"]) < 1e-9
    row = np.asarray(result.image)[n // 2, 16:48, 0]
    basis = np.stack(
        [np.ones(32), np.sin(2 * np.pi * x[16:48] / period), np.cos(2 * np.pi * x[16:48] / period)],
        1,
    )
    c, *_ = np.linalg.lstsq(basis, row, rcond=None)
    # The kernel is the PSF integrated over a pixel, sampled at pixel steps: a sampled sine
    # sees the diffraction MTF times the pixel's sinc, with its aliases k / pitch folded in.
    cutoff = 1.0 / (WAVE[0] * 1e-3 * 5.0)
    nu = 1.0 / (period * pitch) + np.arange(-3, 4) / pitch
    v = np.minimum(np.abs(nu) / cutoff, 1.0)
    mtf = 2 / np.pi * (np.arccos(v) - v * np.sqrt(1 - v * v))
    expected = float(np.sum(mtf * np.sinc(nu * pitch)))  # 0.9458 (0.9392 without aliases)
    assert c[0] == pytest.approx(0.5, abs=3e-4)  # the Airy tail beyond the border: 1.2e-4
    assert math.hypot(c[1], c[2]) / 0.4 == pytest.approx(expected, abs=2e-3)


def _foote(x, radius, distance):
    """Irradiance / radiance from a Lambertian disk at distance d, point offset x (over pi)."""
    h2, a2 = distance * distance, radius * radius
    return 0.5 * (1 - (h2 + x * x - a2) / np.sqrt((h2 + x * x + a2) ** 2 - 4 * a2 * x * x))


def test_a_flat_scene_gives_the_relative_illumination_of_foote_s_disk():
    lens = _ideal(epd=20.0)  # the stop at the ideal lens: the cone is the disk seen from the image
    n, pitch = 41, 0.45  # a 13 mm half-diagonal: 14.6 degrees
    placed = _placed(lens, n, pitch)
    fields = np.linspace(0.0, 1.0, 6)
    ri = np.asarray(relative_illumination(placed.optic, fields, WAVE[0]))
    foote = _foote(fields * _half(n, pitch), 10.0, 50.0)
    np.testing.assert_allclose(ri, foote / foote[0], atol=2e-5)
    flat = simulate_image(  # sub-pixel PSFs: the warp and the illumination alone
        lens,
        np.ones((n, n, 1)),
        wavelengths=WAVE,
        sensor=Sensor(pitch=pitch),
        psf_grid_size=1,
        kernel_size=1,
    )
    row = np.asarray(flat.image)[n // 2, :, 0]
    x = (np.arange(n) - (n - 1) / 2) * pitch
    np.testing.assert_allclose(row, _foote(x, 10.0, 50.0) / _foote(0.0, 10.0, 50.0), atol=1e-4)


def _remote_stop_singlet():
    """A singlet 20 mm behind its stop: barrel distortion (-2 % at 13 degrees)."""
    return optic_from_dict(
        {
            "aperture": {"type": "epd", "value": 6.0},
            "fields": {"type": "angle", "values": [0.0, 12.0]},
            "wavelengths": {"values": WAVE},
            "surfaces": [
                {"thickness": float("inf")},
                {"thickness": 20.0, "stop": True},
                {"radius": 51.5, "thickness": 3.6, "material": "N-BK7"},
                {"thickness": 97.0},
                {},
            ],
        }
    )


def test_the_warp_puts_points_at_their_real_chief_ray_image_points():
    lens = _remote_stop_singlet()
    n, pitch = 81, 0.4
    spots = [(40, 60), (40, 75), (20, 40), (10, 70), (6, 6)]
    image = np.zeros((n, n, 1))
    for a, b in spots:
        image[a, b, 0] = 1.0
    result = simulate_image(
        lens,
        image,
        wavelengths=WAVE,
        sensor=Sensor(pitch=pitch),
        pupil_samples=96,
        kernel_size=1,  # the warp alone
        illumination=False,
    )
    out = np.asarray(result.image)[:, :, 0]
    top = _half(n, pitch)
    placed = _placed(lens, n, pitch)
    largest = 0.0
    for a, b in spots:
        x, y = (b - (n - 1) / 2) * pitch, ((n - 1) / 2 - a) * pitch  # its paraxial image
        chief = optics.trace_rays(placed.optic, (x / top, y / top), (0.0, 0.0), WAVE[0])
        row, col = (n - 1) / 2 - float(chief.y) / pitch, float(chief.x) / pitch + (n - 1) / 2
        i0, j0 = int(round(row)), int(round(col))
        window = out[i0 - 3 : i0 + 4, j0 - 3 : j0 + 4]
        ii, jj = np.mgrid[i0 - 3 : i0 + 4, j0 - 3 : j0 + 4]
        centroid = ((window * ii).sum() / window.sum(), (window * jj).sum() / window.sum())
        assert centroid == pytest.approx((row, col), abs=0.03)  # pixels
        largest = max(largest, math.hypot(row - a, col - b))
    assert largest > 0.5  # the distortion moves the corner point by more than half a pixel


def test_the_simulation_agrees_with_a_brute_force_ray_render():
    """Rays traced from every scene pixel (48 x 48 pupil grid) and binned in pixels, against
    the FFT-PSF simulation of the plano-convex singlet (spherical aberration, 40 um RMS spot,
    6.6 pixels).  Measured: 4.3 % L1 difference (diffraction, which the rays lack, and ray
    binning noise); 31 % with too few pupil samples (N = 32, aliased PSFs)."""
    lens = optics.load("singlet")
    wave = [0.5875618]
    n, pitch = 40, 0.006
    yy, xx = np.mgrid[0:n, 0:n]
    scene = np.zeros((n, n))
    scene[(yy - n / 3) ** 2 + (xx - n / 2) ** 2 < (n / 8) ** 2] = 1.0
    scene[::9, ::9] += 2.0
    scene[n // 2 :, : n // 4] = 0.5
    result = simulate_image(
        lens,
        scene[:, :, None],
        wavelengths=wave,
        sensor=Sensor(pitch=pitch),
        psf_grid_size=3,
        pupil_samples=128,
        illumination=False,
    )
    out = np.asarray(result.image)[:, :, 0]
    top = _half(n, pitch)
    placed = place_scene(lens, Scene(scene[:, :, None], wavelengths=wave), top)
    px, py, inside = square_grid(48)
    px, py = np.asarray(px)[np.asarray(inside)], np.asarray(py)[np.asarray(inside)]
    ii, jj = np.nonzero(scene)
    x, y = (jj - (n - 1) / 2) * pitch, ((n - 1) / 2 - ii) * pitch
    rays = optics.trace_rays(
        placed.optic, ((x / top)[:, None], (y / top)[:, None]), (px, py), wave[0]
    )
    col = np.rint(np.asarray(rays.x) / pitch + (n - 1) / 2).astype(int)
    row = np.rint((n - 1) / 2 - np.asarray(rays.y) / pitch).astype(int)
    valid = np.asarray(rays.valid)
    weight = np.broadcast_to((scene[ii, jj] / valid.sum(axis=1))[:, None], valid.shape)
    keep = valid & (col >= 0) & (col < n) & (row >= 0) & (row < n)
    brute = np.zeros((n, n))
    np.add.at(brute, (row[keep], col[keep]), weight[keep])
    assert np.abs(out - brute).sum() / brute.sum() < 0.06
    assert out.sum() == pytest.approx(brute.sum(), rel=0.01)
