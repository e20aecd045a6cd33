"""Issue 12's features in .zmx files: FLOA, RAIM, clear apertures and telecentric object space.

Each mapping is read from a small file written here, written back, and read
again to the same lens-file data.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import optics
from optics import paraxial
from optics.errors import LensFileError
from optics.io import optic_to_dict
from optics.io.zemax import ZemaxWarning, dumps, encode, loads

HEADER = """VERS 190513 80 123457 L123457
MODE SEQ
UNIT MM X W X CM MR CPMM
{aperture}
FTYP {field_type} {telecentric} 2 1 0 0 0
XFLN 0 0
YFLN 0 {field}
WAVM 1 0.5875618 1
PWAV 1
"""
SURFACES = """SURF 0
  CURV 0.0
  DISZ {object_distance}
SURF 1
  STOP
  CURV 0.02
  DISZ 4
  GLAS ___BLANK 1 0 1.5 0 0 0 0 0 0 0
  DIAM 6 1 0 0 1 ""
{apertures}SURF 2
  CURV -0.005
  DISZ 95
SURF 3
  CURV 0
  DISZ 0
"""


def _text(aperture="ENPD 10", apertures="", field_type=0, telecentric=0, field=5, distance=None):
    header = HEADER.format(
        aperture=aperture, field_type=field_type, telecentric=telecentric, field=field
    )
    surfaces = SURFACES.format(
        object_distance="INFINITY" if distance is None else distance, apertures=apertures
    )
    return header + surfaces


def _read(text, source="lens.zmx"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZemaxWarning)
        return loads(text if isinstance(text, bytes) else text.encode("utf-8"), source)


def _round_trip(optic):
    """The optic written to .zmx and read back; the written text."""
    text = dumps(optic)
    again = _read(encode(text), "written.zmx")
    assert optic_to_dict(again) == optic_to_dict(optic)
    assert encode(dumps(again)) == encode(text)
    return again, text


# --- FLOA -> stop_diameter --------------------------------------------------------------


def test_floa_is_a_stop_diameter_aperture_and_is_written_back():
    optic = _read(_text("FLOA"))
    assert (optic.aperture.type, optic.aperture.value) == ("stop_diameter", 12.0)
    assert float(paraxial(optic).epd) == 12.0  # the stop is surface 1
    _, text = _round_trip(optic)
    assert "\r\nFLOA\r\n" in text and '  DIAM 6.0 1 0 0 1 ""' in text


def test_a_stop_diameter_and_the_stops_own_clear_aperture_are_both_written_back():
    optic = _read(_text("FLOA"))
    optic.aperture = type(optic.aperture)("stop_diameter", 9.0)
    optic.surfaces[1].semi_diameter = 5.0  # not D/2: both are kept
    again, text = _round_trip(optic)
    assert again.surfaces[1].semi_diameter == 5.0
    assert (again.aperture.type, again.aperture.value) == ("stop_diameter", 9.0)
    assert '  DIAM 4.5 1 0 0 1 ""' in text and "  CLAP 0.0 5.0 0" in text


# --- RAIM -> [aiming] -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raim", "mode"), [(None, "paraxial"), (0, "paraxial"), (1, "real"), (2, "real")]
)
def test_raim_sets_the_aiming_mode_and_is_written_back(raim, mode):
    aperture = "ENPD 10" if raim is None else f"ENPD 10\nRAIM 0 {raim} 1 1 0 0 0 0 0"
    optic = _read(_text(aperture, field=30))
    assert optic.aiming == mode
    _, text = _round_trip(optic)
    assert f"\r\nRAIM 0 {2 if mode == 'real' else 0} 1 1 0 0 0 0 0\r\n" in text
    if mode == "real":  # the chief ray of the 30° field goes through the stop's centre
        path = optics.trace_surfaces(optic, (0.0, 1.0), (0.0, 0.0))
        assert abs(float(path[1].y)) < 1e-9


# --- clear apertures --------------------------------------------------------------------

APERTURES = [
    ("  CLAP 0 5 0\n", {"semi_diameter": 5.0}),
    ("  CLAP 1.5 5 0\n", {"aperture": {"shape": "annulus", "inner": 1.5, "outer": 5.0}}),
    ("  OBSC 0 1.5 0\n", {"obscuration": 1.5}),
    ("  SQAP 3 2 0\n", {"aperture": {"shape": "rectangle", "half_x": 3.0, "half_y": 2.0}}),
    ("  ELAP 3 2 0\n", {"aperture": {"shape": "ellipse", "half_x": 3.0, "half_y": 2.0}}),
    (
        "  CLAP 0 5 0\n  OBDC 0.5 -1\n",
        {"aperture": {"shape": "circle", "radius": 5.0, "decenter": [0.5, -1.0]}},
    ),
    (
        "  SQAP 3 2 0\n  OBDC 0 1.5\n",
        {
            "aperture": {
                "shape": "rectangle",
                "half_x": 3.0,
                "half_y": 2.0,
                "decenter": [0.0, 1.5],
            }
        },
    ),
]


@pytest.mark.parametrize(("lines", "expected"), APERTURES)
def test_clear_apertures_map_to_surface_apertures_and_are_written_back(lines, expected):
    optic = _read(_text(apertures=lines))
    spec = optic_to_dict(optic)["surfaces"][1]
    got = {k: spec[k] for k in ("semi_diameter", "aperture", "obscuration") if k in spec}
    assert got == expected
    _, text = _round_trip(optic)
    keyword = lines.split()[0]
    assert f"\r\n  {keyword} " in text


def test_a_rectangular_aperture_blocks_the_rays_outside_it():
    optic = _read(_text(apertures="  SQAP 3 2 0\n  OBDC 0 1\n"))
    # EPD 10 at the stop (surface 1): pupil points are at 5 (px, py) mm.
    px = np.array([0.0, 0.55, 0.65, 0.0, 0.0, 0.0, 0.0])
    py = np.array([0.0, 0.0, 0.0, 0.55, 0.65, -0.15, -0.25])
    rays = optics.trace_rays(optic, (0.0, 0.0), (px, py))
    expected = [True, True, False, True, False, True, False]  # |x| <= 3, -1 <= y <= 3
    assert list(np.asarray(rays.valid)) == expected


def test_an_obscuration_blocks_the_centre_of_the_beam():
    optic = _read(_text(apertures="  OBSC 0 1.5 0\n"))
    rays = optics.trace_rays(optic, (0.0, 0.0), (0.0, np.array([0.0, 0.29, 0.31, 1.0])))
    assert list(np.asarray(rays.valid)) == [False, False, True, True]


@pytest.mark.parametrize(
    ("lines", "keyword"),
    [
        ("  OBSC 0.5 1.5 0\n", "OBSC"),  # an annular obscuration
        ("  OBSC 0 1.5 0\n  OBDC 0 1\n", "OBSC"),  # a decentered one
        ("  SQOB 1 1 0\n", "SQOB"),
        ("  ELOB 1 1 0\n", "ELOB"),
    ],
)
def test_obscurations_optics_cannot_hold_warn_naming_surface_and_keyword(lines, keyword):
    with pytest.warns(ZemaxWarning, match=rf"lens.zmx: surface 1: {keyword}: .* not applied"):
        optic = loads(_text(apertures=lines).encode(), "lens.zmx")
    assert optic.surfaces[1].obscuration is None


def test_a_semi_diameter_with_an_obscuration_is_written_as_an_annular_clap():
    optic = _read(_text(apertures="  CLAP 0 5 0\n"))
    optic.surfaces[1].obscuration = 1.5
    text = dumps(optic)
    assert "  CLAP 1.5 5.0 0" in text
    again = _read(encode(text))
    py = np.linspace(-1.0, 1.0, 41)
    before = np.asarray(optics.trace_rays(optic, (0.0, 0.0), (0.0, py)).valid)
    after = np.asarray(optics.trace_rays(again, (0.0, 0.0), (0.0, py)).valid)
    assert list(before) == list(after) and not before.all() and before.any()


def test_an_obscuration_with_a_rectangular_aperture_cannot_be_written():
    optic = _read(_text(apertures="  SQAP 3 2 0\n"))
    optic.surfaces[1].obscuration = 1.0
    with pytest.raises(LensFileError, match=r"surface 1: an obscuration with a rectangle"):
        dumps(optic)


# --- telecentric object space -----------------------------------------------------------


def _finite(raim=0, field_type=1, aperture="OBNA 0.05 0"):
    return _text(
        f"{aperture}\nRAIM 0 {raim} 1 1 0 0 0 0 0",
        field_type=field_type,
        telecentric=1,
        field=2,
        distance=150,
    )


def test_telecentric_object_space_is_kept_and_written_back():
    optic = _read(_finite())
    assert optic.fields.object_telecentric
    rays = optics.trace_surfaces(optic, (0.0, 1.0), (0.0, 0.0))
    assert float(rays[0].M) == 0.0 and float(rays[1].y) == 2.0  # parallel to the axis
    _, text = _round_trip(optic)
    assert "\r\nFTYP 1 1 2 1 0 0 0\r\n" in text


def test_telecentric_object_space_drops_ray_aiming_with_a_warning():
    with pytest.warns(ZemaxWarning, match=r"RAIM: ray aiming does not apply in telecentric"):
        optic = loads(_finite(raim=2).encode(), "lens.zmx")
    assert optic.fields.object_telecentric and optic.aiming == "paraxial"


@pytest.mark.parametrize(
    ("field_type", "aperture", "reason"),
    [(0, "OBNA 0.05 0", "object-height fields, not angle"), (1, "ENPD 10", "an object NA")],
)
def test_telecentric_flag_optics_cannot_honour_warns_naming_ftyp(field_type, aperture, reason):
    with pytest.warns(ZemaxWarning, match=rf"FTYP: telecentric object space .*{reason}"):
        optic = loads(_finite(field_type=field_type, aperture=aperture).encode(), "lens.zmx")
    assert not optic.fields.object_telecentric


@pytest.mark.parametrize("field_type", [2, 3])
def test_telecentric_image_height_fields_are_kept_and_name_their_object_points(field_type):
    optic = loads(_finite(field_type=field_type).encode(), "lens.zmx")
    kind = {2: "paraxial_image_height", 3: "real_image_height"}[field_type]
    assert optic.fields.object_telecentric and optic.fields.type == kind
    magnification = float(paraxial(optic).magnification)
    hy = np.array([y for _, y in optic.fields.normalized()])
    rays = optics.trace_surfaces(optic, (0.0 * hy, hy), (0.0, 0.0))
    assert float(rays[0].M[1]) == 0.0  # parallel to the axis
    heights = np.asarray(rays[0].y)
    if field_type == 2:
        # Paraxial image height 2 mm on the image surface (as for any paraxial image height):
        # the real solve of a tiny field, 2e-4 mm, scaled up (aberrations are third order).
        tiny = loads(
            _text(
                "OBNA 0.05 0\nRAIM 0 0 1 1 0 0 0 0 0",
                field_type=3,
                telecentric=1,
                field=2e-4,
                distance=150,
            ).encode(),
            "tiny.zmx",
        )
        start = optics.trace_surfaces(tiny, (0.0, hy), (0.0, 0.0))[0]
        np.testing.assert_allclose(heights, np.asarray(start.y) * 1e4, rtol=1e-6, atol=0)
    else:  # real image height 2 mm: the axis-parallel chief ray of the top field lands there
        assert heights[1] != pytest.approx(2.0 / magnification, rel=1e-6)
        np.testing.assert_allclose(np.asarray(rays[-1].y), [0.0, 2.0], atol=1e-12)
    _, text = _round_trip(optic)
    assert f"\r\nFTYP {field_type} 1 2 1 0 0 0\r\n" in text  # written back as read


def test_real_aiming_without_a_stop_radius_stays_paraxial_with_a_warning():
    # The on-axis ray at the pupil edge (6 mm) misses the first surface (R = 5 mm), so
    # real aiming's stop radius is undefined.
    text = _text("ENPD 12\nRAIM 0 2 1 1 0 0 0 0 0").replace("  STOP\n", "")
    text = text.replace("  CURV -0.005\n", "  STOP\n  CURV -0.005\n").replace(
        "CURV 0.02", "CURV 0.2"
    )
    with pytest.warns(ZemaxWarning, match=r"RAIM: ray aiming is not kept: .* \(surface 2\)"):
        optic = loads(text.encode(), "lens.zmx")
    assert optic.aiming == "paraxial"
