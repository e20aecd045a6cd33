"""Field curvature from real parabasal rays: Optiland, the Seidel sums, a perfect lens.

Optiland 0.6.3 ``FieldCurvature(optic, num_points=5).data`` (parabasal pairs at
±1e-5 of the pupil, every wavelength of the lens), on the same systems exported
with ``optics.io.save(..., ".zmx")``; fields 0, 0.25, 0.5, 0.75, 1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _zemax_corpus import absent_reason, corpus_dir
from helpers import corpus_design

import optics
from optics import backend as be
from optics import paraxial
from optics.analysis._field_curvature import field_curvature
from optics.analysis._seidel import seidel
from optics.errors import ConfigurationError
from optics.geometry import Standard
from optics.geometry.ideal_lens import IdealLens
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths

# [wavelength][tangential, sagittal][field] in mm, Optiland 0.6.3.
OPTILAND = {
    "singlet": [
        [
            [-1.054788586, -1.139595335, -1.39363737, -1.815782403, -2.404151049],
            [-1.054788586, -1.093336729, -1.20891327, -1.401314684, -1.670202249],
        ],
        [
            [0.0002784661759, -0.0855127824, -0.342503693, -0.7695481298, -1.364743744],
            [0.0002784661759, -0.03874693491, -0.1557543252, -0.3505374126, -0.6227528669],
        ],
        [
            [0.4764554452, 0.3902197587, 0.1318976255, -0.2973585727, -0.8956361095],
            [0.4764554452, 0.4372145248, 0.3195609938, 0.1237023945, -0.1500158619],
        ],
    ],
    "achromat": [
        [
            [0.08923018458, 0.05882709695, -0.03233210371, -0.1840973473, -0.3962189056],
            [0.08923018458, 0.07495560981, 0.03214168736, -0.0391821848, -0.138967035],
        ],
        [
            [0.1261808352, 0.09580818543, 0.00474016163, -0.1468735804, -0.3587840009],
            [0.1261808352, 0.1119226916, 0.06915802626, -0.002083871799, -0.1017542125],
        ],
        [
            [0.2109336569, 0.1805487475, 0.08944393628, -0.06223115177, -0.2742275296],
            [0.2109336569, 0.1966699087, 0.1538884246, 0.0826184788, -0.01709116325],
        ],
    ],
    "cassegrain": [
        [
            [0.0, -0.0270342505, -0.1081304012, -0.243268717, -0.4324162451],
            [0.0, -0.01713450552, -0.06853533012, -0.154194399, -0.2740982577],
        ]
    ],
    "achromat_finite": [
        [
            [98.97003806, 98.95993024, 98.92961238, 98.87910132, 98.80842506],
            [98.97003806, 98.96534121, 98.95125214, 98.92777519, 98.89491764],
        ],
        [
            [99.12692102, 99.11681461, 99.08650099, 99.03599697, 98.96533054],
            [99.12692102, 99.12222585, 99.1081418, 99.08467322, 99.05182737],
        ],
        [
            [99.46887782, 99.45874975, 99.42837116, 99.3777589, 99.30694104],
            [99.46887782, 99.46417276, 99.45005905, 99.42654106, 99.39362605],
        ],
    ],
    "rayoptics-HoO-V2C18Ex03.zmx": [
        [
            [3.649635049e-05, -0.009750161815, -0.03907692641, -0.08784444582, -0.155888055],
            [3.649635049e-05, -0.005685500781, -0.02283990894, -0.05139203828, -0.0912842715],
        ]
    ],
}


def _load(name):
    if name.endswith(".zmx"):
        path = corpus_dir() / name
        if not path.is_file():
            pytest.skip(absent_reason())
        return optics.load(path)
    return optics.load(name) if name in ("singlet", "achromat") else corpus_design(name)


@pytest.mark.parametrize("name", sorted(OPTILAND))
def test_focus_shifts_equal_optiland(name):
    result = field_curvature(_load(name), points=5)
    expected = np.array(OPTILAND[name])
    np.testing.assert_allclose(be.to_numpy(result.tangential), expected[:, 0], atol=2e-6)
    np.testing.assert_allclose(be.to_numpy(result.sagittal), expected[:, 1], atol=2e-6)


@pytest.mark.parametrize("name", ["cooke_triplet", "singlet", "double_gauss"])
def test_small_field_curvature_is_the_seidel_astigmatism_and_petzval(name):
    # Third order: z_s(H) - z_s(0) = -(S3 + S4) H² / (2 n' u'²), z_t with 3 S3 + S4, H the
    # paraxial field fraction tan(θ)/tan(θ_max) and u' the marginal ray's image slope.
    optic = optics.load(name)
    sums, first = seidel(optic).sums, paraxial(optic)
    u = 1 / (2 * float(first.fno))
    h = 0.005
    top = math.radians(optic.fields.max_magnitude)
    big_h = math.tan(h * top) / math.tan(top)
    result = field_curvature(optic, fields=[0.0, h], wavelengths=[optic.primary_wavelength])
    t, s = be.to_numpy(result.tangential)[0], be.to_numpy(result.sagittal)[0]
    scale = -(big_h**2) / (2 * u * u)
    assert s[1] - s[0] == pytest.approx(float(sums["S3"] + sums["S4"]) * scale, rel=3e-4)
    assert t[1] - t[0] == pytest.approx(float(3 * sums["S3"] + sums["S4"]) * scale, rel=3e-4)


def perfect_lens(image_distance=100.0, field_type="angle", top=10.0):
    """An ideal lens of f = 100 mm (the stop), image at ``image_distance`` behind it."""
    finite = field_type == "object_height"
    return Optic(
        [
            Surface(Standard(), 200.0 if finite else math.inf),
            Surface(IdealLens(100.0), image_distance, is_stop=True),
            Surface(Standard()),
        ],
        Aperture("epd", 20.0),
        Fields(field_type, [(0.0, 0.0), (0.0, top)]),
        Wavelengths([0.55]),
    )


def test_a_perfect_lens_has_a_flat_field_at_its_focus():
    result = field_curvature(perfect_lens(), points=5)
    np.testing.assert_allclose(be.to_numpy(result.tangential), 0.0, atol=1e-8)
    np.testing.assert_allclose(be.to_numpy(result.sagittal), 0.0, atol=1e-8)
    defocused = field_curvature(perfect_lens(image_distance=99.0), points=3)
    np.testing.assert_allclose(be.to_numpy(defocused.sagittal), 1.0, atol=1e-8)


def test_focus_shifts_agree_on_every_backend(backend):
    result = field_curvature(optics.load("achromat"), points=5)
    expected = np.array(OPTILAND["achromat"])
    np.testing.assert_allclose(be.to_numpy(result.tangential), expected[:, 0], atol=2e-6)


def test_fewer_than_two_points_is_an_error():
    with pytest.raises(ConfigurationError, match="points"):
        field_curvature(optics.load("singlet"), points=1)


# Optiland 0.6.3 on two corpus files. The microscope objective (finite object, 0.5876 µm):
# the shift of each focus from its on-axis value (the on-axis focus itself differs by
# 1.4e-4 mm, the two codes' glass data); Optiland's aperture set to our stop diameter
# (it reads the file's float-by-stop-size semi-diameter as a diameter). The Laikin
# wide-angle lens with paraxial aiming at fields 0, 0.2, 0.4, 0.6 (Optiland reads the
# file in inches: its numbers times 25.4).
MICROSCOPE = (
    [0.0, -0.0001774447532, -0.0007079238235, -0.001585882397, -0.00280209068],
    [0.0, -0.0002441957702, -0.0009760987664, -0.002193659161, -0.003893470946],
)
LAIKIN = (
    [0.001293591627, 0.00104129642, -0.0005479644294, -0.004963648999],
    [0.001293591627, 0.001003466769, 2.819980384e-05, -0.002131488402],
)


def test_a_finite_object_corpus_design_equals_optiland():
    optic = _load("kbg-MicroscopeObjective.zmx")
    result = field_curvature(optic, points=5, wavelengths=[0.5875618])
    for values, expected in zip((result.tangential, result.sagittal), MICROSCOPE):
        shift = be.to_numpy(values)[0] - be.to_numpy(values)[0, 0]
        np.testing.assert_allclose(shift, expected, atol=3e-6)


def test_a_wide_angle_corpus_design_equals_optiland():
    optic = _load("optiland-laikin_wide_angle.zmx")
    optic.aiming = "paraxial"
    result = field_curvature(optic, fields=[0.0, 0.2, 0.4, 0.6])
    for values, expected in zip((result.tangential, result.sagittal), LAIKIN):
        np.testing.assert_allclose(be.to_numpy(values)[0], np.array(expected) * 25.4, atol=1e-7)


def test_float32_uses_a_wider_parabasal_offset():
    optic = optics.load("cooke_triplet")
    exact = field_curvature(optic, points=3, wavelengths=[0.55])
    with be.using("numpy", precision="float32"):
        rough = field_curvature(optics.load("cooke_triplet"), points=3, wavelengths=[0.55])
    for a, b in ((rough.tangential, exact.tangential), (rough.sagittal, exact.sagittal)):
        np.testing.assert_allclose(be.to_numpy(a), be.to_numpy(b), atol=5e-3)
