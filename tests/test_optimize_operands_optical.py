"""Colour, ray-angle, magnification, image-height, clear-aperture and user operands.

Values against first principles; gradients (each operand's row of the
residual Jacobian, Torch and JAX) against central differences at two steps.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics import backend as be
from optics import paraxial
from optics.errors import ConfigurationError
from optics.io import optic_from_dict
from optics.optimize import Constraint, MeritContext, Operand, Problem, register_operand


def _power(ctx):
    return 1.0 / ctx.first_order.efl


register_operand("test_power", _power, replace=True)

OPERANDS = [
    Operand("axial_color"),
    Operand("lateral_color", hy=1.0),
    Operand("chief_ray_angle", hy=1.0),
    Operand("real_ray_angle", hy=0.7, py=1.0),
    Operand("real_ray_angle", hy=0.7, px=1.0, plane="x"),
    Operand("image_height"),
    Operand("clear_aperture", surface=2),
    Operand("test_power"),
]


def _colour_singlet():
    """A small N-BK7 singlet with two wavelengths and an off-axis field (a fast trace)."""
    return optic_from_dict(
        {
            "aperture": {"type": "epd", "value": 10.0},
            "fields": {"type": "angle", "values": [0.0, 5.0]},
            "wavelengths": {"values": [0.4861327, 0.6562725]},
            "surfaces": [
                {"thickness": math.inf},
                {"radius": 50.0, "thickness": 5.0, "material": "N-BK7"},
                {"radius": -80.0, "thickness": 10.0},
                {"thickness": 80.0, "stop": True},
                {},
            ],
        }
    )


def _finite_object():
    return optic_from_dict(
        {
            "aperture": {"type": "object_na", "value": 0.05},
            "fields": {"type": "object_height", "values": [0.0, 5.0]},
            "wavelengths": {"values": [0.55]},
            "surfaces": [
                {"thickness": 150.0},
                {"radius": 50.0, "thickness": 5.0, "material": {"index": 1.5}, "stop": True},
                {"radius": -50.0, "thickness": 80.0},
                {},
            ],
        }
    )


def _fd_jacobian(problem, u, h):
    columns = []
    for i in range(problem.size):
        step = np.zeros(problem.size)
        step[i] = h
        columns.append((problem.residuals_numpy(u + step) - problem.residuals_numpy(u - step)) / h)
    return np.stack(columns, axis=1) / 2


def _check_rows(problem, u):
    _, jacobian = problem.jacobian(u)
    with be.using("numpy"):
        coarse, fine = _fd_jacobian(problem, u, 1e-3), _fd_jacobian(problem, u, 5e-4)
    for row, (exact, c, f) in enumerate(zip(jacobian, coarse, fine)):
        scale = np.abs(f).max()
        label = problem.merit.operands[row].label
        assert scale > 0, f"{label}: no variable reaches it"
        np.testing.assert_allclose(c, f, atol=1e-5 * scale, err_msg=label)  # FD converged
        np.testing.assert_allclose(exact, f, atol=1e-5 * scale, err_msg=label)


#: JAX dispatches these eagerly op by op for seconds each (two-wavelength real rays, a
#: recorded trace): checked on JAX only in the slow run, on Torch always.
_SLOW_ON_JAX = ("lateral_color", "clear_aperture")
_PATHS = ["surfaces[1].radius", "surfaces[2].radius", "surfaces[3].thickness"]


def test_new_operand_gradients_match_finite_differences(autodiff_backend):
    operands = OPERANDS
    if autodiff_backend == "jax":
        operands = [op for op in OPERANDS if op.type not in _SLOW_ON_JAX]
    problem = Problem(_colour_singlet(), _PATHS, operands)
    _check_rows(problem, np.array([0.3, -0.2, 0.4]))
    lens = _finite_object()
    magnification = Problem(
        lens,
        ["surfaces[1].radius", "surfaces[0].thickness"],
        [Operand("magnification", target=-1.0)],
    )
    _check_rows(magnification, np.array([0.2, -0.3]))


@pytest.mark.slow
def test_lateral_color_and_clear_aperture_gradients_on_jax(jax_backend):
    operands = [op for op in OPERANDS if op.type in _SLOW_ON_JAX]
    _check_rows(Problem(_colour_singlet(), _PATHS, operands), np.array([0.3, -0.2, 0.4]))


def test_values_from_first_principles():
    lens = optics.load("cooke_triplet")
    ctx = MeritContext(lens)
    waves = lens.wavelengths.values
    expected = float(paraxial(lens, waves[0]).bfl) - float(paraxial(lens, waves[-1]).bfl)
    assert float(Operand("axial_color").value(ctx)) == pytest.approx(expected, abs=1e-12)
    ray = ctx.ray(0.0, 0.7, 0.0, 1.0, lens.primary_wavelength, "test")
    angle = math.degrees(math.atan2(float(ray.M), float(ray.N)))
    value = float(Operand("real_ray_angle", hy=0.7, py=1.0).value(ctx))
    assert value == pytest.approx(angle, abs=1e-12)
    on_axis = float(Operand("chief_ray_angle", hy=0.0).value(ctx))
    assert on_axis == pytest.approx(0.0, abs=1e-12)  # the axial chief ray runs along z
    assert float(Operand("lateral_color", hy=0.0).value(ctx)) == pytest.approx(0.0, abs=1e-12)
    assert float(Operand("test_power").value(ctx)) == pytest.approx(1 / float(paraxial(lens).efl))
    # Object at 150 mm, f ≈ 25.6 mm singlet: m = −s′/s from the paraxial image (Newton).
    finite = _finite_object()
    m = float(Operand("magnification").value(MeritContext(finite)))
    f = float(paraxial(finite).efl)
    assert m == pytest.approx(-f / (150.0 - f), rel=0.05)  # thin-lens estimate of a 5 mm lens


def test_clear_aperture_is_the_marginal_height_on_the_stop():
    lens = optics.load("cooke_triplet")
    stop = lens.stop_index
    height = float(Operand("clear_aperture", surface=stop, fields=[0]).value(MeritContext(lens)))
    radius = float(paraxial(lens).epd) / 2  # not the stop radius: the marginal ray at the stop
    assert 0 < height < 2 * radius
    constraint = Constraint("clear_aperture", max=height + 1.0, surface=stop)
    assert constraint.label.startswith("clear_aperture(surface=")


def test_register_operand_refuses_bad_names_and_duplicates():
    with pytest.raises(ConfigurationError, match="identifier"):
        register_operand("not a name", _power)
    with pytest.raises(ConfigurationError, match="exists"):
        register_operand("efl", _power)
    with pytest.raises(ConfigurationError, match="two wavelengths"):
        Operand("axial_color").value(MeritContext(_finite_object()))
