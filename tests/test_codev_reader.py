"""Reading CODE V .seq text: syntax, units, glasses, apertures, decenters and refusals."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.errors import LensFileError, OpticsError
from optics.frames import rotation_matrix, surface_frames
from optics.io import codev
from optics.io.codev import CodeVWarning
from optics.trace import trace_bundle

DATA = Path(__file__).parent / "data" / "codev"
HEADER = "RDM Y\nDIM M\nWL 587.5618\nEPD 10\nYAN 0 5\nSO 0 1e11\n"


def _data(body, header=HEADER):
    return codev.reads(header + body, "t.seq")


def _surfaces(body, header=HEADER):
    return _data(body, header)["surfaces"]


def test_comments_quotes_continuations_and_separators():
    text = (
        "TITLE 'A title ! not a comment; nor a separator'  ! a comment\n"
        "rdm y; dim m; wl 486.1327 &\n  587.5618 656.2725 ; ref 2\n"
        "epd 10\nso 0 1e11\ns 50 &\n 5 NBK7_SCHOTT\nstop\ns -50 45\nsi 0 0\n"
    )
    data = codev.reads(text, "t.seq")
    assert data["name"] == "A title ! not a comment; nor a separator"
    assert data["wavelengths"] == {"values": [0.4861327, 0.5875618, 0.6562725], "primary": 1}
    assert data["surfaces"][1] == {
        "radius": 50.0,
        "thickness": 5.0,
        "material": {"name": "N-BK7", "catalog": "schott"},
        "stop": True,
    }


def test_wavelengths_in_nm_become_the_nearest_float_in_micrometres():
    data = _data("S 0 1\nSI 0 0\n", "WL 587.6 656.2725\nREF 1\nWTW 1 2\nEPD 1\nSO 0 1e10\n")
    assert data["wavelengths"] == {
        "values": [0.5876, 0.6562725],
        "primary": 0,
        "weights": [1.0, 2.0],
    }


def test_curvatures_by_default_and_radii_with_rdm_y():
    curvature = codev.reads("WL 550\nEPD 1\nSO 0 1e10\nS 0.02 3\nS 0 4\nSI 0 0\n", "t.seq")
    assert curvature["surfaces"][1]["radius"] == pytest.approx(50.0, rel=1e-15)
    assert "radius" not in curvature["surfaces"][2]  # 0 is a plane in both modes
    radius = _surfaces("S 50 3\nS -20 4\n  CUY -0.04\nSI 0 0\n")
    assert radius[1]["radius"] == 50.0 and radius[2]["radius"] == -25.0


def test_an_object_at_1e10_or_more_is_at_infinity():
    assert math.isinf(_surfaces("S 0 1\nSI 0 0\n")[0]["thickness"])
    finite = codev.reads("WL 550\nNAO 0.1\nSO 0 9.9e9\nS 0 1\nSI 0 0\n", "t.seq")
    assert finite["surfaces"][0]["thickness"] == 9.9e9


def test_the_image_thickness_is_a_defocus():
    surfaces = _surfaces("S 50 5 NBK7_SCHOTT\nS -50 45\nSI 0 -0.4\n")
    assert surfaces[2]["thickness"] == 45.0 - 0.4 and surfaces[3] == {}


def test_units_scale_lengths_and_aspheric_coefficients():
    header = "RDM Y\nDIM I\nWL 550\nEPD 1\nYOB 0 0.5\nSO 0 4\n"
    data = codev.reads(
        header + "S 2 0.1 NBK7_SCHOTT\n  ASP\n  K -1\n  A 1e-3\nS 0 3\nSI 0 0\n", "t"
    )
    first = data["surfaces"][1]
    assert data["aperture"] == {"type": "epd", "value": 25.4}
    assert data["fields"]["values"] == [0.0, 12.7]
    assert data["surfaces"][0]["thickness"] == pytest.approx(101.6)
    assert first["radius"] == pytest.approx(50.8) and first["conic"] == -1.0
    assert first["type"] == "even_asphere"
    assert first["coefficients"] == pytest.approx([0.0, 1e-3 * 25.4**-3], rel=1e-15)


def test_even_asphere_letters_are_r4_to_r20():
    body = "S 30 2 NBK7_SCHOTT\n  ASP\n  K 0.5; A 1e-5; B 2e-8; J 3e-30\nS 0 10\nSI 0 0\n"
    first = _surfaces(body)[1]
    assert first["coefficients"] == [0.0, 1e-5, 2e-8, 0, 0, 0, 0, 0, 0, 3e-30]
    assert _surfaces("S 30 2\n  CON\n  K -1\nS 0 1\nSI 0 0\n")[1] == {
        "radius": 30.0,
        "conic": -1.0,
        "thickness": 2.0,
    }


@pytest.mark.parametrize(
    ("token", "nd", "vd"),
    [("517000.520000", 1.517, 52.0), ("569.631", 1.569, 63.1), ("500.7", 1.5, 70.0)],
)
def test_glass_codes_are_model_glasses(token, nd, vd):
    assert _surfaces(f"S 30 2 {token}\nS 0 1\nSI 0 0\n")[1]["material"] == {"nd": nd, "vd": vd}


def test_catalog_glasses_with_and_without_a_catalog():
    body = "S 30 2 SLAL8_OHARA\nS -30 1 STIH53_OHARA\nS 0 1 f2\nS 0 1\nSI 0 0\n"
    materials = [s.get("material") for s in _surfaces(body)[1:4]]
    assert materials == [
        {"name": "S-LAL8", "catalog": "ohara"},
        {"name": "S-TIH53", "catalog": "ohara"},
        {"name": "F2", "catalog": "schott"},
    ]


def test_an_unknown_glass_names_the_file_line_and_glass():
    with pytest.raises(LensFileError, match=r"t.seq: line 7: S \(surface 1\): glass 'SK19_SCHOTT'"):
        _surfaces("S 30 2 SK19_SCHOTT\nS 0 1\nSI 0 0\n")


def test_private_glasses_with_one_index_are_read_others_refused():
    prv = "PRV\nPWL 500 600\n'GEL' 1.41 1.41\n'DISP' 1.52 1.51\nEND\n"
    body = "S 30 2 'GEL'\nS 0 1\nSI 0 0\n"
    assert _surfaces(prv + body)[1]["material"] == {"index": 1.41}
    with pytest.raises(LensFileError, match=r"private glass 'DISP' \(line 10\) has 2 indices"):
        _surfaces(prv + body.replace("GEL", "DISP"))


def test_mirrors_keep_the_medium_before_them():
    body = "S -100 5 NBK7_SCHOTT\nS -200 -5 REFL\nS -100 -50\nSI 0 0\n"
    surfaces = _surfaces(body)
    assert surfaces[2]["material"] == "mirror"
    assert "material" not in surfaces[3]


def test_field_pupil_and_weight_commands():
    header = "WL 550\nFNO 4\nYRI 0 3 5\nXRI 0 0 1\nWTF 1 2 0.5\nSO 0 1e10\n"
    data = codev.reads(header + "S 50 5 NBK7_SCHOTT\nS -50 45\nSI 0 0\n", "t.seq")
    assert data["aperture"] == {"type": "image_fno", "value": 4.0}
    assert data["fields"] == {
        "type": "real_image_height",
        "values": [[0.0, 0.0], [0.0, 3.0], [1.0, 5.0]],
        "weights": [1.0, 2.0, 0.5],
    }
    nao = codev.reads("WL 550\nNAO 0.2\nYIM 0 1\nSO 0 30\nS 0 1\nSI 0 0\n", "t")
    assert nao["aperture"] == {"type": "object_na", "value": 0.2}
    assert nao["fields"]["type"] == "paraxial_image_height"


def test_apertures_and_obscurations():
    body = (
        "S 50 5 NBK7_SCHOTT\n  CIR 12\n  CIR EDG 13\n  CIR OBS L'A' 2\n"
        "S -50 5\n  REX 4; REY 3; ADY 0.5\nS 0 5\n  ELX 2\n  ELY 1\nSI 0 0\n"
    )
    surfaces = _surfaces(body)
    assert surfaces[1]["semi_diameter"] == 12.0 and surfaces[1]["obscuration"] == 2.0
    assert surfaces[2]["aperture"] == {
        "shape": "rectangle",
        "half_x": 4.0,
        "half_y": 3.0,
        "decenter": [0.0, 0.5],
    }
    assert surfaces[3]["aperture"] == {"shape": "ellipse", "half_x": 2.0, "half_y": 1.0}
    with pytest.raises(LensFileError, match=r"line 8: REX: only a circular obscuration"):
        _surfaces("S 50 5\n  REX OBS 2\nS 0 1\nSI 0 0\n")


def test_positive_ade_turns_the_axis_toward_plus_y():
    # CODE V's ADE and BDE are left-handed: a 45-degree ADE fold mirror with BEN sends an
    # axial beam toward -y, and the next thickness (negative after a mirror) follows it.
    text = HEADER.replace("YAN 0 5", "YAN 0") + "S 0 20\nS 0 -30 REFL\n  ADE 45\n  BEN\nSI 0 0\n"
    optic = codev.loads(text, "fold.seq")
    image = surface_frames(optic.surfaces)[-1]
    assert (float(image.y), float(image.z)) == pytest.approx((-30.0, 20.0), abs=1e-12)
    bundle = trace_bundle(
        optic, fields=[(0.0, 0.0)], wavelengths=[0.55], pupil=(be.asarray([0.0]), be.asarray([0.0]))
    )
    assert float(bundle.rays.M[0, 0, 0]) == pytest.approx(-1.0, abs=1e-15)
    assert float(bundle.rays.y[0, 0, 0]) == pytest.approx(-30.0, abs=1e-12)


def test_decenter_types_move_the_following_surfaces_as_defined():
    body = "S 0 10\nS 0 10\n  YDE 1\nS 0 10\n  XDE 2\n  DAR\nS 0 10\n  YDE 3\n  REV\nSI 0 0\n"
    frames = surface_frames(codev.loads(HEADER + body, "d.seq").surfaces)
    vertices = [(float(f.x), float(f.y), float(f.z)) for f in frames[1:]]
    # basic: every later surface is 1 up; DAR: only its own surface moves 2 in x; REV: the
    # surface stays, the ones after it are 3 down
    assert vertices[-1] == pytest.approx((0.0, 1.0 - 3.0, 40.0), abs=1e-12)
    optic = codev.loads(HEADER + body, "d.seq")
    dar = next(
        s
        for s in optic.surfaces
        if s.decenter is not None and not getattr(s.geometry, "is_coordinate_break", False)
    )
    assert tuple(float(v) for v in dar.decenter) == (2.0, 0.0)


def test_a_three_angle_dar_tilt_is_the_codev_rotation():
    body = "S 0 5 NBK7_SCHOTT\n  ADE 10; BDE -20; CDE 30\n  DAR\nS 0 10\nSI 0 0\n"
    tilt = _surfaces(body)[1]["tilt"]
    ours = np.array(rotation_matrix(*tilt), dtype=float)

    def rot(axis, degrees):
        c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
        m = np.eye(3)
        i, j = [(1, 2), (2, 0), (0, 1)][axis]
        m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
        return m

    codev_rotation = rot(0, -10.0) @ rot(1, 20.0) @ rot(2, 30.0)  # Rx(-ADE) Ry(-BDE) Rz(CDE)
    assert ours == pytest.approx(codev_rotation, abs=1e-15)


def test_wide_angle_mode_warns_that_it_is_not_applied():
    with pytest.warns(CodeVWarning, match=r"line 1: WID: CODE V's wide-angle mode"):
        _surfaces("S 0 1\nSI 0 0\n", "WID Y\n" + HEADER)


def test_vignetting_factors_are_kept_and_traced():
    optic = optics.load(DATA / "ag_dblgauss.seq")
    # ag_dblgauss.seq: VUY 0 0.2 0.4, VLY 0 0.25 0.4 (no VUX, VLX): VCY = (VUY + VLY)/2,
    # VDY = (VLY - VUY)/2.
    factors = optic.fields.vignetting
    assert factors.compress_y == pytest.approx((0.0, 0.225, 0.4), abs=1e-15)
    assert factors.decenter_y == pytest.approx((0.0, 0.025, 0.0), abs=1e-15)
    assert factors.compress_x == (0.0, 0.0, 0.0) == factors.decenter_x
    # The tracer fills field 2's vignetted pupil: its rim ray is the unvignetted trace at
    # py' = VDY + py (1 - VCY).
    hy = optic.fields.normalized()[1][1]
    traced = optics.trace_rays(optic, (0.0, hy), (0.0, 1.0))
    optic.fields.vignetting = None
    rim = optics.trace_rays(optic, (0.0, hy), (0.0, 0.025 + 1.0 * (1.0 - 0.225)))
    assert float(traced.y) == pytest.approx(float(rim.y), abs=1e-12)
    assert float(optics.trace_rays(optic, (0.0, hy), (0.0, 1.0)).y) != pytest.approx(
        float(traced.y), abs=1e-6
    )


def test_codev_vignetting_moves_the_pupil_edges_as_codev_says():
    from optics.fields_vignetting import vignetted_pupil

    text = (DATA / "ag_dblgauss.seq").read_text()
    text = text.replace("VUY   0.0 0.2 0.4", "VUY 0 0.3 0.1")
    text = text.replace("VLY   0.0 0.25 0.4", "VLY 0 0.1 0.05")
    optic = optics.io.codev.loads(text, "v.seq")
    # The upper edge moves in by VUY, the lower one by VLY.
    _, rim = vignetted_pupil(optic.fields.vignetting, 1, 0.0, np.array([1.0, -1.0]))
    np.testing.assert_allclose(rim, [1.0 - 0.3, -1.0 + 0.1], rtol=0, atol=1e-15)
    written = optics.io.codev.dumps(optic)
    assert any(line.startswith("VUY ") for line in written.splitlines())
    again = optics.io.codev.loads(written, "w.seq")
    assert again.fields.vignetting.compress_y == pytest.approx(optic.fields.vignetting.compress_y)
    assert again.fields.vignetting.decenter_y == pytest.approx(optic.fields.vignetting.decenter_y)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("S 0 1\n  XYZ 3\nSI 0 0\n", r"t.seq: line 8: XYZ: unknown or unsupported command"),
        ("S 0 1\n  XTO\nSI 0 0\n", r"line 8: XTO: an x toroid is not supported"),
        ("S 0 1\n  THI S1 4\nSI 0 0\n", r"line 8: THI: a surface qualifier \(Sn\)"),
        ("S 0 1\n", r"t.seq: no SI command"),
        ("S 0 1 'QUOTE\nSI 0 0\n", r"line 7: a string opened with ' is not closed"),
        ("S 0 1\nSI 0 0\nNA 0.1\n", r"NA: an image-space numerical aperture"),
    ],
)
def test_unsupported_input_is_an_error_naming_the_line_and_command(body, message):
    with pytest.raises(LensFileError, match=message):
        _surfaces(body)


def test_a_diffractive_surface_is_refused_naming_file_line_and_command():
    path = DATA / "CODV_65988.seq"
    with pytest.raises(OpticsError, match=r"CODV_65988.seq: line 32: DIF: a diffractive surface"):
        optics.load(path)


def test_files_without_pupil_or_wavelengths_are_errors():
    with pytest.raises(LensFileError, match="no EPD, FNO or NAO"):
        codev.reads("WL 550\nSO 0 1e10\nS 0 1\nSI 0 0\n", "t.seq")
    with pytest.raises(LensFileError, match="no WL command"):
        codev.reads("EPD 1\nSO 0 1e10\nS 0 1\nSI 0 0\n", "t.seq")


def test_every_shipped_file_that_loads_traces_its_axial_ray():
    for path in sorted(DATA.glob("*.seq")):
        if path.name == "CODV_65988.seq":
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CodeVWarning)
            optic = optics.load(path)
        with warnings.catch_warnings():  # threemir.seq's off-axis stop: aiming advice
            warnings.simplefilter("ignore", UserWarning)
            bundle = trace_bundle(
                optic,
                fields=[(0.0, 0.0)],
                wavelengths=[optic.primary_wavelength],
                pupil=(be.asarray([0.0]), be.asarray([0.5])),
            )
        assert np.isfinite(float(bundle.rays.y[0, 0, 0])), path.name


def test_mangled_files_load_or_raise_an_optics_error():
    rng = np.random.default_rng(7)
    texts = [p.read_text(encoding="latin-1") for p in sorted(DATA.glob("*.seq"))]
    pieces = [" ", "\n", ";", "&", "!", "'", "0", "-", ".", "e", "S ", "SI 0 0\n", "ADE 1e400"]
    pieces += ["DIM X", "ASP", "CIR OBS", "REX", "PRV", "END", "1e308", "DAR", "BEN", "REV"]
    for _ in range(150):
        text = list(texts[rng.integers(len(texts))])
        for _ in range(3):
            at = int(rng.integers(len(text) + 1))
            if rng.random() < 0.4:
                del text[at : at + 4]
            else:
                text[at:at] = list(pieces[rng.integers(len(pieces))])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                codev.loads(codev.dumps(codev.loads("".join(text), "m.seq")), "w.seq")
        except OpticsError:
            pass
