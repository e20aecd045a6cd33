"""Exit pupil, immersed image, afocal systems and mirror F/#, against hand-solved optics."""

from __future__ import annotations

import math

import pytest
from helpers import reference_cooke, reference_expected

from optics import backend as be
from optics import paraxial
from optics.cli._analyze import analysis_report
from optics.errors import ConfigurationError
from optics.geometry import Standard
from optics.materials import AIR, ConstantIndex, Mirror
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths


def _f(value):
    return float(be.to_numpy(value))


def _optic(surfaces, aperture=("epd", 10.0), fields=("angle", [(0.0, 0.0)]), stop=1):
    for i, surface in enumerate(surfaces):
        surface.is_stop = i == stop
    return Optic(surfaces, Aperture(*aperture), Fields(*fields), Wavelengths([0.55], 0))


# --- exit pupil -------------------------------------------------------------------


def test_exit_pupil_does_not_depend_on_the_fields(backend):
    want = reference_expected()["paraxial"]
    optic = reference_cooke()
    optic.fields = Fields("angle", [(0.0, 0.0)])  # one on-axis field: the chief ray is the axis
    data = paraxial(optic)
    assert _f(data.xpd) == pytest.approx(want["xpd"], rel=1e-12)
    assert _f(data.xp_position) == pytest.approx(want["xp_position"], rel=1e-12)


def _stop_before_a_refracting_surface(n_image, d, radius, image_distance, image_material=None):
    """Stop (surface 1) d mm in front of one sphere into index n_image; the image in that glass."""
    return _optic(
        [
            Surface(thickness=math.inf),
            Surface(Standard(), d),
            Surface(Standard(radius), image_distance, ConstantIndex(n_image)),
            Surface(material=image_material or AIR),
        ],
        aperture=("epd", 8.0),
    )


def test_exit_pupil_is_the_image_of_the_stop(backend):
    # One surface images the stop: n'/s' - 1/s = (n' - 1)/R with s = -d, magnification
    # m = s' / (n' s); the exit pupil sits at s' from the surface and is |m| EPD wide.
    n, d, radius, to_image = 1.6, 12.0, 30.0, 70.0
    s_prime = n / ((n - 1) / radius - 1 / d)
    m = s_prime / (n * -d)
    data = paraxial(_stop_before_a_refracting_surface(n, d, radius, to_image))
    assert _f(data.xp_position) == pytest.approx(s_prime - to_image, rel=1e-13)
    assert _f(data.xpd) == pytest.approx(8.0 * abs(m), rel=1e-13)


# --- image immersed in glass ---------------------------------------------------


def test_immersed_image_fno_is_one_convention_at_both_conjugates(backend):
    # One sphere into glass n' = 1.6: power (n' - 1)/R, image-space focal length n'R/(n' - 1).
    # The F/# is 1/(2 n' u') of the marginal ray: f/EPD with f = 1/power (not n' f / EPD).
    n, radius, epd = 1.6, 30.0, 8.0
    power = (n - 1) / radius
    data = paraxial(_stop_before_a_refracting_surface(n, 0.0, radius, 80.0))
    assert _f(data.efl) == pytest.approx(n / power, rel=1e-14)
    assert _f(data.fno) == pytest.approx(1 / (power * epd), rel=1e-14)
    # A finite object far away tends to the same number (the finite formula, same convention).
    far = _stop_before_a_refracting_surface(n, 0.0, radius, 80.0)
    far.surfaces[0].thickness = 1e9
    far.fields = Fields("object_height", [(0.0, 0.0)])
    assert _f(paraxial(far).fno) == pytest.approx(1 / (power * epd), rel=1e-6)
    # At a finite distance s: n'/s' = power - 1/s, u' = (EPD/2)/s', F/# = s'/(n' EPD).
    near = _stop_before_a_refracting_surface(n, 0.0, radius, 80.0)
    near.surfaces[0].thickness = 300.0
    near.fields = Fields("object_height", [(0.0, 0.0)])
    s_prime = n / (power - 1 / 300.0)
    assert _f(paraxial(near).fno) == pytest.approx(s_prime / (n * epd), rel=1e-13)


@pytest.mark.parametrize("object_distance", [math.inf, 300.0])
def test_image_fno_aperture_round_trips_in_an_immersed_image(backend, object_distance):
    optic = _stop_before_a_refracting_surface(1.6, 0.0, 30.0, 80.0)
    optic.aperture = Aperture("image_fno", 3.0)
    optic.surfaces[0].thickness = object_distance
    if math.isfinite(object_distance):
        optic.fields = Fields("object_height", [(0.0, 0.0)])
    data = paraxial(optic)
    assert _f(data.fno) == pytest.approx(3.0, rel=1e-14)
    if math.isinf(object_distance):
        assert _f(data.epd) == pytest.approx(_f(data.efl) / (1.6 * 3.0), rel=1e-14)


def test_image_surface_material_does_not_change_the_image_space(backend):
    a = paraxial(_stop_before_a_refracting_surface(1.6, 5.0, 30.0, 80.0)).as_floats()
    b = paraxial(
        _stop_before_a_refracting_surface(1.6, 5.0, 30.0, 80.0, ConstantIndex(1.6))
    ).as_floats()
    assert a == b


