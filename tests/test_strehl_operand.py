"""The strehl operand on JAX: the true-peak polychromatic Strehl ratio's gradient equals central
finite differences (NumPy) at two steps.  Torch is checked in test_wavefront_operands.py; eager
JAX compiles every new op of the trace and the matrix transforms, so this one is slow."""

from __future__ import annotations

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.optimize import Operand, Problem


def _fd(problem, u, h):
    return (problem.residuals_numpy(u + h) - problem.residuals_numpy(u - h)) / (2 * h)


@pytest.mark.slow  # eager JAX: 1-3 minutes of op compilation on a shared machine
def test_jax_gradient_of_the_polychromatic_true_peak_strehl(jax_backend):
    problem = Problem(
        optics.load("cooke_triplet"), ["surfaces[3].radius"], [Operand("strehl", field=2)]
    )
    u = np.array([0.1])
    _, jacobian = problem.jacobian(u)
    with be.using("numpy"):
        coarse, fine = _fd(problem, u, 1e-3), _fd(problem, u, 5e-4)
    assert abs(fine[0]) > 1e-4
    np.testing.assert_allclose(coarse, fine, rtol=1e-3)
    np.testing.assert_allclose(jacobian[:, 0], fine, rtol=1e-4)
