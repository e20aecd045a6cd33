"""One entry for every public analysis: an Optic or a PreparedSystem, prepared once per call.

Each public analysis of ``optics.analysis`` is called with the Cooke triplet's
PreparedSystem and gives what it gives for the Optic; and, counted by profiling the
calls, an analysis builds one PreparedSystem and one set of frames, and a real-aimed
trace builds its frames once (not once per Newton residual of the aim).
"""

from __future__ import annotations

import collections
import inspect
import sys
import warnings

import numpy as np
import pytest

import optics
from optics import analysis
from optics import frames as frames_module
from optics.trace import prepared as prepared_module
from optics.trace import trace_bundle, trace_rays
from optics.trace.prepared import PreparedSystem, prepare

LENS = optics.load("cooke_triplet")
ON_AXIS = (0.0, 0.0)
FIELD = (0.0, 0.7)

# The arguments after the system, for each public analysis that takes one (cheap settings).
CALLS = {
    "bundle_opd": dict(bundle=trace_bundle(LENS, fields=[FIELD], pupil=3)),
    "fans": dict(n=5),
    "prescription": {},
    "footprint": dict(surface=2),
    "relative_illumination": {},
    "require_focus": dict(what="a test"),
    "illumination_ratio": dict(fields=[FIELD], wavelength=0.55),
    "vignetting_fraction": dict(fields=[FIELD], wavelength=0.55),
    "huygens_psf": dict(field=FIELD, x=np.linspace(-0.01, 0.01, 5), y=np.zeros(5)),
    "mtf_vs_field": dict(frequencies=[20.0]),
    "through_focus_mtf": dict(frequency=20.0, defocus=[-0.02, 0.0, 0.02]),
    "through_focus_spot": dict(defocus=[-0.02, 0.0, 0.02]),
    "chromatic_focal_shift": {},
    "distortion": {},
    "grid_distortion": {},
    "field_curvature": {},
    "lateral_color": {},
    "geometric_encircled_energy": dict(field=ON_AXIS, radii=[0.005, 0.01]),
    "geometric_mtf": dict(field=ON_AXIS, frequencies=[20.0]),
    "mtf": {},
    "opd": dict(hx=0.0, hy=0.7, px=np.linspace(-1, 1, 5), py=np.zeros(5)),
    "psf": dict(field=ON_AXIS),
    "ray_fan": dict(hx=0.0, hy=0.7),
    "seidel": {},
    "spot_diagram": {},
    "wavefront": dict(field=ON_AXIS),
}


def _takes_a_system(name):
    function = getattr(analysis, name)
    if not inspect.isfunction(function) and not callable(function):
        return False
    try:
        first = next(iter(inspect.signature(function).parameters))
    except (StopIteration, ValueError):
        return False
    return first in ("optic", "system")


def test_every_public_analysis_that_takes_a_system_is_listed_here():
    takers = {n for n in analysis.__all__ if callable(getattr(analysis, n)) and _takes_a_system(n)}
    assert takers == set(CALLS)


def _plain(value):
    """Numbers of a result, for comparing two calls."""
    if hasattr(value, "as_dict"):
        value = value.as_dict()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "__dataclass_fields__"):
        return {k: _plain(getattr(value, k)) for k in value.__dataclass_fields__}
    try:
        return np.asarray(optics.backend.to_numpy(value), dtype=float)
    except (TypeError, ValueError):
        return repr(value)


def _assert_same(a, b, where):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for k in a:
            _assert_same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, equal_nan=True, err_msg=where)
    elif "object at 0x" not in str(a):
        assert a == b, where


@pytest.mark.parametrize("name", sorted(CALLS))
def test_an_analysis_takes_a_prepared_system_and_gives_the_optic_s_result(name):
    function = getattr(analysis, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_optic = function(LENS, **CALLS[name])
        from_system = function(prepare(LENS), **CALLS[name])
    _assert_same(_plain(from_optic), _plain(from_system), name)


def _merit():
    from optics.optimize import Merit, Operand

    return Merit(
        [
            Operand("efl", 50.0),
            Operand("rms_spot", 0.0),
            Operand("seidel", 0.0),
            Operand("field_curvature", 0.0, hy=1.0),
            Operand("distortion_percent", 0.0, hy=1.0),
        ]
    )


_MERIT = _merit()


def _count(call):
    targets = {
        PreparedSystem.__init__.__code__: "systems",
        frames_module.surface_frames.__code__: "frames",
    }
    counts = collections.Counter()

    def profile(frame, event, _arg):
        if event == "call" and frame.f_code in targets:
            counts[targets[frame.f_code]] += 1

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sys.setprofile(profile)
        try:
            call()
        finally:
            sys.setprofile(None)
    return counts


@pytest.mark.parametrize(
    "name, call",
    [
        ("mtf", lambda: analysis.mtf(LENS)),
        ("psf", lambda: analysis.psf(LENS, ON_AXIS)),
        ("wavefront", lambda: analysis.wavefront(LENS, FIELD)),
        ("spot_diagram", lambda: analysis.spot_diagram(LENS)),
        ("distortion", lambda: analysis.distortion(LENS)),
        ("merit", lambda: _MERIT(LENS)),
    ],
)
def test_an_analysis_prepares_one_system_and_builds_its_frames_once(name, call):
    counts = _count(call)
    assert counts["systems"] == 1, (name, counts)
    assert counts["frames"] == 1, (name, counts)


def test_a_real_aimed_trace_builds_its_frames_once():
    real = prepared_module.with_aiming(LENS, "real")
    pupil = (np.linspace(-1.0, 1.0, 101), np.zeros(101))
    counts = _count(lambda: trace_rays(real, FIELD, pupil))
    assert counts == {"systems": 1, "frames": 1}
    counts = _count(lambda: trace_bundle(real, pupil=4))
    assert counts == {"systems": 1, "frames": 1}
