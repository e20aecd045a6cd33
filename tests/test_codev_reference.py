"""CODE V .seq files read like rayoptics reads them: first-order data and real rays.

Every number below was measured with rayoptics 0.9.10 (``open_model(path)``,
refractiveindex.info database for its glasses; first-order data from
``opm['analysis_results']['parax_data'].fod``; rays from
``rayoptics.raytr.trace.trace_base(opm, [px, py], field, wvl)`` at the
reference wavelength, taken at the image surface in its own frame and moved
along the ray by the focus shift that the file's SI thickness sets).  Lengths
are in the file's unit (cm for optics_finite_cm, inches for questar35).

rayoptics puts an infinite object at the file's finite stand-in distance (1e11
in these files); its rays are then off by about (pupil radius) x (track) / 1e11,
which sets the tolerances below (each ~3x the difference measured).  For a
finite object rayoptics spreads the pupil rays over the entrance pupil in its
own way, so only chief rays are compared there.  Off-axis pupil rays are not
compared: rayoptics aims the chief ray at the real stop, optics at the paraxial
entrance pupil (docs/codev.md).
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

import optics
from optics import backend as be
from optics.analysis.spot import in_image_frame
from optics.io.codev import CodeVWarning
from optics.trace import trace_bundle

DATA = Path(__file__).parent / "data" / "codev"

# rayoptics 0.9.10: file -> efl, bfl, epd (file units), the reference wavelength (nm) and
# rays (field index, px, py, x, y) at the image.
RAYOPTICS = {
    "CODV_32327.seq": {
        "efl": 100.03081274181721,
        "bfl": 95.95194415183161,
        "epd": 25.0,
        "wvl": 587.6,
        "rays": [
            (0, 0.0, 0.7, 0.0, -0.006026302197733012),
            (0, 0.5, 0.0, -0.0028701236042114877, 0.0),
            (0, 0.3, -0.6, -0.0024971341473896186, 0.004994268294779237),
        ],
    },
    "ag_dblgauss.seq": {
        "efl": 100.00375702792972,
        "bfl": 61.487536417982085,
        "epd": 50.0,
        "wvl": 587.6,
        "rays": [
            (0, 0.0, 0.7, 0.0, -0.003627680416858653),
            (0, 0.5, 0.0, 0.017340091960589728, 0.0),
            (0, 0.3, -0.6, -0.00010171588921242466, 0.00020343177842484933),
        ],
    },
    "landscape_lens.seq": {
        "efl": 9.999999990613855,
        "bfl": 10.150244631192692,
        "epd": 1.0,
        "wvl": 550.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, -0.007414436751354924),
            (0, 0.5, 0.0, -0.0026772675885850593, 0.0),
            (0, 0.3, -0.6, -0.0029137183950096123, 0.005827436790019225),
        ],
    },
    "singlet.seq": {
        "efl": 13.105460925614661,
        "bfl": 12.660235743674322,
        "epd": 3.008698212714042,
        "wvl": 650.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, -0.03461060900044673),
            (0, 0.5, 0.0, -0.021607032238877028, 0.0),
            (0, 0.3, -0.6, -0.01451965005187865, 0.0290393001037573),
        ],
    },
    "CODV_35571.seq": {
        "efl": -88.9,
        "bfl": 88.9,
        "epd": 25.399999999999995,
        "wvl": 587.6,
        "rays": [
            (0, 0.0, 0.7, 0.0, -88.89999999983358),
            (0, 0.5, 0.0, 1.1297380392294443e-10, -88.90000000000047),
            (0, 0.3, -0.6, 6.78226225181433e-11, -88.90000000012853),
        ],
    },
    "achroMangin_ok.seq": {
        "efl": -8.952368062360053,
        "bfl": -8.116702522883244,
        "epd": 5.0,
        "wvl": 488.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, 0.03707232477589136),
            (0, 0.5, 0.0, 0.02591021095453911, 0.0),
            (0, 0.3, -0.6, 0.015828924989317008, -0.031657849978634016),
        ],
    },
    "dec_tilt_test.seq": {
        "efl": 0.0,
        "bfl": 0.0,
        "epd": 0.9999999999999998,
        "wvl": 555.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, 0.35000000006999993),
            (0, 0.5, 0.0, 0.25000000004999995, -5.7415992796337015e-16),
            (0, 0.3, -0.6, 0.15000000003, -0.3000000000600002),
        ],
    },
    "folded_lenses.seq": {
        "efl": -2564.335253928911,
        "bfl": -2513.2530033786343,
        "epd": 0.9999999999999998,
        "wvl": 555.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, 0.3381205174262086),
            (0, 0.5, 0.0, 0.24304758899371157, -5.431475705699035e-16),
            (0, 0.3, -0.6, 0.14506669253585805, -0.2901333850717179),
        ],
    },
    "lens_reflection_test.seq": {
        "efl": -3231.1900705393145,
        "bfl": -2805.5877372562404,
        "epd": 0.9999999999999998,
        "wvl": 555.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, 0.30250521553645754),
            (0, 0.5, 0.0, 0.2164864226136751, 0.0),
            (0, 0.3, -0.6, 0.1296869622892033, -0.2593739245784066),
        ],
    },
    "unfolded_lenses_w_ape.seq": {
        "efl": 2564.3352539285456,
        "bfl": 2513.253003378275,
        "epd": 0.9999999999999998,
        "wvl": 555.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, 0.33812051742620797),
            (0, 0.5, 0.0, 0.24304758899371165, 0.0),
            (0, 0.3, -0.6, 0.14506669253585808, -0.29013338507171615),
        ],
    },
    "dar_test.seq": {
        "efl": 0.0,
        "bfl": 0.0,
        "epd": 10.0,
        "wvl": 550.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, 17.500000000000004),
            (0, 0.5, 0.0, 12.5, -2.8008575575370725e-16),
            (0, 0.3, -0.6, 7.5, -15.0),
        ],
    },
    "dec_rev_tilt_test.seq": {
        "efl": 0.0,
        "bfl": 0.0,
        "epd": 100.0,
        "wvl": 550.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, 35.000000004899995),
            (0, 0.5, 0.0, 25.000000003499995, -5.605123102881621e-16),
            (0, 0.3, -0.6, 15.000000002099998, -30.000000004200007),
        ],
    },
    "tilt_test.seq": {
        "efl": 0.0,
        "bfl": 0.0,
        "epd": 100.0,
        "wvl": 550.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, -35.71067798890602),
            (0, 0.5, 0.0, 25.00000009267767, -70.71067811865476),
            (0, 0.3, -0.6, 15.000000055606602, -100.71067822986798),
        ],
    },
    "dec_test.seq": {
        "efl": 0.0,
        "bfl": 0.0,
        "epd": 100.0,
        "wvl": 550.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, 35.00000013881089),
            (0, 0.5, 0.0, 25.00000009915063, 8.262757632463445e-15),
            (0, 0.3, -0.6, 15.00000005949038, -30.000000118980765),
        ],
    },
    "optics_fold_asphere.seq": {
        "efl": -139.2400949466723,
        "bfl": -57.2784831952675,
        "epd": 20.0,
        "wvl": 587.5618,
        "rays": [
            (0, 0.0, 0.7, -1.3174819055167455, 1.3729151874934273),
            (0, 0.5, 0.0, -0.11312845116062403, -0.7159387273973096),
            (0, 0.3, -0.6, -0.7960848954315202, -2.3503162526226586),
            (1, 0.0, 0.0, -1.1791497812512675, 2.9560526679546983),
            (1, 0.0, 0.7, -1.0078311260918893, 4.922487663550212),
            (1, 0.5, 0.0, 0.19674513218552758, 2.8361260836562043),
            (1, 0.3, -0.6, -0.4856628189457838, 1.2106889355726786),
            (2, 0.0, 0.0, 1.0198889756183127, -2.605145413171416),
            (2, 0.0, 0.7, 1.1947031519511806, -0.6431967115164708),
            (2, 0.5, 0.0, 2.3925795887728167, -2.723048440011386),
            (2, 0.3, -0.6, 1.7110893099844873, -4.356484502372027),
        ],
    },
    "optics_finite_cm.seq": {
        "efl": 2.4232861117674913,
        "bfl": 2.0032284441078465,
        "epd": 2.010075630518424,
        "wvl": 550.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, -0.8013863364902623),
            (0, 0.5, 0.0, -0.5530276719176552, 0.0),
            (0, 0.3, -0.6, -0.34146156823876805, 0.6829231364775361),
            (1, 0.0, 0.0, 0.0, -0.2904220737268676),
            (1, 0.0, 0.7, 0.0, -1.1077801496257478),
            (1, 0.5, 0.0, -0.5562004494336579, -0.29002333174297634),
            (1, 0.3, -0.6, -0.34153119632730916, 0.3984304382356528),
            (2, 0.0, 0.0, -0.11620582617232751, -0.17430873925849122),
            (2, 0.0, 0.7, -0.11736084167035853, -0.9832983158175914),
            (2, 0.5, 0.0, -0.672553427170948, -0.17508301669645843),
            (2, 0.3, -0.6, -0.45681694759708025, 0.5107316342411016),
        ],
    },
    "questar35.seq": {
        "efl": 50.49999999999967,
        "bfl": 10.2152846303672,
        "epd": 3.503937007874016,
        "wvl": 555.0,
        "rays": [
            (0, 0.0, 0.7, 0.0, -0.00024689930743170625),
            (0, 0.5, 0.0, 0.00013433379262358064, 0.0),
            (0, 0.3, -0.6, -9.745749088301871e-05, 0.00019491498176603742),
        ],
    },
}

# Largest |ours - rayoptics| allowed for a ray, in the file's unit (see the module docstring).
RAY_TOLERANCE = {
    "CODV_32327.seq": 3e-10,
    "ag_dblgauss.seq": 5e-9,
    "landscape_lens.seq": 1e-9,
    "singlet.seq": 1e-13,
    "CODV_35571.seq": 5e-10,
    "achroMangin_ok.seq": 5e-10,
    "dec_tilt_test.seq": 2e-10,
    "folded_lenses.seq": 2e-10,
    "lens_reflection_test.seq": 1e-10,
    "unfolded_lenses_w_ape.seq": 2e-10,
    "dar_test.seq": 1e-13,
    "dec_rev_tilt_test.seq": 1.5e-8,
    "tilt_test.seq": 4e-7,
    "dec_test.seq": 4e-7,
    "optics_fold_asphere.seq": 5e-8,
}
UNITS = {"optics_finite_cm.seq": 10.0, "questar35.seq": 25.4}


def _load(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CodeVWarning)
        return optics.load(DATA / name)


def _ray(optic, field, px, py, wavelength, *, valid=True):
    bundle = trace_bundle(
        optic,
        fields=[field],
        wavelengths=[wavelength / 1000.0],
        pupil=(be.asarray([float(px)]), be.asarray([float(py)])),
    )
    rays = in_image_frame(optic, bundle.rays)
    assert bool(rays.valid[0, 0, 0]) == valid
    return float(rays.x[0, 0, 0]), float(rays.y[0, 0, 0])


@pytest.mark.parametrize("name", sorted(RAYOPTICS))
def test_first_order_data_match_rayoptics(name):
    reference = RAYOPTICS[name]
    unit = UNITS.get(name, 1.0)
    first = optics.paraxial(_load(name))
    assert float(first.epd) == pytest.approx(reference["epd"] * unit, rel=1e-12)
    if reference["efl"] == 0.0:  # afocal: rayoptics reports 0, optics inf
        assert math.isinf(float(first.efl))
        return
    assert float(first.efl) == pytest.approx(reference["efl"] * unit, rel=1e-12)
    if name != "optics_fold_asphere.seq":  # a ZDE shifts optics' paraxial plate (docs)
        assert float(first.bfl) == pytest.approx(reference["bfl"] * unit, rel=1e-12)


@pytest.mark.parametrize("name", sorted(RAY_TOLERANCE))
def test_real_rays_match_rayoptics(name):
    reference = RAYOPTICS[name]
    optic = _load(name)
    fields = optic.fields.normalized()
    for field, px, py, x, y in reference["rays"]:
        if field == 2:
            continue  # another field-angle convention: the test below
        if field > 0 and (px, py) != (0.0, 0.0):
            continue  # rayoptics aims off-axis chief rays at the real stop
        if field > 0:
            optic.aiming = "real"
        ours = _ray(optic, fields[field], px, py, reference["wvl"])
        optic.aiming = "paraxial"
        assert ours == pytest.approx((x, y), abs=RAY_TOLERANCE[name]), (field, px, py)


def test_finite_object_chief_rays_match_rayoptics():
    reference = RAYOPTICS["optics_finite_cm.seq"]
    optic = _load("optics_finite_cm.seq")
    fields = optic.fields.normalized()
    for field, px, py, x, y in reference["rays"]:
        if (px, py) == (0.0, 0.0):
            # the chief ray is traced on through the central obscuration (CIR OBS) that
            # stops it; rayoptics clips no ray in trace_base
            ours = _ray(optic, fields[field], 0.0, 0.0, reference["wvl"], valid=False)
            assert ours == pytest.approx((x * 10.0, y * 10.0), abs=1e-12)


def test_two_axis_field_angle_follows_the_projection_convention():
    # XAN 1.5, YAN -1: optics (like CODE V and OpticStudio) reads the angles of the chief
    # ray's projections on the x-z and y-z planes, tan = L/N and M/N.  rayoptics 0.9.10
    # takes the y angle as an elevation: M/N = tan(-1 deg) / cos(1.5 deg).  With the field
    # given in rayoptics' terms the two codes trace alike.
    reference = RAYOPTICS["optics_fold_asphere.seq"]
    optic = _load("optics_fold_asphere.seq")
    elevation = math.degrees(math.atan(math.tan(math.radians(-1.0)) / math.cos(math.radians(1.5))))
    optic.fields.values[2] = (1.5, elevation)
    top = optic.fields.max_magnitude
    field = (1.5 / top, elevation / top)
    _, _, _, x, y = next(r for r in reference["rays"] if r[0] == 2 and r[1:3] == (0.0, 0.0))
    optic.aiming = "real"
    assert _ray(optic, field, 0.0, 0.0, reference["wvl"]) == pytest.approx((x, y), abs=2e-8)
    optic.fields.values[2] = (1.5, -1.0)  # as the file says: a chief ray 6e-4 mm away
    top = optic.fields.max_magnitude
    assert _ray(optic, (1.5 / top, -1.0 / top), 0.0, 0.0, reference["wvl"]) != pytest.approx(
        (x, y), abs=1e-4
    )


def test_off_axis_three_mirror_chief_ray_with_real_aiming_matches_rayoptics():
    # threemir.seq: three DAR mirrors, a DAR stop 11.4 mm off the axis, a decentered and
    # tilted image.  The beam must be aimed at the real stop (the paraxial entrance pupil
    # misses the mirrors' apertures).  rayoptics 0.9.10, field (XAN 0, YAN 0), chief ray at
    # the image with the SI focus shift 15.407921 mm: efl -395.38026928060447 (DIM MM).
    optic = _load("threemir.seq")
    assert float(optics.paraxial(optic).efl) == pytest.approx(-395.38026928060447, rel=1e-12)
    optic.aiming = "real"
    field = optic.fields.normalized()[1]
    assert _ray(optic, field, 0.0, 0.0, 500.0) == pytest.approx((0.0, -2.362120248761947), abs=2e-6)
