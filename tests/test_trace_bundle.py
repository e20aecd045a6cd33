"""trace_bundle: one batched trace of wavelengths x fields x pupil, and its chief rays."""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis import ray_fan, spot_diagram
from optics.errors import SolveError
from optics.geometry import Standard
from optics.materials import ConstantIndex
from optics.optimize import OPERANDS, MeritContext
from optics.sampling import hexapolar
from optics.solvers import newton_2x2
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths
from optics.trace import _aim_solve, trace_bundle, trace_rays, trace_surfaces

COMPONENTS = ("x", "y", "z", "L", "M", "N", "opd")


def _numpy(rays, name):
    return be.to_numpy(getattr(rays, name))


def test_bundle_rays_equal_single_traces(backend):
    optic = optics.load("cooke_triplet")
    bundle = trace_bundle(optic, pupil=3)
    n_pupil = 1 + 3 * 3 * 4
    assert tuple(bundle.rays.x.shape) == (3, 3, n_pupil)
    assert tuple(bundle.chief.x.shape) == (3, 3)
    px, py = hexapolar(3)
    for w, wavelength in enumerate(bundle.wavelengths):
        for f, (hx, hy) in enumerate(bundle.fields):
            single = trace_rays(optic, (hx, hy), (px, py), wavelength)
            chief = trace_rays(optic, (hx, hy), (0.0, 0.0), wavelength)
            for name in COMPONENTS:
                np.testing.assert_allclose(
                    _numpy(bundle.rays, name)[w, f], _numpy(single, name), rtol=0, atol=1e-12
                )
                assert _numpy(bundle.chief, name)[w, f] == pytest.approx(
                    float(_numpy(chief, name)), abs=1e-12
                )
    assert bundle.primary == optic.wavelengths.primary
    assert bundle.fields == tuple(optic.fields.normalized())


def test_spot_diagram_solves_each_real_image_height_field_once(backend, monkeypatch):
    optic = optics.load("cooke_triplet")
    optic.fields = Fields("real_image_height", [(0.0, 0.0), (0.0, 12.0), (0.0, 18.0)])
    batches = []

    def counting(residual, jacobian, q0, **kwargs):
        batches.append(tuple(q0.shape))
        return newton_2x2(residual, jacobian, q0, **kwargs)

    monkeypatch.setattr(_aim_solve, "newton_2x2", counting)
    spots = spot_diagram(optic)
    assert len(spots) == 9
    assert batches == [(3, 2)]  # one solve, three distinct fields, for all 3 wavelengths


def _miss_system(field_angle=18.0):
    """A stop, then a small sphere (R = 6 mm) whose edge the 18-degree chief ray passes."""
    surfaces = [
        Surface(thickness=math.inf),
        Surface(Standard(), 20.0, is_stop=True),
        Surface(Standard(6.0), 3.0, ConstantIndex(1.5)),
        Surface(Standard(), 10.0),
        Surface(),
    ]
    return Optic(
        surfaces,
        Aperture("epd", 8.0),
        Fields("angle", [(0.0, 0.0), (0.0, field_angle)]),
        Wavelengths([0.55], 0),
    )


def test_failed_chief_ray_gives_no_chief_referenced_spot(backend):
    optic = _miss_system()
    bundle = trace_bundle(optic)
    assert be.to_numpy(bundle.chief_valid).tolist() == [[True, False]]
    on_axis, off_axis = spot_diagram(optic)
    assert math.isfinite(float(be.item(on_axis.rms_radius_chief)))
    assert math.isnan(float(be.item(off_axis.rms_radius_chief)))
    # Some pupil rays still pass: the centroid statistics stay real numbers.
    assert 0 < off_axis.n_invalid < off_axis.n_rays
    assert math.isfinite(float(be.item(off_axis.rms_radius_centroid)))
    report = off_axis.as_dict()
    assert report["rms_radius_chief"] is None
    assert report["rms_radius_centroid"] is not None


@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("chief_height", {"hx": 0.0, "hy": 1.0}),
        ("real_y", {"hx": 0.0, "hy": 1.0}),
        ("rms_spot", {"reference": "chief"}),
    ],
)
def test_operands_refuse_a_failed_chief_ray_naming_the_field(backend, name, arguments):
    context = MeritContext(_miss_system())
    with pytest.raises(SolveError, match=r"field \(hx, hy\) = \(0, 1\) fails"):
        OPERANDS[name](context, **arguments)


def test_ray_fan_has_no_valid_ray_without_a_chief_reference(backend):
    _, error, valid = ray_fan(_miss_system(), 0.0, 1.0)
    assert not be.to_numpy(valid).any()
    assert np.isfinite(be.to_numpy(error)).all()


def test_chief_ray_blocked_by_an_aperture_stays_the_reference(backend):
    optic = optics.load("cooke_triplet")
    open_chief = trace_rays(optic, (0.0, 1.0), (0.0, 0.0))
    # Close surface 6's clear aperture just inside the full-field chief ray's height there.
    path = trace_surfaces(optic, (0.0, 1.0), (0.0, 0.0))
    height = abs(float(be.item(path[6].y)))
    optic.surfaces[6].semi_diameter = 0.99 * height
    bundle = trace_bundle(optic)
    primary = optic.wavelengths.primary
    assert be.to_numpy(bundle.chief_blocked)[primary].tolist() == [False, False, True]
    assert bool(be.to_numpy(bundle.chief_valid).all())
    assert float(be.item(bundle.chief.y[primary, 2])) == pytest.approx(
        float(be.item(open_chief.y)), abs=1e-12
    )
    spots = spot_diagram(optic)
    blocked = [s for s in spots if s.chief_blocked]
    assert {s.field for s in blocked} == {bundle.fields[2]}
    assert all(math.isfinite(float(be.item(s.rms_radius_chief))) for s in blocked)
    assert all(s.n_invalid > 0 for s in blocked)


def test_spot_reference_is_the_primary_chief_even_when_not_traced(backend):
    optic = optics.load("cooke_triplet")
    blue = optic.wavelengths.values[0]
    assert blue != optic.primary_wavelength
    (spot,) = spot_diagram(optic, fields=[(0.0, 1.0)], wavelengths=[blue])
    chief = trace_rays(optic, (0.0, 1.0), (0.0, 0.0))  # primary wavelength
    rays = trace_rays(optic, (0.0, 1.0), hexapolar(6), blue)
    y = be.to_numpy(rays.y) - float(be.item(chief.y))
    x = be.to_numpy(rays.x) - float(be.item(chief.x))
    assert spot.wavelength == blue
    assert float(be.item(spot.rms_radius_chief)) == pytest.approx(
        math.sqrt(np.mean(x * x + y * y)), rel=1e-12
    )


def test_rays_that_overflow_are_invalid_not_silently_null(backend):
    optic = optics.load("cooke_triplet")
    optic.surfaces[-2].thickness = 1e308  # set in code: lens files refuse it
    (spot, *_) = spot_diagram(optic, fields=[(0.0, 1.0)], wavelengths=[optic.primary_wavelength])
    assert spot.n_invalid == spot.n_rays
    assert spot.as_dict()["rms_radius_centroid"] is None
