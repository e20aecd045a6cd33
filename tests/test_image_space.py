"""Rays end the trace in image space: the image surface's own material is never entered."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _zemax_corpus import absent_reason, corpus_dir

import optics
from optics import backend as be
from optics.geometry import Standard
from optics.materials import AIR, ConstantIndex
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths


def _immersed_image(image_material):
    """One sphere (R = 10 mm) into n = 2 glass; the image at its paraxial focus, in the glass.

    f' = n' R / (n' - n) = 20 mm behind the vertex.  The image surface's own
    material is ``image_material`` (a lens file may say anything there).
    """
    glass = ConstantIndex(2.0)
    surfaces = [
        Surface(thickness=math.inf),
        Surface(Standard(10.0), 20.0, glass, is_stop=True),
        Surface(material=image_material),
    ]
    return Optic(
        surfaces, Aperture("epd", 18.0), Fields("angle", [(0.0, 0.0)]), Wavelengths([0.55])
    )


@pytest.mark.parametrize("image_material", [AIR, ConstantIndex(1.5)], ids=["air", "n1.5"])
def test_an_image_inside_glass_vignettes_no_ray(backend, image_material):
    optic = _immersed_image(image_material)
    px, py = (be.asarray(v) for v in np.meshgrid(np.linspace(-1, 1, 21), np.linspace(-1, 1, 21)))
    inside = be.to_numpy(px * px + py * py) <= 1.0
    rays = optics.trace_rays(optic, (0.0, 0.0), (px, py))
    # Refracted from n = 2 into air at the image surface, the outer rays were
    # totally reflected and counted vignetted.
    assert be.to_numpy(rays.valid)[inside].all()
    length = be.to_numpy(rays.L**2 + rays.M**2 + rays.N**2)[inside]
    np.testing.assert_allclose(length, 1.0, atol=64 * be.machine_eps(rays.L))


def test_the_marginal_ray_direction_follows_snell_into_the_glass(backend):
    optic = _immersed_image(AIR)
    rays = optics.trace_rays(optic, (0.0, 0.0), (0.0, 1.0))
    # At the sphere: height h = 9, normal angle a = asin(h/R); sin(refracted) = sin(a)/2.
    a = math.asin(9.0 / 10.0)
    slope_angle = a - math.asin(math.sin(a) / 2.0)  # the ray turns toward the axis
    assert float(be.item(rays.M)) == pytest.approx(-math.sin(slope_angle), abs=1e-12)


def test_the_image_surface_leaves_directions_as_the_last_lens_surface_made_them():
    path = corpus_dir() / "patent-US20030048547A1-t3.zmx"
    if not path.exists():
        pytest.skip(absent_reason())
    with pytest.warns(UserWarning):
        optic = optics.load(path, glass_fallback="model")
    # The file's last gap has n' = 0.999982 and its image surface says air: refracted
    # there, the transverse direction cosines were scaled by n' (1.8e-5 relative).
    px = be.asarray(np.linspace(-0.5, 0.5, 5))
    history = optics.trace_surfaces(optic, (0.0, 1.0), (px, 0.3))
    before, at_image = history[-2], history[-1]
    assert be.to_numpy(at_image.valid).all()
    for name in ("L", "M", "N"):
        np.testing.assert_allclose(
            be.to_numpy(getattr(at_image, name)), be.to_numpy(getattr(before, name)), atol=1e-15
        )
