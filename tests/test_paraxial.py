"""First-order data against closed-form thick-lens results and pupil definitions."""

from __future__ import annotations

import math

import pytest
from helpers import singlet

from optics import backend as be
from optics import paraxial
from optics.geometry import Standard
from optics.materials import AIR, ConstantIndex
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths
from optics.trace import trace_rays, trace_surfaces


def _f(value):
    return float(be.to_numpy(value))


def test_singlet_focal_lengths_follow_thick_lens_formula(backend):
    r1, r2, d, n = 40.0, -60.0, 6.0, 1.6
    data = paraxial(singlet(r1, r2, d, n))
    power = (n - 1) * (1 / r1 - 1 / r2 + (n - 1) * d / (n * r1 * r2))
    f = 1 / power
    assert _f(data.efl) == pytest.approx(f, rel=1e-13)
    assert _f(data.bfl) == pytest.approx(f * (1 - (n - 1) * d / (n * r1)), rel=1e-13)
    assert _f(data.ffl) == pytest.approx(-f * (1 + (n - 1) * d / (n * r2)), rel=1e-13)


def test_stop_on_first_surface_puts_entrance_pupil_there(backend):
    data = paraxial(singlet())
    assert _f(data.ep_position) == 0.0
    assert _f(data.epd) == 10.0
    assert _f(data.fno) == pytest.approx(_f(data.efl) / 10.0, rel=1e-14)


def test_image_fno_aperture_sets_epd_from_focal_length(backend):
    optic = singlet()
    optic.aperture = Aperture("image_fno", 4.0)
    data = paraxial(optic)
    assert _f(data.epd) == pytest.approx(_f(data.efl) / 4.0, rel=1e-14)


def _finite_singlet(object_distance=100.0, aperture=("object_na", 0.05)):
    return Optic(
        [
            Surface(thickness=object_distance),
            Surface(Standard(50.0), 5.0, ConstantIndex(1.5), is_stop=True),
            Surface(Standard(-50.0), 100.0),
            Surface(),
        ],
        Aperture(*aperture),
        Fields("object_height", [(0.0, 0.0), (0.0, 2.0)]),
        Wavelengths([0.55], 0),
    )


def test_object_na_sets_marginal_ray_slope(backend):
    data = paraxial(_finite_singlet())
    half_angle = math.asin(0.05)
    assert _f(data.epd) == pytest.approx(2 * 100.0 * math.tan(half_angle), rel=1e-13)


def test_finite_conjugate_magnification_equals_image_over_object_height(backend):
    data = paraxial(_finite_singlet())
    assert _f(data.magnification) == pytest.approx(_f(data.image_height) / 2.0, rel=1e-12)
    assert _f(data.fno) > 0


def test_object_height_field_launches_chief_ray_from_that_height(backend):
    optic = _finite_singlet()
    path = trace_surfaces(optic, (0.0, 1.0), (0.0, 0.0))
    assert _f(path[0].y) == pytest.approx(2.0, rel=1e-14)
    assert _f(path[0].z) == pytest.approx(-100.0, rel=1e-14)


def test_paraxial_image_height_field_lands_small_field_near_requested_height(backend):
    optic = singlet(fields=(0.0, 0.01))
    optic.fields = Fields("paraxial_image_height", [(0.0, 0.0), (0.0, 0.01)])
    data = paraxial(optic)
    assert _f(data.image_height) == pytest.approx(0.01, rel=1e-12)
    chief = trace_rays(optic, (0.0, 1.0), (0.0, 0.0))
    assert _f(chief.y) == pytest.approx(0.01, rel=1e-4)


def test_afocal_system_has_infinite_focal_length_without_warnings(backend, recwarn):
    plate = Optic(
        [
            Surface(thickness=math.inf),
            Surface(Standard(), 5.0, ConstantIndex(1.5), is_stop=True),
            Surface(Standard(), 5.0, AIR),
            Surface(),
        ],
        Aperture("epd", 4.0),
        Fields("angle", [(0.0, 0.0), (0.0, 5.0)]),
        Wavelengths([0.55], 0),
    )
    data = paraxial(plate)
    assert math.isinf(_f(data.efl))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
