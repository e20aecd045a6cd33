"""Ghost flare in simulated images: light carried, where the ghost lands, the CLI flag."""

from __future__ import annotations

import json

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.cli import main
from optics.ghosts import add_ghost_flare, ghost_magnification, ghosts, spot_kernel, trace_ghost

PITCH = 0.39  # mm: a coarse sensor, so that the double Gauss ghosts fit the frame


@pytest.fixture(scope="module")
def lens_and_report():
    lens = optics.load("double_gauss")
    return lens, ghosts(lens, rings=4)


def _point(size, row, col):
    image = np.zeros((size, size, 3))
    image[row, col] = 1.0
    return image


def test_a_ghost_adds_its_energy_of_the_light_when_its_spot_fits_the_frame(lens_and_report):
    lens, report = lens_and_report
    size = 161
    image = _point(size, size // 2, size // 2)
    (ghost,) = report.top(1)
    kernel = spot_kernel(lens, *ghost.surfaces, PITCH, 2 * size + 1)
    assert kernel.shape[0] < size and kernel.sum() == pytest.approx(ghost.passed)
    flare = add_ghost_flare(lens, image, PITCH, report, 1) - image
    assert flare.min() >= -1e-15
    assert flare.sum() == pytest.approx(ghost.energy * image.sum(), rel=1e-9)


def test_an_off_axis_source_s_ghost_lands_at_the_ghost_magnification(lens_and_report):
    lens, report = lens_and_report
    size, offset = 201, 12
    centre = size // 2
    image = _point(size, centre, centre + offset)
    (ghost,) = report.top(1)
    flare = (add_ghost_flare(lens, image, PITCH, report, 1) - image)[:, :, 0]
    cols = np.arange(size) - centre
    landed = (flare.sum(axis=0) * cols).sum() / flare.sum()
    magnification = ghost_magnification(lens, *ghost.surfaces)
    assert landed == pytest.approx(magnification * offset, abs=1.0)  # within a pixel


def test_ghost_magnification_matches_a_real_chief_ray_at_a_small_field(lens_and_report):
    lens, report = lens_and_report
    field = (0.0, 0.02)
    primary = optics.trace_rays(lens, field, (0.0, 0.0))
    for ghost in report.top(3):
        traced = trace_ghost(lens, *ghost.surfaces, field, rings=0)  # the chief ray alone
        ratio = float(be.to_numpy(traced.y)[0]) / float(be.item(primary.y))
        assert ratio == pytest.approx(ghost_magnification(lens, *ghost.surfaces), rel=2e-3)


def test_simulate_adds_ghost_flare_on_request(capsys, tmp_path):
    from optics.io.image import read_image, write_image

    # A bright patch on black: its ghosts (~0.4 % of its light, spread wide) show in the
    # dark surround of the 8-bit sRGB output, where sRGB encoding lifts faint light.
    scene = tmp_path / "patch.png"
    patch = np.zeros((40, 40, 3))
    patch[15:25, 15:25] = 1.0
    write_image(str(scene), patch)
    common = ["simulate", "double_gauss", str(scene), "--field-of-view", "20"]
    common += ["--psf-grid", "1", "--wavelengths-per-channel", "1", "--pupil-samples", "16"]
    plain, flared = tmp_path / "plain.png", tmp_path / "flared.png"
    assert main([*common, "-o", str(plain)]) == 0
    capsys.readouterr()
    assert main([*common, "-o", str(flared), "--ghosts", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ghosts"] == 3
    difference = read_image(str(flared), linear=True) - read_image(str(plain), linear=True)
    assert difference.min() >= 0 and difference[:5].sum() > 0  # flare above the patch too
    assert main([*common, "-o", str(flared), "--ghosts", "1", "--bayer", "RGGB"]) == 2
