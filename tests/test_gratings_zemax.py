"""Gratings and phase surfaces in .zmx files: the corpus's two grating files, BINARY_2 and
DGRATING reading and writing, the reader's refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _zemax_corpus import corpus_dir, needs_corpus
from test_gratings import WAVELENGTH, _diffractive_lens, _grating, _system

import optics
from optics import backend as be
from optics import paraxial
from optics.errors import LensFileError
from optics.io import optic_from_dict


def test_zmx_export_and_read_back(tmp_path):
    for surface in (_grating(0.2, -1, radius=70.0), _diffractive_lens(80.0, 5.0, terms=3)):
        optic = _system(surface, before="N-BK7")
        path = tmp_path / "g.zmx"
        optics.save(optic, path)
        back = optics.load(path)
        assert back.surfaces[2].geometry.to_spec() == optic.surfaces[2].geometry.to_spec()
        a = optics.trace_rays(optic, (0.0, 1.0), (0.2, 0.7))
        b = optics.trace_rays(back, (0.0, 1.0), (0.2, 0.7))
        assert float(b.y) == pytest.approx(float(a.y), abs=1e-12)


# --- the two grating files of the Zemax corpus (../shared/zemax/files)


CORPUS = corpus_dir()
RAYS = [((0.0, 0.0), (0.0, 0.0)), ((0.0, 0.0), (0.0, 1.0)), ((0.2, 0.8), (-0.15, 0.7))]

# Optiland 0.6.3 (it does not read DGRATING: the system built with its API as the
# file says: N-BK7 plate, plane grating period 5 µm, order −1, EPD 15, angle fields
# 0/10°, 0.587 µm; trace_generic(Hx, Hy, Px, Py)): L, M, N, x, y at the image.
OPTILAND_FLAT = [
    (0.0, -0.117400000000, 0.993084709378, 0.0, -3.546525252822),
    (0.0, -0.117400000000, 0.993084709378, 0.0, 3.953474747178),
    (0.034560264860, 0.021689961122, 0.999167220078, -0.088004289382, 5.898519009485),
]
# Optiland 0.6.3, the curved reflective file (R 70 mirror, 0.2 lines/µm, order 1,
# image at −30) built with its API as a phase surface,
# phase_profile=LinearGratingPhaseProfile(period=0.005, angle=pi/2, order=1) (its
# exact surface-gradient model; its surface_type="grating" projects the spacing
# approximately, 3e-6 mm off at the image for the third ray): L, M, N, x, y.
OPTILAND_CURVED = [
    (0.0, 0.1174000000000, -0.9930847093778, 0.0, 3.5465252528222),
    (0.0, 0.3270019379746, -0.9450236677252, 0.0, 18.0201831727661),
    (0.0040370330815, 0.4006582283548, -0.9162186891870, -0.9846221021112, 18.4892316501792),
]
#: The same trace: OPD of the on-axis marginal ray minus the chief ray's (mm).
OPTILAND_CURVED_MARGINAL_OPD = 3.2461654365815


@needs_corpus
def test_the_flat_transmission_grating_file_traces_like_optiland():
    optic = optics.load(CORPUS / "optiland-flat_transmission_grating.zmx")
    assert optic.surfaces[3].geometry.to_spec() == {
        "radius": math.inf,
        "lines_per_um": 0.2,
        "order": -1,
    }
    for (h, p), expected in zip(RAYS, OPTILAND_FLAT):
        ray = optics.trace_rays(optic, h, p, 0.587)
        got = [float(be.item(getattr(ray, k))) for k in ("L", "M", "N", "x", "y")]
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-12)


@needs_corpus
def test_the_curved_reflective_grating_file_traces_like_optiland_and_the_grating_equation():
    optic = optics.load(CORPUS / "optiland-curved_reflective_grating.zmx")
    for (h, p), expected in zip(RAYS, OPTILAND_CURVED):
        ray = optics.trace_rays(optic, h, p, 0.587)
        got = [float(be.item(getattr(ray, k))) for k in ("L", "M", "N", "x", "y")]
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-12)
    pair = optics.trace_rays(optic, (0.0, 0.0), (np.array([0.0, 0.0]), np.array([0.0, 1.0])), 0.587)
    opd = be.to_numpy(pair.opd)
    assert opd[1] - opd[0] == pytest.approx(OPTILAND_CURVED_MARGINAL_OPD, abs=1e-11)
    # First principles at the hit of the skew ray: n k′ₜ = n kₜ + m λ T ŷₜ, |k′| = 1.
    h, p = RAYS[2]
    before, at = optics.trace_surfaces(optic, h, p, 0.587)[:2]
    c = 1 / 70.0
    x, y, z = (float(be.item(v)) for v in (at.x, at.y, at.z))
    normal = np.array([c * x, c * y, c * z - 1.0])  # unit on the sphere
    k_in = np.array([float(be.item(v)) for v in (before.L, before.M, before.N)])
    k_out = np.array([float(be.item(v)) for v in (at.L, at.M, at.N)])
    grating = 0.587 * 0.2 * np.array([0.0, 1.0, 0.0])
    tangential = lambda v: v - np.dot(v, normal) * normal  # noqa: E731
    np.testing.assert_allclose(tangential(k_out), tangential(k_in + grating), atol=1e-14)
    assert np.dot(k_out, normal) * np.dot(k_in, normal) < 0  # reflected
    assert np.linalg.norm(k_out) == pytest.approx(1.0, abs=1e-15)


# Optiland 0.6.3: a radial phase on a curved N-BK7 singlet, built with its API:
# surface 1 radius 50, thickness 4, N-BK7, stop,
# phase_profile=RadialPhaseProfile([A_i / R**(2i)]) with A = (−900, 4, −0.3), R = 5;
# surface 2 radius −80, thickness 60; EPD 15, angle fields 0/10°, 0.587 µm.
# The skew ray (Hx, Hy, Px, Py) = (0.2, 0.8, −0.15, 0.7): L, M, N, x, y; and the
# on-axis marginal-minus-chief OPD (mm).
OPTILAND_RADIAL_SKEW = (
    0.0601873129159,
    0.0128915000004,
    0.9981038506046,
    2.6395838015052,
    6.1798039044579,
)
OPTILAND_RADIAL_MARGINAL_OPD = 0.3145154466428


def test_a_radial_phase_singlet_traces_like_optiland():
    optic = optic_from_dict(
        {
            "aperture": {"type": "epd", "value": 15.0},
            "fields": {"type": "angle", "values": [0.0, 10.0]},
            "wavelengths": {"values": [0.587]},
            "surfaces": [
                {"thickness": math.inf},
                {
                    "type": "radial_phase",
                    "radius": 50.0,
                    "phase_coefficients": [-900.0, 4.0, -0.3],
                    "norm_radius": 5.0,
                    "thickness": 4.0,
                    "material": "N-BK7",
                    "stop": True,
                },
                {"radius": -80.0, "thickness": 60.0},
                {},
            ],
        }
    )
    ray = optics.trace_rays(optic, (0.2, 0.8), (-0.15, 0.7))
    got = [float(be.item(getattr(ray, k))) for k in ("L", "M", "N", "x", "y")]
    np.testing.assert_allclose(got, OPTILAND_RADIAL_SKEW, rtol=0, atol=2e-12)
    pair = optics.trace_rays(optic, (0.0, 0.0), (np.array([0.0, 0.0]), np.array([0.0, 1.0])))
    opd = be.to_numpy(pair.opd)
    assert opd[1] - opd[0] == pytest.approx(OPTILAND_RADIAL_MARGINAL_OPD, abs=1e-11)


# --- .zmx text: BINARY_2 and DGRATING read, bad values refused

_ZMX = """MODE SEQ
UNIT {unit} X W X CM MR CPMM
ENPD 10
FTYP 0 0 1 1 0 0 0
YFLN 0
WAVM 1 0.55 1
PWAV 1
SURF 0
  CURV 0
  DISZ INFINITY
