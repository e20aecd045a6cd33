"""The through_focus_mtf operand: the analysis's value, Torch and JAX gradients equal central
finite differences (which agree with themselves at two steps).

The JAX case is marked slow (run it with --runslow); it passes, measured at ~20 s of
eager-JAX op compilation on the development machine.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis import through_focus_mtf
from optics.optimize import OPERANDS, MeritContext, Operand, Problem

ARGUMENTS = {"frequency": 28.0, "defocus": 0.03, "field": 2, "samples": 16}
VARIABLES = ["surfaces[2].radius"]
_FINITE_DIFFERENCES = {}


def _fd_jacobian(problem, u, h):
    columns = []
    for i in range(problem.size):
        step = np.zeros(problem.size)
        step[i] = h
        plus, minus = problem.residuals_numpy(u + step), problem.residuals_numpy(u - step)
        columns.append((plus - minus) / (2 * h))
    return np.stack(columns, axis=1)


def test_the_operand_is_the_analysis():
    optic = optics.load("achromat")
    value = float(be.item(OPERANDS["through_focus_mtf"](MeritContext(optic), **ARGUMENTS)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = through_focus_mtf(
            optic,
            28.0,
            [0.03],
            fields=[optic.fields.normalized()[2]],
            samples=16,
        )
    mean = 0.5 * (float(result.tangential[0, 0]) + float(result.sagittal[0, 0]))
    assert value == pytest.approx(mean, abs=1e-12)


def _check_gradients():
    problem = Problem(
        optics.load("achromat"), VARIABLES, [Operand("through_focus_mtf", **ARGUMENTS)]
    )
    u = np.array([0.2])
    _, jacobian = problem.jacobian(u)
    if "fd" not in _FINITE_DIFFERENCES:
        with be.using("numpy"):
            _FINITE_DIFFERENCES["fd"] = (
                _fd_jacobian(problem, u, 4e-4),
                _fd_jacobian(problem, u, 2e-4),
            )
    coarse, fine = _FINITE_DIFFERENCES["fd"]
    scale = np.max(np.abs(fine))
    assert scale > 1e-4, fine
    np.testing.assert_allclose(coarse, fine, rtol=0, atol=1e-4 * scale)
    np.testing.assert_allclose(jacobian, fine, rtol=0, atol=1e-4 * scale)


def test_torch_gradients_equal_central_differences(torch_backend):
    _check_gradients()


@pytest.mark.slow  # eager JAX compiles each new op of the trace + FFT graph: ~20 s
def test_jax_gradients_equal_central_differences(jax_backend):
    _check_gradients()
