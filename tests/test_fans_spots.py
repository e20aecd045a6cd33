"""Ray fans and OPD fans, the report spot diagram's numbers, the prescription and repr."""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis import fans, opd, ray_fan
from optics.analysis._prescription import prescription
from optics.plot_spots import airy_radius, spot_panels


def test_fans_equal_single_ray_traces_against_the_primary_chief_ray():
    optic = optics.load("cooke_triplet")
    result = fans(optic, [(0.0, 1.0)], [0.48], n=5)
    t = np.linspace(-1.0, 1.0, 5)
    rays = optics.trace_rays(optic, (0.0, 1.0), (0.0 * t, t), 0.48)
    chief = optics.trace_rays(optic, (0.0, 1.0), (0.0, 0.0), optic.primary_wavelength)
    expected = be.to_numpy(rays.y) - float(be.item(chief.y))
    np.testing.assert_allclose(be.to_numpy(result.tangential)[0, 0], expected, atol=1e-12)
    sag = optics.trace_rays(optic, (0.0, 1.0), (t, 0.0 * t), 0.48)
    expected_x = be.to_numpy(sag.x) - float(be.item(chief.x))
    np.testing.assert_allclose(be.to_numpy(result.sagittal)[0, 0], expected_x, atol=1e-12)
    waves, _ = opd(optic, 0.0, 1.0, 0.0 * t, t, 0.48)  # OPD against its own chief ray
    np.testing.assert_allclose(be.to_numpy(result.opd_tangential)[0, 0], be.to_numpy(waves),
                               atol=1e-9)  # fmt: skip


def test_on_axis_the_tangential_and_sagittal_fans_agree():
    result = fans(optics.load("cooke_triplet"), [(0.0, 0.0)], n=7)
    np.testing.assert_allclose(result.tangential, result.sagittal, atol=1e-12)
    np.testing.assert_allclose(result.opd_tangential, result.opd_sagittal, atol=1e-9)
    assert np.all(np.asarray(result.opd_tangential)[:, 0, 3] == 0.0)  # the chief ray


def test_ray_fan_is_a_result_that_still_unpacks():
    fan = ray_fan(optics.load("cooke_triplet"), 0.0, 1.0, n=5)
    pupil, error, valid = fan
    assert fan.axis == "y" and fan.field == (0.0, 1.0) and fan.wavelength == 0.55
    assert error is fan.error and bool(np.all(be.to_numpy(valid)))


def test_a_vignetted_fan_ray_is_nan_not_a_number():
    optic = optics.load("cooke_triplet")
    optic.surfaces[1].semi_diameter = 5.5
    result = fans(optic, [(0.0, 1.0)], [0.55], n=5)
    assert not result.valid_tangential[0, 0, 0]  # py = -1 is clipped
    assert math.isnan(float(np.asarray(result.tangential)[0, 0, 0]))
    assert result.as_dict()["tangential"][0][0][0] is None or math.isnan(
        result.as_dict()["tangential"][0][0][0]
    )


def test_the_airy_radius_is_1_22_lambda_n():
    optic = optics.load("cooke_triplet")  # f/5 at 0.55 µm: N = efl / EPD in air
    efl = float(be.item(optics.prepare(optic).first_order.efl))
    assert airy_radius(optic) == pytest.approx(1.22 * 0.55e-3 * efl / 10.0, rel=1e-12)


def test_fans_agree_on_every_backend(backend):
    optic = optics.load("singlet")
    result = fans(optic, [(0.0, 1.0)], [optic.primary_wavelength], n=3)
    reference = optics.trace_rays(optic, (0.0, 1.0), (0.0, 1.0))
    chief = optics.trace_rays(optic, (0.0, 1.0), (0.0, 0.0))
    expected = float(be.item(reference.y)) - float(be.item(chief.y))
    assert float(be.to_numpy(result.tangential)[0, 0, 2]) == pytest.approx(expected, abs=1e-12)


def test_the_spot_panel_rms_equals_the_spot_diagram_rms_for_one_wavelength():
    from optics.analysis import spot_diagram

    optic = optics.load("cooke_triplet")
    panels, _ = spot_panels(optic, [(0.0, 0.7)], [0.55], rings=4)
    (spot,) = spot_diagram(optic, [(0.0, 0.7)], [0.55], pupil=4)
    assert panels[0]["rms"] * 1e-3 == pytest.approx(float(spot.rms_radius_chief), rel=1e-10)


def test_the_prescription_reads_the_lens():
    record = prescription(optics.load("cooke_triplet"))
    rows = record["surfaces"]
    assert [r["surface"] for r in rows] == list(range(8))
    assert rows[1]["radius"] == 22.01359 and rows[1]["thickness"] == 3.25896
    assert rows[1]["glass"] == "SK16" and rows[1]["catalog"] == "hikari"
    assert rows[4]["stop"] and not rows[3]["stop"]
    assert rows[0]["thickness"] == math.inf and rows[2]["conic"] == 0.0
    assert record["fields"]["unit"] == "deg" and record["fields"]["values"][2] == [0.0, 20.0]


def test_repr_is_a_summary_not_an_address():
    text = repr(optics.load("cooke_triplet"))
    assert "object at" not in text and text.startswith("Optic 'Cooke triplet'")
    assert "14°" in text and "0.55*" in text and "SK16" in text
    assert len(text.splitlines()) == 3 + 8
