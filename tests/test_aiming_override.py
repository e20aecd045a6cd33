"""``aiming=`` on a trace call applies to every part of it: field solve, launch and aim."""

from __future__ import annotations

import dataclasses

import pytest
from _zemax_corpus import absent_reason, corpus_dir

import optics
from optics import backend as be
from optics.errors import ConfigurationError
from optics.system import Fields


def _real_height_cooke(mode):
    optic = optics.load("cooke_triplet")
    optic.fields = Fields("real_image_height", [(0.0, 0.0), (0.0, 12.0), (0.0, 18.0)])
    optic.aiming = mode
    return optic


@pytest.mark.parametrize("file_mode", ["paraxial", "real"])
@pytest.mark.parametrize("override", ["paraxial", "real"])
def test_chief_ray_lands_at_the_real_image_height_under_either_override(
    backend, file_mode, override
):
    optic = _real_height_cooke(file_mode)
    rays = optics.trace_rays(optic, (0.0, 1.0), (0.0, 0.0), aiming=override)
    assert float(be.item(rays.y)) == pytest.approx(18.0, abs=1e-9)
    assert optic.aiming == file_mode  # the override never writes on the optic


def test_the_two_modes_launch_different_chief_rays():
    optic = _real_height_cooke("paraxial")
    # Under real aiming the chief ray crosses the stop centre; paraxially it misses
    # it slightly, so the two solves must find different object-space fields.
    paraxial = optics.trace_rays(optic, (0.0, 1.0), (0.5, 0.0), aiming="paraxial")
    real = optics.trace_rays(optic, (0.0, 1.0), (0.5, 0.0), aiming="real")
    assert abs(float(be.item(paraxial.x)) - float(be.item(real.x))) > 1e-6


def test_bundle_takes_the_override_for_its_fields_too():
    optic = _real_height_cooke("real")
    bundle = optics.trace_bundle(optic, fields=[(0.0, 1.0)], aiming="paraxial", pupil=1)
    assert float(be.item(bundle.reference_chief.y[0])) == pytest.approx(18.0, abs=1e-9)


def test_an_unknown_aiming_mode_is_refused_with_its_name():
    with pytest.raises(ConfigurationError, match="bogus"):
        optics.trace_rays(optics.load("cooke_triplet"), (0.0, 1.0), (0.0, 0.0), aiming="bogus")


def test_the_patent_lens_with_real_aiming_in_its_file_keeps_its_field_under_paraxial():
    path = corpus_dir() / "rayoptics-US08427765-1.ZMX"
    if not path.exists():
        pytest.skip(absent_reason())
    optic = optics.load(path, glass_fallback="model")
    assert optic.aiming == "real" and optic.fields.type == "real_image_height"
    for mode in ("paraxial", "real"):
        y = optics.trace_rays(optic, (0.0, 1.0), (0.0, 0.0), aiming=mode).y
        assert float(be.item(y)) == pytest.approx(13.6, abs=1e-9)  # was 13.5537 under paraxial
    aimed = dataclasses.replace(optic, aiming="paraxial")
    assert float(be.item(optics.trace_rays(aimed, (0.0, 1.0), (0.0, 0.0)).y)) == pytest.approx(13.6)


@pytest.mark.parametrize("wavelength", [-0.5, 0.0, float("nan"), float("inf")])
def test_a_wavelength_that_is_not_a_positive_number_is_refused(wavelength):
    optic = optics.load("cooke_triplet")
    with pytest.raises(ConfigurationError, match="wavelength"):
        optics.trace_rays(optic, (0.0, 1.0), (0.0, 0.0), wavelength)
    with pytest.raises(ConfigurationError, match="wavelength"):
        optics.trace_bundle(optic, wavelengths=[0.55, wavelength], pupil=1)
