"""The analysis merit operands: values equal the analyses, Torch and JAX gradients equal
central finite differences (which agree with themselves at two steps)."""

from __future__ import annotations

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis._colour import chromatic_focal_shift, lateral_color
from optics.analysis._distortion import distortion
from optics.analysis._field_curvature import field_curvature
from optics.analysis._seidel import seidel
from optics.errors import ConfigurationError
from optics.optimize import OPERANDS, MeritContext, Operand, Problem

CASES = [
    ("seidel", {"term": "S5", "surface": 3}),
    ("field_curvature", {"hy": 1.0}),
    ("distortion_percent", {"hy": 0.7, "reference": "f-theta", "wavelength": 2}),
    ("focal_shift", {"wavelength": 0}),
    ("lateral_color", {"hy": 1.0}),
]
VARIABLES = ["surfaces[2].radius", "surfaces[2].thickness"]  # the stop is surface 1
_FINITE_DIFFERENCES = {}  # (case) -> (coarse, fine): computed once, on NumPy, for both backends


def _fd_jacobian(problem, u, h):
    columns = []
    for i in range(problem.size):
        step = np.zeros(problem.size)
        step[i] = h
        plus, minus = problem.residuals_numpy(u + step), problem.residuals_numpy(u - step)
        columns.append((plus - minus) / (2 * h))
    return np.stack(columns, axis=1)


@pytest.mark.parametrize(("name", "arguments"), CASES)
def test_gradients_equal_central_differences(autodiff_backend, name, arguments):
    problem = Problem(optics.load("achromat"), VARIABLES, [Operand(name, **arguments)])
    u = np.array([0.2, 0.3])
    _, jacobian = problem.jacobian(u)
    key = (name, tuple(sorted(arguments.items())))
    if key not in _FINITE_DIFFERENCES:
        with be.using("numpy"):
            _FINITE_DIFFERENCES[key] = (
                _fd_jacobian(problem, u, 4e-4),
                _fd_jacobian(problem, u, 2e-4),
            )
    coarse, fine = _FINITE_DIFFERENCES[key]
    scale = np.max(np.abs(fine))
    assert scale > 0 and np.all(np.abs(fine) > 1e-6 * scale), fine
    np.testing.assert_allclose(coarse, fine, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(jacobian, fine, rtol=0, atol=1e-5 * scale)


def test_operands_equal_the_analyses():
    optic = optics.load("cooke_triplet")
    ctx = MeritContext(optic)

    def value(name, **arguments):
        return float(be.item(OPERANDS[name](ctx, **arguments)))

    assert value("seidel", term="S2") == pytest.approx(float(seidel(optic).sums["S2"]))
    fc = field_curvature(optic, fields=[1.0], wavelengths=[0.55])
    assert value("field_curvature", hy=1.0) == pytest.approx(float(fc.tangential[0][0]))
    d = distortion(optic, fields=[1.0], wavelengths=[0.55])
    assert value("distortion_percent") == pytest.approx(float(d.percent[0][0]))
    # The existing 'distortion' operand (paraxial-height reference) is the same number.
    assert value("distortion_percent") == pytest.approx(value("distortion"), rel=1e-9)
    shift = chromatic_focal_shift(optic, wavelengths=[0.65])
    assert value("focal_shift", wavelength=2) == pytest.approx(float(shift.shift[0]))
    colour = lateral_color(optic, fields=[0.5])
    assert value("lateral_color", hy=0.5) == pytest.approx(float(colour.difference[0]))


def test_bad_operand_keys_are_configuration_errors():
    ctx = MeritContext(optics.load("cooke_triplet"))
    for name, arguments in [
        ("seidel", {"term": "S9"}),
        ("seidel", {"surface": 0}),
        ("field_curvature", {"direction": "medial"}),
        ("distortion_percent", {"hy": 0.0}),
    ]:
        with pytest.raises(ConfigurationError):
            OPERANDS[name](ctx, **arguments)