# --- afocal systems ----------------------------------------------------------------


R1, R2, N_GLASS = 23.7, 11.3, 1.517
D_AFOCAL = N_GLASS * (R1 - R2) / (N_GLASS - 1)  # 36.38...: power 3.5e-18/mm in float64


def _afocal_block(d=D_AFOCAL, aperture=("epd", 4.0)):
    # A thick lens has zero power when d = n (R1 - R2) / (n - 1); in floating point the
    # paraxial trace leaves a round-off power (an EFL of 3e17 mm before afocal detection).
    return _optic(
        [
            Surface(thickness=math.inf),
            Surface(Standard(R1), d, ConstantIndex(N_GLASS)),
            Surface(Standard(R2), 20.0),
            Surface(),
        ],
        aperture=aperture,
        fields=("angle", [(0.0, 0.0), (0.0, 1.0)]),
    )


def test_afocal_system_has_null_focal_data(precision):
    data = paraxial(_afocal_block())
    for key in ("efl", "bfl", "ffl", "fno"):
        assert math.isinf(_f(getattr(data, key))), key
    assert math.isfinite(_f(data.xp_position)) and math.isfinite(_f(data.image_height))


def test_afocal_focal_data_print_as_json_null(backend):
    report = analysis_report(_afocal_block(), 2, backend)
    assert [report["paraxial"][k] for k in ("efl", "bfl", "ffl", "fno")] == [None] * 4
    assert report["paraxial"]["epd"] == 4.0


def test_a_weak_but_focal_system_is_not_afocal(backend):
    # 1 µm more glass: power = (n-1)^2 (d - d0) / (n R1 R2), an EFL of about 2 km.
    data = paraxial(_afocal_block(d=D_AFOCAL + 1e-3))
    power = (N_GLASS - 1) ** 2 * 1e-3 / (N_GLASS * R1 * R2)
    assert _f(data.efl) == pytest.approx(1 / power, rel=1e-8)


@pytest.mark.parametrize("block", [True, False])
def test_fno_aperture_on_an_afocal_system_names_the_aperture(backend, block):
    if block:
        optic = _afocal_block(aperture=("image_fno", 4.0))
    else:  # a flat window
        optic = _optic(
            [Surface(thickness=math.inf), Surface(Standard(), 5.0, ConstantIndex(1.5))]
            + [Surface(Standard(), 5.0), Surface()],
            aperture=("image_fno", 4.0),
        )
    with pytest.raises(ConfigurationError, match="aperture type 'image_fno' \\(value 4\\)"):
        paraxial(optic)


# --- mirrors -----------------------------------------------------------------------


def _concave_mirror(object_distance=math.inf, aperture=("epd", 20.0)):
    fields = ("angle", [(0.0, 0.0)])
    if math.isfinite(object_distance):
        fields = ("object_height", [(0.0, 0.0)])
    return _optic(
        [
            Surface(thickness=object_distance),
            Surface(Standard(-200.0), -100.0, Mirror()),
            Surface(),
        ],
        aperture=aperture,
        fields=fields,
    )


def test_concave_mirror_reports_positive_fno(backend):
    data = paraxial(_concave_mirror())
    # EFL is a signed z distance: the focus lies 100 mm toward -z of the mirror.
    assert _f(data.efl) == pytest.approx(-100.0, rel=1e-14)
    assert _f(data.fno) == pytest.approx(5.0, rel=1e-14)
    assert _f(paraxial(_concave_mirror(aperture=("image_fno", 5.0))).epd) == pytest.approx(20.0)


def test_concave_mirror_at_finite_conjugates_reports_positive_fno(backend):
    # Object at the centre of curvature (200 mm): the image is there too, |u'| = 10 / 200.
    optic = _concave_mirror(200.0)
    optic.surfaces[1].thickness = -200.0
    data = paraxial(optic)
    assert _f(data.fno) == pytest.approx(200.0 / 20.0, rel=1e-13)
    assert _f(data.magnification) == pytest.approx(-1.0, rel=1e-13)


def test_afocal_system_at_finite_conjugates_keeps_its_working_fno(backend):
    # An afocal system still images a finite object, with one lateral magnification m at
    # every conjugate; its working F/# is |m| / (2 tan(asin NA)) in air, and finite.
    data = {}
    for distance in (150.0, 400.0):
        optic = _afocal_block(aperture=("object_na", 0.05))
        optic.surfaces[0].thickness = distance
        optic.fields = Fields("object_height", [(0.0, 0.0), (0.0, 1.0)])
        data[distance] = paraxial(optic)
    m = _f(data[150.0].magnification)
    assert _f(data[400.0].magnification) == pytest.approx(m, rel=1e-9)
    for first_order in data.values():
        assert math.isinf(_f(first_order.efl))
        want = abs(m) / (2 * math.tan(math.asin(0.05)))
        assert _f(first_order.fno) == pytest.approx(want, rel=1e-12)
