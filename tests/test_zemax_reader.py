"""Reading .zmx files: encodings, line ends, units, system data, glasses and coordinate breaks.

Every file here is a small one written by the test itself.
"""

from __future__ import annotations

import codecs
import math
import warnings

import numpy as np
import pytest

import optics
from optics._paraxial import basis_rays, paraxial
from optics.errors import LensFileError
from optics.frames import surface_frames
from optics.io.zemax import ZemaxWarning

SINGLET = """VERS 190513 80 123457 L123457
MODE SEQ
NAME Ø25 singlet
UNIT {unit} X W X CM MR CPMM
ENPD 10
GCAT SCHOTT
FTYP 0 0 2 3 0 0 0
XFLN 0 0
YFLN 0 5
WAVM 1 0.48613270000000002 1
WAVM 2 0.58756180000000002 1
WAVM 3 0.65627250000000004 1
PWAV 2
SURF 0
  TYPE STANDARD
  CURV 0.0 0 0 0 0 ""
  DISZ INFINITY
SURF 1
  STOP
  TYPE STANDARD
  CURV 0.02 0 0 0 0 ""
  DISZ 4
  GLAS N-BK7 0 0 1.5 40 0 0 0 0 0 0
  DIAM 12.5 1 0 0 1 ""
  CLAP 0 12.5 0
SURF 2
  TYPE EVENASPH
  CURV -0.005 0 0 0 0 ""
  CONI -1.5
  PARM 1 0
  PARM 2 1e-5
  PARM 3 -2e-8
  DISZ 95
SURF 3
  TYPE STANDARD
  CURV 0.0 0 0 0 0 ""
  DISZ 0
"""


def _write(tmp_path, text, encoding="utf-8", newline="\n", name="lens.zmx"):
    text = text.replace("\n", newline)
    if encoding == "utf-16-le-bom":
        raw = codecs.BOM_UTF16_LE + text.encode("utf-16-le")
    elif encoding == "utf-16-be-bom":
        raw = codecs.BOM_UTF16_BE + text.encode("utf-16-be")
    else:
        raw = text.encode(encoding)
    path = tmp_path / name
    path.write_bytes(raw)
    return path


def _load(path, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZemaxWarning)
        return optics.load(path, **kwargs)


@pytest.mark.parametrize(
    "encoding", ["utf-16-le-bom", "utf-16-be-bom", "utf-8", "utf-8-sig", "latin-1"]
)
@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_every_encoding_and_line_end_reads_the_same_lens(tmp_path, encoding, newline):
    optic = _load(_write(tmp_path, SINGLET.format(unit="MM"), encoding, newline))
    assert optic.name == "Ø25 singlet"
    assert optic.surfaces[1].geometry.radius == 1 / 0.02
    assert optic.surfaces[2].geometry.coefficients == [0.0, 1e-5, -2e-8]
    assert optic.surfaces[2].thickness == 95
    assert optic.wavelengths.values == [
        0.48613270000000002,
        0.58756180000000002,
        0.65627250000000004,
    ]
    assert optic.wavelengths.primary == 1
    assert optic.fields.values == [(0.0, 0.0), (0.0, 5.0)]
    assert optic.surfaces[1].semi_diameter == 12.5
    assert optic.surfaces[1].material.name == "N-BK7"


def test_upper_case_extension_is_a_zemax_file(tmp_path):
    optic = _load(_write(tmp_path, SINGLET.format(unit="MM"), name="LENS.ZMX"))
    assert optic.surfaces[2].geometry.conic == -1.5


@pytest.mark.parametrize("unit, scale", [("IN", 25.4), ("CM", 10.0), ("METER", 1000.0)])
def test_units_scale_every_length_to_mm(tmp_path, unit, scale):
    mm = _load(_write(tmp_path, SINGLET.format(unit="MM"), name="mm.zmx"))
    other = _load(_write(tmp_path, SINGLET.format(unit=unit), name="other.zmx"))
    assert other.aperture.value == pytest.approx(10 * scale, rel=1e-15)
    assert other.surfaces[1].geometry.radius == pytest.approx(50 * scale, rel=1e-15)
    assert other.surfaces[2].thickness == pytest.approx(95 * scale, rel=1e-15)
    assert other.surfaces[1].semi_diameter == pytest.approx(12.5 * scale, rel=1e-15)
    # The asphere in file units, scaled: sag_mm(r) = scale * sag_file(r / scale).
    r = np.array([1.0, 5.0, 10.0]) * scale
    expected = scale * mm.surfaces[2].geometry.sag(r / scale, 0 * r)
    np.testing.assert_allclose(other.surfaces[2].geometry.sag(r, 0 * r), expected, rtol=1e-13)
    # Angles do not scale; a scaled lens has a scaled focal length.
    assert other.fields.values == mm.fields.values
    assert paraxial(other).efl == pytest.approx(scale * paraxial(mm).efl, rel=1e-13)


