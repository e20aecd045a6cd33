"""Chromatic focal shift and lateral colour: Optiland real rays, Seidel C_L, a thin lens.

Optiland 0.6.3 on the same systems exported with ``optics.io.save(..., ".zmx")``:
the focus is where a near-axis real ray (Px = 0, Py = 1e-4) at each wavelength
crosses the axis, minus the primary's; lateral colour is the chief-ray y on the
image at the shortest minus the longest wavelength, fields 0, 0.25, ..., 1.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import corpus_design, singlet

import optics
from optics import backend as be
from optics import paraxial
from optics.analysis._colour import back_focus, chromatic_focal_shift, lateral_color
from optics.analysis._seidel import seidel
from optics.errors import ConfigurationError

# (focal shift at the lens's wavelengths in mm, lateral colour per field in mm)
OPTILAND = {
    "singlet": (
        [-1.055067052, 0.0, 0.476176979],
        [0.0, -0.0002744467547, -0.0005492728251, -0.0008248577919, -0.001101581759],
    ),
    "achromat": (
        [-0.03695064991, 0.0, 0.08475282151],
        [0.0, -0.0001812458684, -0.0003622340361, -0.0005427053144, -0.0007223975315],
    ),
    "achromat_finite": (
        [-0.1568829627, 0.0, 0.3419567996],
        [0.0, 5.184737511e-05, 0.0001036872282, 0.0001555120365, 0.0002073142752],
    ),
}


def _load(name):
    return optics.load(name) if name in ("singlet", "achromat") else corpus_design(name)


@pytest.mark.parametrize("name", sorted(OPTILAND))
def test_focal_shift_and_lateral_colour_equal_optiland(name):
    optic = _load(name)
    shift = chromatic_focal_shift(optic, wavelengths=optic.wavelengths.values)
    np.testing.assert_allclose(be.to_numpy(shift.shift), OPTILAND[name][0], atol=1e-6)
    colour = lateral_color(optic, points=5)
    np.testing.assert_allclose(be.to_numpy(colour.difference), OPTILAND[name][1], atol=2e-7)


def test_the_focal_shift_of_the_extremes_is_the_seidel_axial_colour():
    # First order in δn: z(short) - z(long) = -C_L / (n' u'²), u' the marginal image slope.
    optic = optics.load("achromat")
    optic.surfaces[1].material = optics.load("singlet").surfaces[1].material  # a singlet-like
    short, long = min(optic.wavelengths.values), max(optic.wavelengths.values)
    shift = chromatic_focal_shift(optic, wavelengths=[short, long]).shift
    u = 1 / (2 * float(paraxial(optic).fno))
    expected = -float(seidel(optic).sums["CL"]) / (u * u)
    assert float(shift[0] - shift[1]) == pytest.approx(expected, rel=2e-2)


def test_the_default_range_spans_the_lens_wavelengths():
    optic = optics.load("cooke_triplet")
    result = chromatic_focal_shift(optic, points=5)
    assert result.wavelengths == pytest.approx([0.48, 0.5225, 0.565, 0.6075, 0.65])
    assert result.as_dict()["shift"][0] == pytest.approx(
        float(back_focus(optic, 0.48) - back_focus(optic, 0.55))
    )
    with pytest.raises(ConfigurationError, match="from"):
        chromatic_focal_shift(optic, start=0.7, stop=0.5)


def test_a_single_glass_singlet_with_one_index_has_no_colour():
    optic = singlet()  # constant index 1.5
    optic.wavelengths.values = [0.5, 0.6]
    result = lateral_color(optic, points=3)
    np.testing.assert_allclose(be.to_numpy(result.difference), 0.0, atol=1e-15)
    shift = chromatic_focal_shift(optic, points=3)
    np.testing.assert_allclose(be.to_numpy(shift.shift), 0.0, atol=1e-12)


def test_colour_agrees_on_every_backend(backend):
    optic = optics.load("achromat")
    colour = lateral_color(optic, points=5)
    np.testing.assert_allclose(be.to_numpy(colour.difference), OPTILAND["achromat"][1], atol=2e-7)
    shift = chromatic_focal_shift(optic, wavelengths=optic.wavelengths.values)
    np.testing.assert_allclose(be.to_numpy(shift.shift), OPTILAND["achromat"][0], atol=1e-6)