SURF 1
  STOP
  TYPE {kind}
  CURV 0.0
{lines}
  DISZ 100
SURF 2
  CURV 0
  DISZ 0
"""


def _zmx(kind, lines, unit="MM"):
    from optics.io.zemax import loads

    return loads(_ZMX.format(kind=kind, lines=lines, unit=unit).encode(), "lens.zmx")


def test_a_binary_2_surface_reads_its_order_norm_radius_and_phase_terms():
    optic = _zmx(
        "BINARY_2",
        "  PARM 0 -1\n  XDAT 1 2 0 0\n  XDAT 2 0.5 0 0\n  XDAT 3 -150 0 0\n  XDAT 4 2.5 0 0",
        unit="CM",
    )
    spec = optic.surfaces[1].geometry.to_spec()
    assert spec == {
        "radius": math.inf,
        "phase_coefficients": [-150.0, 2.5],
        "norm_radius": 5.0,  # 0.5 cm
        "order": -1,
    }
    power = 1 * -150.0 * WAVELENGTH * 1e-3 / (math.pi * 25.0)  # −m A₁ λ / (π R²), m = −1
    assert paraxial(optic).efl == pytest.approx(1 / power, rel=1e-13)


@pytest.mark.parametrize(
    "kind, lines, message",
    [
        ("DGRATING", "  PARM 1 0\n  PARM 2 1", r"surface 1: DGRATING with line density 0"),
        ("DGRATING", "  PARM 1 0.3\n  PARM 2 1.5", r"PARM 2 1.5: a diffraction order is a whole"),
        ("BINARY_2", "  PARM 0 1\n  XDAT 1 1 0 0\n  XDAT 3 -1 0 0", r"normalization radius 0"),
    ],
)
def test_bad_grating_data_in_a_zmx_file_is_refused_naming_the_surface(kind, lines, message):
    with pytest.raises(LensFileError, match=message):
        _zmx(kind, lines)


@pytest.mark.parametrize("method", ["blocked", "streamed"])
def test_every_trace_method_diffracts_alike(method):
    optic = _system(_grating(0.25, 1, radius=60.0), before="N-BK7")
    reference = optics.trace_bundle(optic, pupil=3)
    other = optics.trace_bundle(optic, pupil=3, method=method)
    for name in ("x", "y", "L", "M", "opd"):
        np.testing.assert_allclose(
            be.to_numpy(getattr(other.rays, name)),
            be.to_numpy(getattr(reference.rays, name)),
            rtol=0,
            atol=1e-12,
        )


def test_seidel_sums_refuse_a_grating():
    from optics.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="grating"):
        optics.seidel(_system(_grating(0.25, 1)))


def test_a_binary_2_surface_with_aspheric_terms_reads_and_writes_back(tmp_path):
    optic = _zmx(
        "BINARY_2", "  PARM 0 1\n  PARM 2 1e-6\n  XDAT 1 1 0 0\n  XDAT 2 4 0 0\n  XDAT 3 -80 0 0"
    )
    spec = optic.surfaces[1].geometry.to_spec()
    assert optic.surfaces[1].geometry.type_name == "even_asphere_phase"
    assert spec["coefficients"] == [0.0, 1e-6]
    assert (spec["phase_coefficients"], spec["norm_radius"], spec["order"]) == ([-80.0], 4.0, 1)
    path = tmp_path / "b2.zmx"
    optics.save(optic, path)
    assert optics.load(path).surfaces[1].geometry.to_spec() == spec