def _with_header(header_line, surfaces=None):
    text = SINGLET.format(unit="MM").replace("ENPD 10", header_line)
    return text if surfaces is None else text.split("SURF 0")[0] + surfaces


def test_floating_stop_sets_the_beam_from_the_stop_semi_diameter(tmp_path):
    text = _with_header("FLOA").replace("  CLAP 0 12.5 0\n", "")
    optic = _load(_write(tmp_path, text))
    assert (optic.aperture.type, optic.aperture.value) == ("stop_diameter", 25.0)
    assert float(paraxial(optic).epd) == 25.0  # the stop is surface 1: EPD = 2 x semi-diameter


def test_floating_rear_stop_images_its_semi_diameter_into_the_entrance_pupil(tmp_path):
    surfaces = """SURF 0
  CURV 0.0
  DISZ INFINITY
SURF 1
  CURV 0.02
  DISZ 4
  GLAS ___BLANK 1 0 1.5 0 0 0 0 0 0 0
SURF 2
  CURV 0
  DISZ 10
SURF 3
  STOP
  CURV 0
  DISZ 30
  DIAM 2 1 0 0 1 ""
SURF 4
  CURV 0
  DISZ 0
"""
    optic = _load(_write(tmp_path, _with_header("FLOA", surfaces)))
    assert (optic.aperture.type, optic.aperture.value) == ("stop_diameter", 4.0)
    # A paraxial marginal ray entering at EPD/2 reaches the stop at its semi-diameter;
    # with f = 100 mm the height shrinks by 1 - 14 / 100 (4 mm of glass at n = 1.5 is
    # 4/1.5 of air).
    epd = float(paraxial(optic).epd)
    assert epd * abs(float(basis_rays(optic).yA[3])) / 2 == pytest.approx(2.0)
    assert epd == pytest.approx(4.0 / (1 - (10 + 4 / 1.5) / 100), rel=1e-12)


def test_floating_stop_without_a_semi_diameter_is_an_error(tmp_path):
    text = _with_header("FLOA").replace('  DIAM 12.5 1 0 0 1 ""\n', "")
    with pytest.raises(LensFileError, match=r"surface 1 \(the stop\): FLOA .* DIAM is missing"):
        _load(_write(tmp_path, text))


def test_model_glass_with_abbe_number_zero_is_a_constant_index(tmp_path):
    text = SINGLET.format(unit="MM").replace(
        "GLAS N-BK7 0 0 1.5 40 0 0 0 0 0 0", "GLAS ___BLANK 1 0 1.56 0 0 0 0 0 0 0"
    )
    optic = _load(_write(tmp_path, text))
    assert optic.surfaces[1].material.to_spec() == {"index": 1.56}


def test_unknown_glass_names_the_catalogs_and_the_family(tmp_path):
    text = SINGLET.format(unit="MM").replace("GLAS N-BK7", "GLAS N-BK77")
    with pytest.raises(LensFileError) as info:
        _load(_write(tmp_path, text))
    message = str(info.value)
    assert "surface 1: unknown glass 'N-BK77'" in message
    assert "GCAT SCHOTT" in message and "searched: schott, ohara" in message
    assert "N-BK7 (schott)" in message  # the same family, never taken for it


def test_glass_fallback_model_uses_the_glas_line_with_a_warning(tmp_path):
    text = SINGLET.format(unit="MM").replace("GLAS N-BK7 0 0 1.5 40", "GLAS XYZ-1 0 0 1.61 50")
    with pytest.warns(ZemaxWarning, match=r"surface 1: glass 'XYZ-1' is not in the glass"):
        optic = optics.load(_write(tmp_path, text), glass_fallback="model")
    assert optic.surfaces[1].material.to_spec() == {"nd": 1.61, "vd": 50.0}


