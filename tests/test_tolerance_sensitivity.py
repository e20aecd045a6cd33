"""Sensitivity analysis: autodiff derivatives against central differences; what each item does."""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.io import optic_from_dict, optic_to_dict
from optics.materials import CatalogGlass
from optics.tolerance import (
    ToleranceModel,
    derivatives_at_nominal,
    finite_differences,
    sensitivity,
)
from optics.tolerance._material import ShiftedGlass, d_line

ITEMS = [
    {"path": "surfaces[1].radius", "plus_minus": 0.05},
    {"path": "surfaces[3].thickness", "plus_minus": 0.02},
    {"kind": "decenter", "surfaces": [3, 4], "plus_minus": 0.02},
    {"kind": "tilt", "surfaces": [1, 2], "plus_minus": 0.05},
    {"kind": "index", "surface": 1, "plus_minus": 0.001},
    {"kind": "abbe", "surface": 3, "plus_minus": 0.3},
    {"kind": "power", "surface": 4, "plus_minus": 2.0, "aperture": 5.0},
    {"kind": "irregularity", "surface": 5, "plus_minus": 1.0, "aperture": 5.0},
]


def cooke(section, *, zernike_surface=5):
    """The Cooke triplet with a [tolerance] section; surface 5 a zero-departure Zernike surface."""
    data = optic_to_dict(optics.load("cooke_triplet"))
    data["surfaces"][zernike_surface].update(
        type="zernike", coefficients=[0.0] * 4, norm_radius=6.0
    )
    data["tolerance"] = section
    return optic_from_dict(data, "lens.toml")


def section(items=ITEMS, compensators=("surfaces[6].thickness",), **extra):
    return {
        "criterion": {"type": "rms_spot", "fields": [0, 1, 2], "rings": 3},
        "compensators": list(compensators),
        "items": items,
        **extra,
    }


@pytest.mark.skipif("torch" not in be.available_backends(), reason="torch is not installed")
def test_autodiff_derivatives_match_central_differences_at_two_steps():
    with be.using("torch"):
        model = ToleranceModel(cooke(section()))
        autodiff = derivatives_at_nominal(model)
    scale = np.abs(autodiff).max()
    with be.using("numpy"):
        model = ToleranceModel(cooke(section()))
        for fraction in (1e-3, 5e-4):
            fd = finite_differences(model, fraction * model.half_widths)
            np.testing.assert_allclose(autodiff, fd, rtol=1e-5, atol=1e-7 * scale)
    assert np.count_nonzero(np.abs(autodiff) > 1e-6 * scale) >= 6  # not a vacuous comparison


def _table(backend):
    with be.using(backend):
        return sensitivity(ToleranceModel(cooke(section(ITEMS[:3]))))


def test_the_sensitivity_table_is_sorted_by_worst_change_with_its_rss():
    result = _table("numpy")
    assert [row["item"] for row in result.rows][0] == "decenter y surfaces[3-4]"
    worst = [row["worst"] for row in result.rows]
    assert worst == sorted(worst, reverse=True)
    for row in result.rows:
        assert row["worst"] == pytest.approx(max(row["minus"], row["plus"]) - result.nominal)
        assert max(row["minus"], row["plus"]) >= result.nominal - 1e-12  # compensated nominal
    assert result.rss == pytest.approx(math.sqrt(sum(max(w, 0.0) ** 2 for w in worst)))


@pytest.mark.skipif("torch" not in be.available_backends(), reason="torch is not installed")
def test_numpy_and_torch_give_the_same_sensitivity_table():
    on_numpy, on_torch = _table("numpy"), _table("torch")
    assert on_torch.nominal == pytest.approx(on_numpy.nominal, rel=1e-10)
    for a, b in zip(on_numpy.rows, on_torch.rows):
        assert a["item"] == b["item"]
        assert [a["minus"], a["plus"]] == pytest.approx([b["minus"], b["plus"]], rel=1e-6)
        assert a["derivative"] == pytest.approx(b["derivative"], rel=1e-5, abs=1e-9)


