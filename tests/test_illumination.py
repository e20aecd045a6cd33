"""Relative illumination and vignetting vs field, and the footprint diagram.

References: Optiland 0.6.3 (/work/anchors/optiland), measured in a scratch script
outside the repository: ``optic.trace_generic`` of a 401 × 401 (Cooke) or 201 × 201
(others) square pupil grid per field at the primary wavelength; vignetting = 1 − the
fraction of grid points inside the unit circle with intensity > 0; relative illumination
= the (L, M) area of the grid cells inside the unit circle, each weighted by the fraction
of its corners that pass, over the on-axis area.  Optiland has no relative-illumination
analysis of its own; this uses its real-ray trace and aiming only.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from _zemax_corpus import absent_reason, corpus_dir

import optics
from optics import backend as be
from optics.analysis import footprint, illumination_ratio, relative_illumination
from optics.errors import ConfigurationError
from optics.io import optic_from_dict

FIELDS = [0.5, 0.7, 1.0]


def _cooke(vignetted=False):
    optic = optics.load("cooke_triplet")
    if vignetted:  # clear semi-diameters on the first and the last lens surface
        optic.surfaces[1].semi_diameter = 5.5
        optic.surfaces[6].semi_diameter = 6.0
    return optic


def _corpus(name):
    path = corpus_dir() / name
    if not path.is_file():
        pytest.skip(absent_reason())
    return optics.load(path)


def test_the_cooke_triplet_equals_optiland():
    # Optiland 0.6.3, the sample built surface by surface (SK16/F2 from its catalog),
    # paraxial aiming, 0.55 µm, 401² grid: RI 0.939066, 0.883106, 0.777541; no vignetting.
    result = relative_illumination(_cooke(), fields=FIELDS, wavelengths=[0.55])
    ri = be.to_numpy(result.illumination)[0]
    np.testing.assert_allclose(ri, [0.939066, 0.883106, 0.777541], atol=2e-4)
    np.testing.assert_array_equal(result.vignetting, 0.0)


def test_the_vignetted_cooke_triplet_equals_optiland():
    # Optiland 0.6.3 as above with RadialAperture r_max 5.5 (surface 1) and 6.0 (surface 6),
    # 401² grid: vignetting 0.157500, 0.271594, 0.579017; RI 0.791731, 0.644980, 0.332938.
    result = relative_illumination(_cooke(True), fields=FIELDS, wavelengths=[0.55])
    np.testing.assert_allclose(result.vignetting[0], [0.157500, 0.271594, 0.579017], atol=4e-3)
    ri = be.to_numpy(result.illumination)[0]
    np.testing.assert_allclose(ri, [0.791731, 0.644980, 0.332938], atol=3e-3)


def test_a_wide_angle_corpus_lens_equals_optiland():
    # Optiland 0.6.3, optiland-laikin_wide_angle.zmx (100°, its clear apertures), "robust"
    # aiming, 0.587 µm, 401² grid, fields 0.25, 0.4, 1: RI 1.005733, 1.014489, 0.787069;
    # vignetting 0, 0, 0.270710 (its 201² grid: RI 0.788213 at 1: the rim of a vignetted
    # pupil converges as the cell size).  Ours: real aiming.
    optic = _corpus("optiland-laikin_wide_angle.zmx")
    result = relative_illumination(optic, fields=[0.25, 0.4, 1.0], wavelengths=[0.587])
    np.testing.assert_allclose(result.vignetting[0], [0.0, 0.0, 0.270710], atol=2e-3)
    ri = be.to_numpy(result.illumination)[0]
    np.testing.assert_allclose(ri[:2], [1.005733, 1.014489], atol=1e-5)
    assert ri[2] == pytest.approx(0.787069, abs=2e-3)


def test_a_finite_object_corpus_relay_equals_optiland():
    # Optiland 0.6.3, kbg-Relay.zmx (object height 18 mm, object NA 0.1), paraxial aiming,
    # 0.55 µm, 201² grid: RI 0.990867, 0.982211, 0.964179; no vignetting.
    optic = _corpus("kbg-Relay.zmx")
    result = relative_illumination(optic, fields=FIELDS, wavelengths=[0.55])
    ri = be.to_numpy(result.illumination)[0]
    np.testing.assert_allclose(ri, [0.990867, 0.982211, 0.964179], atol=1e-4)
    np.testing.assert_array_equal(result.vignetting, 0.0)


def _ideal_lens(half_field=30.0):
    return optic_from_dict(
        {
            "aperture": {"type": "epd", "value": 1.0},
            "fields": {"type": "angle", "values": [0.0, half_field]},
            "wavelengths": {"values": [0.55]},
            "surfaces": [
                {"thickness": float("inf")},
                {"type": "paraxial", "focal_length": 50.0, "thickness": 50.0, "stop": True},
                {},
            ],
        }
    )


def test_a_thin_lens_with_the_stop_at_it_follows_the_cos4_law(backend):
    # The ideal thin lens (stop at the lens, in air, f/50): RI = cos⁴θ to O(NA²).
    fields = [0.25, 0.5, 0.75, 1.0]
    result = relative_illumination(_ideal_lens(), fields=fields, rings=4, angles=24, samples=16)
    expected = [math.cos(math.radians(30.0 * h)) ** 4 for h in fields]
    np.testing.assert_allclose(be.to_numpy(result.illumination)[0], expected, atol=1e-4)
    np.testing.assert_array_equal(result.vignetting, 0.0)  # no clear aperture: none lost


def test_a_real_thin_singlet_is_brighter_than_cos4_as_optiland_says():
    # A thin biconvex singlet (R ±100, 0.5 mm, n 1.5, stop on it, EPD 1, 20°): the oblique
    # beam's power grows, so RI rises above 1.  Optiland 0.6.3, same lens, 101² grid:
    # 1.005031, 1.020286, 1.046263, 1.083819.
    from helpers import singlet

    optic = singlet(100.0, -100.0, 0.5, epd=1.0, image_distance=100.0, fields=(0.0, 20.0))
    result = relative_illumination(optic, fields=[0.25, 0.5, 0.75, 1.0])
    expected = [1.005031, 1.020286, 1.046263, 1.083819]
    np.testing.assert_allclose(be.to_numpy(result.illumination)[0], expected, atol=1e-4)


def test_imaging_uses_the_same_relative_illumination():
    from optics.imaging import warp

    # The public name is the pinned wrapper (one configuration per call) of the same function.
    assert warp.relative_illumination is illumination_ratio.__wrapped__


def test_the_json_record_has_fields_in_degrees():
    record = relative_illumination(_cooke(), points=3, wavelengths=[0.55]).as_dict()
    assert record["fields"] == [0.0, 0.5, 1.0]
    assert record["field_units"] == [0.0, 10.0, 20.0]
    assert record["relative_illumination"][0][0] == pytest.approx(1.0, abs=1e-12)
    assert set(record) == {
        "fields",
        "field_units",
        "wavelengths",
        "relative_illumination",
        "vignetting",
    }


def test_the_footprint_lies_inside_the_clear_aperture_it_passes():
    optic = _cooke(True)
    result = footprint(optic, 6, rings=6)
    passed = result.passed
    radius = np.hypot(result.x, result.y)
    assert result.semi_diameter == 6.0
    assert np.all(radius[passed] <= 6.0 + 1e-9)
    assert np.any(radius[result.reached] > 6.0)  # clipped here: reached, not passed
    on_axis = footprint(_cooke(), 4, fields=[(0.0, 0.0)], rings=6)  # the stop: EPD 10 imaged
    assert on_axis.passed.all()
    record = on_axis.as_dict()
    assert record["surface"] == 4 and record["fields"][0]["n_passed"] == 127


def test_the_footprint_rejects_a_surface_out_of_range():
    with pytest.raises(ConfigurationError, match="footprint surface"):
        footprint(_cooke(), 0)
    with pytest.raises(ConfigurationError, match="footprint surface"):
        footprint(_cooke(), 8)


def test_the_relative_illumination_gradient_equals_central_differences():
    # d RI(1) / d (rear radius) of a thick singlet, stop on its front (no vignetting: smooth).
    # Torch only: JAX's jacrev of this trace compiles for ~14 s, over this file's time budget.
    pytest.importorskip("torch")
    from helpers import singlet

    def ri(radius):
        optic = singlet(50.0, -50.0, 5.0, epd=10.0, fields=(0.0, 15.0))
        optic.surfaces[2].geometry.radius = radius
        return illumination_ratio(optic, [0.0, 1.0], 0.55, rings=3, angles=12)[1]

    from helpers import derivative

    with be.using("torch", precision="float64", device="cpu"):
        exact = derivative(ri, be.asarray(-50.0))[0]
    with be.using("numpy"):
        steps = [(float(ri(-50.0 + h)) - float(ri(-50.0 - h))) / (2 * h) for h in (2e-3, 1e-3)]
    assert abs(steps[0]) > 1e-5
    assert steps[0] == pytest.approx(steps[1], rel=1e-4)
    assert exact == pytest.approx(steps[1], rel=1e-4)