def test_a_glass_is_found_in_the_files_catalogs_first(tmp_path):
    text = SINGLET.format(unit="MM").replace("GCAT SCHOTT", "GCAT HIKARI SCHOTT")
    text = text.replace("GLAS N-BK7", "GLAS F2")
    optic = _load(_write(tmp_path, text))
    assert (optic.surfaces[1].material.name, optic.surfaces[1].material.catalog) == (
        "F2",
        "hikari",
    )


def test_an_elliptical_grating_is_refused_naming_the_surface(tmp_path):
    text = SINGLET.format(unit="MM").replace("TYPE EVENASPH", "TYPE ELGRATIN")
    with pytest.raises(LensFileError, match=r"surface 2: surface type ELGRATIN is an elliptical"):
        _load(_write(tmp_path, text))


BREAKS = """SURF 0
  CURV 0
  DISZ INFINITY
SURF 1
  STOP
  CURV 0
  DISZ 10
SURF 2
  TYPE COORDBRK
  PARM 1 {dx}
  PARM 2 {dy}
  PARM 3 {rx}
  PARM 4 {ry}
  PARM 5 {rz}
  PARM 6 0
  DISZ 0
SURF 3
  CURV 0.01
  DISZ 5
  GLAS ___BLANK 1 0 1.5 0
SURF 4
  CURV 0
  DISZ -5
SURF 5
  TYPE COORDBRK
  PARM 1 {mdx}
  PARM 2 {mdy}
  PARM 3 {mrx}
  PARM 4 {mry}
  PARM 5 {mrz}
  PARM 6 {order}
  DISZ 20
SURF 6
  CURV 0
  DISZ 0
"""


def _breaks(tmp_path, order, dx=1.5, dy=-0.7, rx=3.0, ry=-2.0, rz=10.0):
    values = dict(dx=dx, dy=dy, rx=rx, ry=ry, rz=rz)
    values.update({f"m{k}": -v for k, v in list(values.items())}, order=order)
    return _load(_write(tmp_path, _with_header("ENPD 4", BREAKS.format(**values))))


def _vertex(frame):
    return np.array([float(frame.x), float(frame.y), float(frame.z)])


def _rotation(frame):
    return np.eye(3) if frame.rotation is None else np.array(frame.rotation, dtype=float)


def test_a_reversed_coordinate_break_with_order_one_restores_the_axis(tmp_path):
    frames = surface_frames(_breaks(tmp_path, order=1).surfaces)
    # Surfaces 3 and 4 go 5 mm along the tilted axis and back, so the axis is restored.
    np.testing.assert_allclose(_vertex(frames[6]), [0.0, 0.0, 30.0], atol=1e-13)
    np.testing.assert_allclose(_rotation(frames[6]), np.eye(3), atol=1e-15)


def test_a_reversed_coordinate_break_with_order_zero_does_not(tmp_path):
    frames = surface_frames(_breaks(tmp_path, order=0).surfaces)
    assert np.abs(_rotation(frames[6]) - np.eye(3)).max() > 1e-3


def test_coordinate_break_decenters_then_tilts(tmp_path):
    frames = surface_frames(_breaks(tmp_path, 1, dx=0, dy=2.0, rx=30.0, ry=0, rz=0).surfaces)
    # Surface 3 sits at the decentered vertex with its axis tilted 30 degrees about x.
    np.testing.assert_allclose(_vertex(frames[3]), [0.0, 2.0, 10.0], atol=1e-14)
    angle = math.radians(30.0)
    np.testing.assert_allclose(
        _rotation(frames[3])[:, 2], [0.0, -math.sin(angle), math.cos(angle)], atol=1e-15
    )
    # Its thickness runs along the tilted axis.
    np.testing.assert_allclose(
        _vertex(frames[4]), [0.0, 2.0 - 5 * math.sin(angle), 10.0 + 5 * math.cos(angle)]
    )


