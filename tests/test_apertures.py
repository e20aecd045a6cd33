"""Physical apertures, obscurations, stop-size apertures and telecentric object space."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import singlet

from optics import backend as be
from optics import paraxial
from optics.analysis.spot import spot_diagram
from optics.apertures import ClearAperture
from optics.errors import ConfigurationError, LensFileError
from optics.io import load, save
from optics.io._schema import optic_from_dict
from optics.io._serialize import optic_to_dict
from optics.io.lensfile import loads
from optics.trace import trace_bundle, trace_rays, trace_surfaces

LENS = """
name = "t"

[aiming]
mode = "real"

[aperture]
type = "stop_diameter"
value = 8.0

[fields]
type = "angle"
values = [0.0, 10.0]

[[surfaces]]
thickness = inf

[[surfaces]]
radius = 50.0
thickness = 5.0
material = { index = 1.5 }
obscuration = 1.0
aperture = { shape = "ellipse", half_x = 6.0, half_y = 5.0, decenter = [0.5, 0.0] }

[[surfaces]]
radius = -50.0
thickness = 47.0
semi_diameter = 10
stop = true

[[surfaces]]
"""


@pytest.mark.parametrize(
    ("aperture", "inside", "outside"),
    [
        (ClearAperture("circle", (2.0,)), [(0, 0), (2, 0), (1.4, 1.4)], [(2.01, 0), (1.5, 1.5)]),
        (ClearAperture("annulus", (1.0, 2.0)), [(1, 0), (0, -2), (1.5, 0)], [(0.5, 0), (2.1, 0)]),
        (ClearAperture("rectangle", (2.0, 1.0)), [(2, 1), (-2, -1), (0, 0)], [(2.1, 0), (0, 1.1)]),
        (ClearAperture("ellipse", (2.0, 1.0)), [(2, 0), (0, 1), (1.4, 0.7)], [(1.5, 0.8)]),
        (
            ClearAperture("circle", (1.0,), decenter=(3.0, -1.0)),
            [(3, -1), (3.9, -1), (3, -2)],
            [(0, 0), (1.9, -1)],
        ),
    ],
)
def test_shapes_contain_what_they_should(backend, aperture, inside, outside):
    points = inside + outside
    x = be.asarray([float(p[0]) for p in points])
    y = be.asarray([float(p[1]) for p in points])
    got = be.to_numpy(aperture.contains(x, y)).tolist()
    assert got == [True] * len(inside) + [False] * len(outside)


@pytest.mark.parametrize(
    ("shape", "sizes", "word"),
    [("oval", (1.0,), "oval"), ("annulus", (2.0, 1.0), "inner"), ("circle", (-1.0,), "radius")],
)
def test_bad_apertures_are_errors_naming_the_value(shape, sizes, word):
    with pytest.raises(ConfigurationError, match=word):
        ClearAperture(shape, sizes)


def test_blocked_rays_are_invalid_not_dropped_and_spots_count_them(backend):
    optic = singlet(epd=10.0, fields=(0.0, 3.0))
    optic.surfaces[1].obscuration = 2.0
    px, py = be.asarray([0.0, 0.3, 0.5, 1.0]), be.asarray([0.0, 0.0, 0.0, 0.0])
    rays = trace_rays(optic, (0.0, 0.0), (px, py))
    assert be.to_numpy(rays.valid).tolist() == [False, False, True, True]  # r = 0, 1.5 mm blocked
    assert np.isfinite(be.to_numpy(rays.x)).all()
    bundle = trace_bundle(optic, [(0.0, 0.0)], pupil=6)
    assert bool(be.item(bundle.chief_blocked[0, 0])) and bool(be.item(bundle.chief_valid[0, 0]))
    spot = spot_diagram(optic, [(0.0, 0.0)], pupil=6)[0]
    expected = int((~be.to_numpy(bundle.rays.valid)).sum())
    assert spot.n_invalid == expected > 0 and spot.chief_blocked
    assert math.isfinite(float(be.item(spot.rms_radius_chief)))  # the open chief ray is kept


def test_aperture_replaces_the_circle_and_the_plain_circle_path_is_unchanged(backend):
    optic = singlet(epd=10.0)
    optic.surfaces[1].semi_diameter = 4.0
    px = be.asarray([0.0, 0.7, 0.9])
    circle = be.to_numpy(trace_rays(optic, (0.0, 0.0), (px, 0.0)).valid).tolist()
    assert circle == [True, True, False]
    optic.surfaces[1].aperture = ClearAperture("rectangle", (4.6, 1.0))
    rect = be.to_numpy(trace_rays(optic, (0.0, 0.0), (px, 0.0)).valid).tolist()
    assert rect == [True, True, True]
    rect_y = be.to_numpy(trace_rays(optic, (0.0, 0.0), (0.0, px)).valid).tolist()
    assert rect_y == [True, False, False]


def test_lens_file_round_trip_and_values(tmp_path, backend):
    optic = optic_from_dict(loads(LENS, "toml"), "t.toml")
    assert optic.aiming == "real"
    assert optic.surfaces[1].aperture == ClearAperture("ellipse", (6.0, 5.0), (0.5, 0.0))
    assert optic.surfaces[1].obscuration == 1.0
    for suffix in (".toml", ".json"):
        path = save(optic, tmp_path / f"lens{suffix}")
        assert optic_to_dict(load(path)) == optic_to_dict(optic)
    assert "[aiming]" in (tmp_path / "lens.toml").read_text()


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('mode = "real"', 'mode = "rael"', "t.toml: aiming: key 'mode' must be one of"),
        ('mode = "real"', 'mod = "real"', "t.toml: aiming: unknown key 'mod'"),
        ("half_y = 5.0", "half_z = 5.0", "t.toml: surface 1: aperture: unknown key 'half_z'"),
        ('shape = "ellipse"', 'shape = "oval"', "surface 1: aperture: key 'shape' must be one"),
        ("half_x = 6.0, ", "", "surface 1: aperture: missing key 'half_x'"),
        ("obscuration = 1.0", "obscuration = -1.0", "surface 1: key 'obscuration' must be"),
        ("obscuration = 1.0", "obscuration = [1]", "surface 1: key 'obscuration' must be"),
        ("aperture = { shape", "aperture = 3\nx = { shape", "surface 1: unknown key 'x'"),
        ("decenter = [0.5, 0.0] }", "decenter = 1 }", "aperture: key 'decenter' must be"),
        ("value = 8.0", "value = -8.0", "aperture: key 'value' must be positive"),
        (
            "values = [0.0, 10.0]",
            "values = [0.0, 10.0]\nobject_telecentric = true",
            "t.toml: [fields] key 'object_telecentric' needs an object at a finite distance",
        ),
        (
            "values = [0.0, 10.0]",
            'values = [0.0, 10.0]\nobject_telecentric = "yes"',
            "fields: key 'object_telecentric' must be true or false",
        ),
    ],
)
def test_every_wrong_key_is_an_error_naming_file_surface_and_key(old, new, message):
    assert old in LENS
    with pytest.raises(LensFileError) as caught:
        optic_from_dict(loads(LENS.replace(old, new, 1), "toml"), "t.toml")
    assert message in str(caught.value)


def test_stop_diameter_sets_the_entrance_pupil_for_both_conjugates(backend):
    optic = singlet(epd=10.0)
    optic.surfaces[1].is_stop, optic.surfaces[2].is_stop = False, True
    for distance in (math.inf, 300.0):
        optic.surfaces[0].thickness = distance
        optic.aperture.type, optic.aperture.value = "stop_diameter", 7.0
        first_order = paraxial(optic)
        # The paraxial marginal ray (px = 1, scaled to stay paraxial) meets the stop at D/2.
        small = 1e-7
        rays = trace_surfaces(optic, (0.0, 0.0), (small, 0.0), aiming="paraxial")
        assert float(be.item(rays[2].x)) / small == pytest.approx(3.5, rel=1e-6)
        optic.aperture.type, optic.aperture.value = "epd", float(be.item(first_order.epd))
        same = paraxial(optic)
        assert float(be.item(same.fno)) == pytest.approx(float(be.item(first_order.fno)))


def test_stop_diameter_does_not_clip_and_real_aim_lands_on_its_rim(backend):
    optic = optic_from_dict(loads(LENS, "toml"), "t.toml")
    optic.surfaces[1].aperture = optic.surfaces[1].obscuration = None
    rays = trace_surfaces(optic, (0.0, 1.0), (be.asarray([1.0, -1.0]), 0.0))
    assert be.to_numpy(rays[-1].valid).all()
    np.testing.assert_allclose(np.abs(be.to_numpy(rays[2].x)), 4.0, rtol=0, atol=1e-11)


def telecentric():
    optic = singlet(epd=10.0)
    optic.surfaces[0].thickness = 100.0
    optic.surfaces[2].thickness = 110.0
    optic.aperture.type, optic.aperture.value = "object_na", 0.1
    optic.fields.type, optic.fields.values = "object_height", [(0.0, 0.0), (0.0, 5.0)]
    optic.fields.object_telecentric = True
    optic.validate()
    return optic


def test_telecentric_chief_rays_leave_parallel_and_the_rim_fills_the_na(backend):
    optic = telecentric()
    px, py = be.asarray([0.0, 0.0, 1.0]), be.asarray([0.0, 1.0, 0.0])
    rays = trace_surfaces(optic, (0.0, 1.0), (px, py))[0]
    L, M, N = (be.to_numpy(getattr(rays, c)) for c in "LMN")
    assert L[0] == 0.0 and M[0] == 0.0 and N[0] == 1.0
    np.testing.assert_allclose([M[1], L[2]], [0.1, 0.1], rtol=1e-14)  # sin U = NA / n
    np.testing.assert_allclose(be.to_numpy(rays.y), 5.0)


def test_telecentric_needs_a_finite_object_and_an_object_na_aperture():
    optic = telecentric()
    optic.aperture.type = "epd"
    with pytest.raises(ConfigurationError, match="object_telecentric.*object_na"):
        optic.validate()
    optic = telecentric()
    optic.surfaces[0].thickness = math.inf
    with pytest.raises(ConfigurationError, match="object_telecentric.*finite"):
        optic.validate()
