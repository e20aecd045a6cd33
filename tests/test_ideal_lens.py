"""The ideal thin lens (``type = "paraxial"``): perfect imaging at any conjugate, power 1/f."""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics import paraxial
from optics.io import optic_from_dict


def _lens(focal=50.0, object_distance=float("inf"), image_distance=None, after=None):
    image_distance = focal if image_distance is None else image_distance
    lens = {"type": "paraxial", "focal_length": focal, "thickness": image_distance, "stop": True}
    if after is not None:
        lens["material"] = after
    return optic_from_dict(
        {
            "aperture": {"type": "epd", "value": 20.0},
            "fields": {"type": "angle", "values": [0.0, 10.0]},
            "wavelengths": {"values": [0.55]},
            "surfaces": [{"thickness": object_distance}, lens, {}],
        }
    )


PUPIL = np.array([[0.0, 0.0], [0.0, 1.0], [0.0, -1.0], [1.0, 0.0], [0.6, -0.5], [-0.3, 0.9]])


def test_the_paraxial_power_is_one_over_f():
    assert paraxial(_lens(50.0)).efl == pytest.approx(50.0, rel=1e-15)
    assert paraxial(_lens(-80.0)).efl == pytest.approx(-80.0, rel=1e-15)


@pytest.mark.parametrize("field", [0.0, 0.5, 1.0])
def test_a_collimated_beam_meets_at_f_tan_theta(field):
    optic = _lens(50.0)
    rays = optics.trace_rays(optic, (0.0, field), (PUPIL[:, 0], PUPIL[:, 1]))
    assert np.all(rays.valid)
    np.testing.assert_allclose(rays.y, 50.0 * np.tan(np.radians(10.0 * field)), atol=1e-12)
    np.testing.assert_allclose(rays.x, 0.0, atol=1e-12)


def test_the_image_of_an_object_at_2f_is_perfect_at_2f_and_inverted():
    optic = optic_from_dict(
        {
            "aperture": {"type": "epd", "value": 20.0},
            "fields": {"type": "object_height", "values": [0.0, 5.0]},
            "wavelengths": {"values": [0.55]},
            "surfaces": [
                {"thickness": 100.0},
                {"type": "paraxial", "focal_length": 50.0, "thickness": 100.0, "stop": True},
                {},
            ],
        }
    )
    rays = optics.trace_rays(optic, (0.0, 1.0), (PUPIL[:, 0], PUPIL[:, 1]))
    np.testing.assert_allclose(rays.y, -5.0, atol=1e-12)
    assert paraxial(optic).magnification == pytest.approx(-1.0, rel=1e-14)


def test_the_image_medium_stretches_the_focus_by_its_index():
    optic = _lens(50.0, image_distance=75.0, after={"index": 1.5})
    rays = optics.trace_rays(optic, (0.0, 0.0), (PUPIL[:, 0], PUPIL[:, 1]))
    np.testing.assert_allclose(rays.y, 0.0, atol=1e-12)
    assert paraxial(optic).bfl == pytest.approx(75.0, rel=1e-14)


def test_the_optical_path_to_the_focus_is_the_same_for_every_ray():
    optic = _lens(50.0)
    rays = optics.trace_rays(optic, (0.0, 0.0), (PUPIL[:, 0], PUPIL[:, 1]))
    np.testing.assert_allclose(rays.opd - rays.opd[0], 0.0, atol=1e-12)


def test_a_zero_focal_length_is_an_error():
    with pytest.raises(optics.LensFileError, match=r"surface 1: key 'focal_length' must be"):
        _lens(0.0)


def test_the_image_height_and_its_focal_length_derivative_on_both_backends(backend):
    # A ray at angle theta entering at height h reaches the plane d behind the lens at
    # y = h + d (tan(theta) - h / f): dy/df = d h / f^2.
    from optics import backend as be

    theta, h, d, f = 5.0, 4.0, 60.0, 50.0
    optic = _lens(f, image_distance=d)
    geometry = optic.surfaces[1].geometry
    geometry.focal_length = be.parameter(be.asarray(f))
    py = h / 10.0  # EPD 20: pupil coordinate 0.4 is height 4 at the lens (the stop)
    ray = optics.trace_rays(optic, (0.0, theta / 10.0), (0.0, py))
    expected = h + d * (math.tan(math.radians(theta)) - h / f)
    assert float(be.item(ray.y)) == pytest.approx(expected, abs=1e-12)
    if be.requires_grad(ray.y):  # torch: autograd through the bend
        ray.y.backward()
        assert float(geometry.focal_length.grad) == pytest.approx(d * h / f**2, rel=1e-12)
    for step in (1e-4, 5e-5):  # central differences at two steps
        ys = []
        for sign in (1, -1):
            geometry.focal_length = f + sign * step
            ys.append(float(be.item(optics.trace_rays(optic, (0.0, theta / 10.0), (0.0, py)).y)))
        assert (ys[0] - ys[1]) / (2 * step) == pytest.approx(d * h / f**2, rel=1e-6)