def test_a_45_degree_fold_mirror_sends_the_axial_ray_up(tmp_path, backend):
    surfaces = """SURF 0
  DISZ INFINITY
SURF 1
  STOP
  DISZ 10
SURF 2
  TYPE COORDBRK
  PARM 3 45
  DISZ 0
SURF 3
  GLAS MIRROR 0 0 1.5 40
  DISZ 0
SURF 4
  TYPE COORDBRK
  PARM 3 45
  DISZ -25
SURF 5
  DISZ 0
"""
    optic = _load(_write(tmp_path, _with_header("ENPD 4", surfaces)))
    ray = optics.trace_rays(optic, (0.0, 0.0), (0.0, 0.5))  # enters at y = 1: hits z = 11
    assert bool(ray.valid)
    direction = [float(ray.L), float(ray.M), float(ray.N)]
    np.testing.assert_allclose(direction, [0, 1, 0], atol=1e-15)
    np.testing.assert_allclose([float(ray.y), float(ray.z)], [25.0, 11.0], atol=1e-13)


FREEFORM = """SURF 0
  DISZ INFINITY
SURF 1
  STOP
  TYPE {kind}
  CURV 0.01
  XDAT 1 {terms}
  XDAT 2 {norm}
{xdat}
  DISZ 10
  GLAS ___BLANK 1 0 1.5 60
SURF 2
  DISZ 50
SURF 3
  DISZ 0
"""


def _freeform(tmp_path, kind, values, norm=4.0, unit="MM"):
    xdat = "\n".join(f"  XDAT {3 + k} {v!r}" for k, v in enumerate(values))
    text = _with_header(
        "ENPD 4", FREEFORM.format(kind=kind, terms=len(values), norm=norm, xdat=xdat)
    )
    return _load(_write(tmp_path, text.replace("UNIT MM", f"UNIT {unit}")))


def test_an_extended_polynomial_has_the_sag_of_its_normalized_terms(tmp_path):
    values = [1e-3, -2e-3, 3e-3, 4e-4, -5e-4, 6e-5, 0.0, 7e-5, -8e-5]
    surface = _freeform(tmp_path, "XPOLYNOM", values).surfaces[1].geometry
    x, y = np.array([0.5, -1.2, 2.0]), np.array([1.5, 0.3, -2.2])
    u, v = x / 4.0, y / 4.0
    terms = [u, v, u * u, u * v, v * v, u**3, u * u * v, u * v * v, v**3]
    base = 0.01 * (x * x + y * y) / (1 + np.sqrt(1 - 1e-4 * (x * x + y * y)))
    expected = base + sum(a * t for a, t in zip(values, terms))
    np.testing.assert_allclose(surface.sag(x, y), expected, rtol=1e-13, atol=1e-16)


@pytest.mark.parametrize("kind, ordering", [("SZERNSAG", "noll"), ("FZERNSAG", "fringe")])
def test_zernike_sag_surfaces_keep_their_ordering_and_scale_with_the_unit(tmp_path, kind, ordering):
    surface = _freeform(tmp_path, kind, [0.0, 1e-3, -2e-3, 5e-4], unit="CM").surfaces[1].geometry
    assert surface.ordering == ordering
    assert surface.norm_radius == 40.0
    np.testing.assert_allclose(surface.coefficients, [0.0, 1e-2, -2e-2, 5e-3], rtol=1e-15)


def test_a_q_type_asphere_of_another_kind_is_refused(tmp_path):
    text = SINGLET.format(unit="MM").replace("TYPE EVENASPH", "TYPE QED_TYPE\n  XDAT 1 1")
    with pytest.raises(LensFileError, match=r"surface 2: QED_TYPE of kind 1 \(XDAT 1\)"):
        _load(_write(tmp_path, text))


def test_a_q_type_asphere_reads_as_qbfs_scaled_to_mm(tmp_path):
    xdat = "  XDAT 1 0\n  XDAT 2 2\n  XDAT 3 2.5\n  XDAT 4 -0.08\n  XDAT 5 0.01"
    text = SINGLET.format(unit="CM").replace("TYPE EVENASPH", "TYPE QED_TYPE\n" + xdat)
    surface = _load(_write(tmp_path, text)).surfaces[2].geometry
    assert surface.type_name == "qbfs"
    assert surface.norm_radius == 25.0
    np.testing.assert_allclose(surface.terms, [-0.8, 0.1], rtol=1e-15)