def test_compensation_recovers_a_thickness_error_behind_the_last_element():
    """A back-focus error is undone by the back-focus compensator (to the driver's tolerance)."""
    items = [{"path": "surfaces[6].thickness", "plus_minus": 0.2}]
    model = ToleranceModel(cooke(section(items)))
    nominal = model.nominal_value()
    assert model.evaluate([0.2], compensate=False) > 1.5 * nominal
    assert model.evaluate([0.2]) == pytest.approx(nominal, rel=1e-6)


def test_a_tilt_moves_the_element_rigidly_about_its_first_vertex():
    model = ToleranceModel(cooke(section(compensators=())))
    theta = 0.5
    values = np.zeros(len(model))
    values[model.labels.index("tilt x surfaces[1-2]")] = theta
    lens = model.perturbed(values)
    t = 3.25896
    c, s = math.cos(math.radians(theta)), math.sin(math.radians(theta))
    assert float(lens.surfaces[1].decenter[1]) == pytest.approx(0.0, abs=1e-15)
    assert float(lens.surfaces[2].decenter[1]) == pytest.approx(-s * t, rel=1e-12)
    assert [float(a) for a in lens.surfaces[2].tilt] == pytest.approx([theta, 0.0, 0.0])
    assert float(lens.surfaces[1].thickness) == pytest.approx(c * t, rel=1e-12)
    after = float(lens.surfaces[2].thickness) + float(lens.surfaces[1].thickness)
    assert after == pytest.approx(t + 6.00755, rel=1e-14)  # surface 3 stays put


def test_a_shifted_glass_has_exactly_the_shifted_nd_and_vd():
    glass = CatalogGlass("SK16")
    nd, vd = d_line(glass)
    assert d_line(ShiftedGlass(glass, 0.001, -0.5)) == pytest.approx((nd + 0.001, vd - 0.5))


def test_fringes_of_power_and_astigmatism_have_the_stated_sag():
    """N fringes at λ over semi-aperture a: a sag departure of N λ/2 at the edge (PV)."""
    model = ToleranceModel(cooke(section(compensators=())))
    values = np.zeros(len(model))
    values[model.labels.index("surfaces[4] power fringes")] = 2.0
    values[model.labels.index("surfaces[5] astigmatism fringes")] = 3.0
    lens = model.perturbed(values)
    wave = 0.6328e-3
    c0, c1 = 1 / 20.29192, float(lens.surfaces[4].geometry.curvature)
    assert (c1 - c0) * 5.0**2 / 2 == pytest.approx(2.0 * wave / 2, rel=1e-12)
    angle = np.linspace(0.0, 2 * np.pi, 73)
    x, y = 5.0 * np.cos(angle), 5.0 * np.sin(angle)
    departure = lens.surfaces[5].geometry.sag(x, y) - model.nominal.surfaces[5].geometry.sag(x, y)
    assert np.ptp(departure) == pytest.approx(3.0 * wave / 2, rel=1e-9)


def test_a_tilt_composes_with_a_surfaces_own_tilt():
    """Rz Ry Rx angles of R · R₀: about the same axis they add; Ry(b) Rx(a) reads back (a, b, 0)."""
    optic = cooke(section(compensators=()))
    optic.surfaces[2].tilt = (1.0, 0.0, 0.0)
    model = ToleranceModel(optic)
    values = np.zeros(len(model))
    values[model.labels.index("tilt x surfaces[1-2]")] = 0.5
    assert [float(a) for a in model.perturbed(values).surfaces[2].tilt] == pytest.approx(
        [1.5, 0.0, 0.0], abs=1e-12
    )
    values[:] = 0.0
    values[model.labels.index("tilt y surfaces[1-2]")] = 0.5
    assert [float(a) for a in model.perturbed(values).surfaces[2].tilt] == pytest.approx(
        [1.0, 0.5, 0.0], abs=1e-12
    )
