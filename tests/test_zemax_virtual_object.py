"""A virtual object (negative object distance): rays converge toward an object plane behind
surface 1, in our lens files as in .zmx files (kbg-Relay_real_lens)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics import paraxial
from optics.io import optic_from_dict

PUPIL = np.array([[0.0, 0.0], [0.0, 1.0], [0.0, -1.0], [1.0, 0.0], [0.6, -0.5], [-0.3, 0.9]])


def _thin_lens(focal, object_distance, image_distance, height=4.0):
    return optic_from_dict(
        {
            "aperture": {"type": "epd", "value": 10.0},
            "fields": {"type": "object_height", "values": [0.0, height]},
            "wavelengths": {"values": [0.55]},
            "surfaces": [
                {"thickness": object_distance},
                {
                    "type": "paraxial",
                    "focal_length": focal,
                    "thickness": image_distance,
                    "stop": True,
                },
                {},
            ],
        }
    )


@pytest.mark.parametrize("focal, d", [(50.0, 30.0), (50.0, 200.0), (-80.0, 30.0)])
def test_a_beam_converging_onto_a_virtual_object_images_by_the_gaussian_equation(focal, d):
    # The object point lies d behind the lens (object distance -d): 1/s' = 1/f + 1/d.
    image = 1.0 / (1.0 / focal + 1.0 / d)
    magnification = image / d
    optic = _thin_lens(focal, -d, image)
    first_order = paraxial(optic)
    assert first_order.bfl == pytest.approx(focal, rel=1e-12)
    assert first_order.magnification == pytest.approx(magnification, rel=1e-12)
    for field in (0.0, 0.5, 1.0):
        rays = optics.trace_rays(optic, (0.0, field), (PUPIL[:, 0], PUPIL[:, 1]))
        assert np.all(np.asarray(rays.valid))
        assert np.all(np.asarray(rays.N) > 0)  # the rays travel +z
        np.testing.assert_allclose(rays.y, magnification * 4.0 * field, atol=1e-12)
        np.testing.assert_allclose(rays.x, 0.0, atol=1e-12)


def test_rays_start_on_the_virtual_object_and_reach_surface_1_at_a_negative_distance():
    optic = _thin_lens(50.0, -30.0, 18.75)
    path = optics.trace_surfaces(optic, (0.0, 1.0), (PUPIL[:, 0], PUPIL[:, 1]))
    start, lens = path[0], path[1]
    np.testing.assert_allclose(start.z, 30.0)  # the object plane behind surface 1
    np.testing.assert_allclose(start.y, 4.0)
    # The ray from the pupil point (px, py) * 5 on surface 1 toward the object point.
    np.testing.assert_allclose(lens.x, 5.0 * PUPIL[:, 0], atol=1e-13)
    np.testing.assert_allclose(lens.y, 5.0 * PUPIL[:, 1], atol=1e-13)
    length = np.sqrt((5.0 * PUPIL[:, 0]) ** 2 + (5.0 * PUPIL[:, 1] - 4.0) ** 2 + 30.0**2)
    # The path to surface 1 counts negative; the ideal lens then adds its phase
    # f - sqrt(r² + f²) (docs/zemax.md).
    r2 = 25.0 * (PUPIL[:, 0] ** 2 + PUPIL[:, 1] ** 2)
    phase = 50.0 - np.sqrt(r2 + 50.0**2)
    np.testing.assert_allclose(lens.opd, -length + phase, rtol=1e-14)


def _sphere_reference(h, d, radius, n, image_z):
    """A ray through (0, h, 0) toward the virtual object point (0, 0, d), refracted by a
    sphere of radius ``radius`` (vertex at 0) from index 1 into ``n``, at z = image_z."""
    p = np.array([0.0, h, 0.0])
    v = np.array([0.0, -h, d]) / math.hypot(h, d)
    centre = np.array([0.0, 0.0, radius])
    # |p + t v - c|² = R²: the root nearer the start point (the sheet through the vertex).
    b = v @ (p - centre)
    c = (p - centre) @ (p - centre) - radius**2
    t = min((-b + math.sqrt(b * b - c), -b - math.sqrt(b * b - c)), key=abs)
    hit = p + t * v
    normal = (hit - centre) / radius  # unit, (0, 0, -1) at the vertex: against the ray
    cos_i = -(normal @ v)
    mu = 1.0 / n
    cos_t = math.sqrt(1.0 - mu * mu * (1.0 - cos_i * cos_i))
    out = mu * v + (mu * cos_i - cos_t) * normal
    s = (image_z - hit[2]) / out[2]
    return np.concatenate([hit + s * out, out])


@pytest.mark.parametrize("radius", [40.0, -60.0])
def test_a_real_ray_through_one_sphere_from_a_virtual_object_matches_the_hand_solution(radius):
    d, n, image_z = 50.0, 1.5, 70.0
    optic = optic_from_dict(
        {
            "aperture": {"type": "epd", "value": 16.0},
            "fields": {"type": "object_height", "values": [0.0]},
            "wavelengths": {"values": [0.55]},
            "surfaces": [
                {"thickness": -d},
                {"radius": radius, "thickness": image_z, "material": {"index": n}, "stop": True},
                {"material": {"index": n}},  # the image in the glass: no refraction there
            ],
        }
    )
    py = np.array([-1.0, -0.4, 0.3, 1.0])
    rays = optics.trace_rays(optic, (0.0, 0.0), (0.0 * py, py))
    got = np.stack([np.asarray(getattr(rays, k)) for k in "xyzLMN"], axis=-1)
    for i, p in enumerate(py):
        np.testing.assert_allclose(
            got[i], _sphere_reference(8.0 * p, d, radius, n, image_z), atol=1e-12
        )


def test_a_virtual_object_round_trips_through_toml(tmp_path):
    optic = _thin_lens(50.0, -30.0, 18.75)
    path = tmp_path / "virtual.toml"
    optics.save(optic, path)
    again = optics.load(path)
    assert again.surfaces[0].thickness == -30.0
    np.testing.assert_array_equal(
        np.asarray(optics.trace_rays(again, (0.0, 1.0), (0.0, 1.0)).y),
        np.asarray(optics.trace_rays(optic, (0.0, 1.0), (0.0, 1.0)).y),
    )
