"""The .zmx samples shipped in optics.samples.zemax: present, loadable, equal to the built-in
samples they were written from, and packaged."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

import optics
from optics.errors import LensFileError
from optics.io import optic_to_dict
from optics.samples import zemax as zemax_samples

ROOT = Path(__file__).resolve().parents[1]


def test_the_samples_are_listed_and_have_a_readme():
    assert zemax_samples.names() == ["achromat", "cooke_triplet", "singlet"]
    assert "MIT" in (ROOT / "optics" / "samples" / "zemax" / "README.md").read_text()


@pytest.mark.parametrize("name", ["achromat", "cooke_triplet", "singlet"])
def test_each_sample_is_the_built_in_lens_of_its_name(name):
    from_zmx = optic_to_dict(optics.load(zemax_samples.path(name)))
    built_in = optic_to_dict(optics.load(name))
    built_in.pop("optimize", None)  # the .zmx form has no [optimize] section
    assert_same(from_zmx, built_in)


def assert_same(a, b):
    """Equal data, floats to one ulp (a radius goes through its curvature, docs/zemax.md)."""
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, float):
        assert a == pytest.approx(b, rel=4e-16, abs=0)
    else:
        assert a == b


def test_an_unknown_sample_lists_the_samples():
    with pytest.raises(LensFileError, match="unknown .zmx sample 'achromatt'.*'achromat'"):
        zemax_samples.path("achromatt")


def test_the_samples_are_package_data():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "*.zmx" in data["tool"]["setuptools"]["package-data"]["optics.samples.zemax"]
