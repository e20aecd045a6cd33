"""optics.params.replaced: a copy with one value changed, the rest shared, the root untouched."""

from __future__ import annotations

import pytest

import optics
from optics.params import ParameterPathError, get_param, replaced


def test_replaced_copies_only_the_path():
    lens = optics.load("cooke_triplet")
    radius = get_param(lens, "surfaces[3].radius")
    new = replaced(lens, "surfaces[3].radius", 2 * radius)
    assert get_param(new, "surfaces[3].radius") == 2 * radius
    assert get_param(lens, "surfaces[3].radius") == radius
    assert new.surfaces is not lens.surfaces and new.surfaces[3] is not lens.surfaces[3]
    assert new.surfaces[3].material is lens.surfaces[3].material
    assert all(new.surfaces[i] is lens.surfaces[i] for i in range(len(lens.surfaces)) if i != 3)
    assert new.fields is lens.fields and new.aperture is lens.aperture


def test_replaced_tuples_and_nested_lists():
    lens = optics.load("cooke_triplet")
    new = replaced(lens, "fields.values[2][1]", 25.0)
    assert new.fields.values[2] == (0.0, 25.0) and lens.fields.values[2] == (0.0, 20.0)
    assert new.wavelengths is lens.wavelengths
    moved = replaced(new, "wavelengths.values[0]", 0.5)
    assert moved.wavelengths.values[0] == 0.5 and lens.wavelengths.values[0] == 0.48


def test_replaced_reports_a_bad_path():
    lens = optics.load("cooke_triplet")
    with pytest.raises(ParameterPathError, match="out of range"):
        replaced(lens, "surfaces[40].radius", 1.0)
    with pytest.raises(ParameterPathError, match="no parameter 'bogus'"):
        replaced(lens, "surfaces[1].bogus", 1.0)
