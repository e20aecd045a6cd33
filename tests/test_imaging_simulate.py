"""simulate_image as a whole: tiles, light conservation, spectral weights, sensor, errors."""

from __future__ import annotations

import numpy as np
import pytest

import optics
from optics.errors import ConfigurationError
from optics.imaging import Scene, Sensor, simulate_image, spectral_samples
from optics.imaging.sensor import bayer_masks
from optics.imaging.tiles import progress_bar, tile_ranges

LENS = optics.load("cooke_triplet")
SCENE = np.random.default_rng(5).random((30, 38, 3))


def _run(image=SCENE, **options):
    options.setdefault("sensor", Sensor(pitch=0.004))
    options.setdefault("psf_grid_size", 3)
    options.setdefault("wavelengths_per_channel", 1)
    options.setdefault("pupil_samples", 16)
    return simulate_image(LENS, image, **options)


def test_tiles_give_the_image_of_one_pass():
    whole = np.asarray(_run().image)
    tiled = _run(tile=11, progress=False).image
    assert isinstance(tiled, np.ndarray)
    np.testing.assert_allclose(tiled, whole, atol=1e-13)
    assert len(tile_ranges(30, 38, 11)) == 12


def test_the_blur_keeps_every_source_s_light():
    scene = np.zeros((40, 40, 3))
    scene[10:30, 12:28] = 1.0  # black borders wider than the kernel radius (6 pixels)
    blurred = np.asarray(_run(scene).image)
    unblurred = np.asarray(_run(scene, kernel_size=1).image)
    assert _run(scene).info["psf_grid"]["kernel_size"] // 2 < 10
    np.testing.assert_allclose(blurred.sum(axis=(0, 1)), unblurred.sum(axis=(0, 1)), rtol=1e-12)
    assert not np.allclose(blurred, unblurred, atol=1e-3)  # it did blur


def test_the_spectral_weights_of_rgb_and_multispectral_scenes():
    wavelengths, source, weights = spectral_samples(Sensor(), None, 3)
    np.testing.assert_allclose(
        wavelengths[3:6], [0.54 - 0.035 * 3**0.5, 0.54, 0.54 + 0.035 * 3**0.5]
    )
    np.testing.assert_allclose(weights[3:6, 1], [1 / 6, 2 / 3, 1 / 6])
    assert source == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    _, _, multi = spectral_samples(Sensor(), [0.45, 0.55, 0.65], 3)
    np.testing.assert_allclose(multi.sum(axis=0), 1.0)
    assert np.argmax(multi[:, 0]) == 2 and np.argmax(multi[:, 2]) == 0  # red, blue


def test_a_white_scene_is_white_on_axis():
    out = np.asarray(_run(np.ones((31, 31, 3)), wavelengths_per_channel=3).image)
    np.testing.assert_allclose(out[15, 15], 1.0, atol=1.5e-3)  # 8.5e-4: halo beyond the border


def test_bayer_sites_and_noise_statistics():
    masks = bayer_masks("RGGB", 2, 2)
    assert masks[0, 0, 0] == masks[1, 0, 1] == masks[1, 1, 0] == masks[2, 1, 1] == 1.0
    assert masks.sum() == 4
    flat = np.full((40, 40, 3), 0.5)
    sensor = Sensor(pitch=0.004, noise=True, seed=7, full_well=1000.0, read_noise=5.0)
    clean = np.asarray(_run(flat, kernel_size=1).image)
    noisy = np.asarray(_run(flat, kernel_size=1, sensor=sensor).image)
    again = np.asarray(_run(flat, kernel_size=1, sensor=sensor).image)
    np.testing.assert_array_equal(noisy, again)  # the seed fixes it
    expected = np.sqrt(clean * 1000.0 + 25.0) / 1000.0  # shot + read, electrons -> signal
    assert np.std(noisy - clean) == pytest.approx(float(np.mean(expected)), rel=0.05)
    mosaic = _run(flat, sensor=Sensor(pitch=0.004, bayer="GBRG")).image
    assert tuple(mosaic.shape) == (40, 40, 1)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Scene(np.zeros((4, 4, 2))), "RGB scene needs 3 channels"),
        (lambda: Scene(np.zeros((4, 4, 3)), field_of_view=10, object_height=1), "not both"),
        (lambda: Sensor(pitch=-1.0), "pitch must be > 0"),
        (lambda: Sensor(bayer="RGBG"), "bayer must be one of"),
        (lambda: _run(psf_grid_size=0), "psf grid size"),
        (lambda: _run(kernel_size=4), "odd"),
    ],
)
def test_bad_settings_are_configuration_errors(make, message):
    with pytest.raises(ConfigurationError, match=message):
        make()


def test_the_progress_bar_is_optional():
    assert progress_bar(3, False) is None
    pytest.importorskip("tqdm")
    bar = progress_bar(3, True)
    bar.update(3)
    bar.close()


def test_float32_precision_gives_a_float32_image_close_to_float64():
    from optics import backend as be

    with be.using("numpy", precision="float32"):
        single = _run(sensor=Sensor(pitch=0.004, noise=True, seed=2)).image
    double = np.asarray(_run(sensor=Sensor(pitch=0.004, noise=True, seed=2)).image)
    assert single.dtype == np.float32
    # float32 paths of ~1e5 waves carry ~0.01 wave of OPD rounding: 4e-4 at most here
    np.testing.assert_allclose(single, double, atol=1e-3)
    assert np.mean(np.abs(single - double)) < 1e-4


def test_without_illumination_the_map_has_the_same_warp_and_no_ri_trace():
    from optics.imaging.warp import radial_map

    with_ri = radial_map(LENS, 1.5, 0.55, 1.05, count=5)
    without = radial_map(LENS, 1.5, 0.55, 1.05, count=5, illumination=False)
    np.testing.assert_array_equal(np.asarray(without.heights), np.asarray(with_ri.heights))
    np.testing.assert_array_equal(np.asarray(without.illumination), np.ones(5))
    assert float(np.asarray(with_ri.illumination)[-1]) < 1.0  # so the ones are not a no-op
    # relative illumination only dims (RI <= 1); without it nothing is dimmed
    off = _run(illumination=False)
    assert off.info["relative_illumination_corner"] == 1.0
    on = _run()
    ratio = np.asarray(on.image) / np.asarray(off.image)
    assert 0.9 < ratio.min() and ratio.max() <= 1.0 + 1e-12
