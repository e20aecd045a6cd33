"""The merit's autograd gradient and Jacobian agree with central finite differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import reference_cooke, singlet

from optics import backend as be
from optics.geometry import Standard
from optics.optimize import Operand, Problem, Variable
from optics.surfaces import Surface


def _fd_gradient(problem, u, h):
    """Central differences of the merit in scaled variables, step h."""
    columns = []
    for i in range(problem.size):
        step = np.zeros(problem.size)
        step[i] = h
        columns.append((problem.merit_float(u + step) - problem.merit_float(u - step)) / (2 * h))
    return np.array(columns)


def _assert_matches_finite_differences(problem, u, rtol=1e-6):
    """Autograd gradient == central FD, after the FD agrees with itself at two steps."""
    _, gradient = problem.value_and_gradient(u)  # on the autodiff backend of the test
    with be.using("numpy"):
        coarse, fine = _fd_gradient(problem, u, 1e-3), _fd_gradient(problem, u, 5e-4)
    scale = np.max(np.abs(fine))
    assert np.all(np.abs(fine) > 1e-6 * scale), f"a variable does not reach the merit: {fine}"
    np.testing.assert_allclose(coarse, fine, rtol=0, atol=rtol * scale)  # FD is converged
    np.testing.assert_allclose(gradient, fine, rtol=0, atol=rtol * scale)


def _cooke_problem():
    variables = [f"surfaces[{i}].radius" for i in range(1, 7)] + ["surfaces[6].thickness"]
    operands = [
        Operand("rms_spot", weight=3.0),
        Operand("efl", target=50.0),
        Operand("fno", target=5.0),
    ]
    return Problem(reference_cooke(), variables, operands)


def test_merit_gradient_matches_finite_differences_on_the_cooke_triplet(autodiff_backend):
    problem = _cooke_problem()
    _assert_matches_finite_differences(problem, np.linspace(-0.5, 0.5, problem.size))


def test_residual_jacobian_matches_finite_differences(autodiff_backend):
    problem = _cooke_problem()
    u = np.full(problem.size, 0.3)
    r_autodiff, jacobian = problem.jacobian(u)
    with be.using("numpy"):
        r_numpy, fd = problem.jacobian(u)  # central differences on NumPy
    np.testing.assert_allclose(r_autodiff, r_numpy, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(jacobian, fd, rtol=1e-6, atol=1e-8 * np.abs(fd).max())


def test_gradient_reaches_conic_index_decenter_tilt_and_curvature_through_flat(autodiff_backend):
    optic = singlet()
    optic.surfaces[2].geometry = Standard(-50.0, conic=-0.5)
    optic.surfaces[1].tilt = (0.5, 0.0, 0.0)
    optic.surfaces[1].decenter = (0.0, 0.0)
    paths = [
        "surfaces[2].conic",
        "surfaces[1].material.index",
        "surfaces[1].decenter[1]",
        "surfaces[1].tilt[0]",
        Variable("surfaces[2].curvature", scale=2e-3),  # steps of ±2e-3 cross 1/R = -0.02 ... 0
        "surfaces[1].thickness",
    ]
    operands = [Operand("rms_spot"), Operand("real_y", hy=1.0, py=0.5), Operand("efl", target=60.0)]
    problem = Problem(optic, paths, operands)
    _assert_matches_finite_differences(problem, np.array([0.2, -0.1, 0.3, 0.2, 9.0, 0.1]))


def test_even_asphere_coefficient_gradient_matches_finite_differences(autodiff_backend):
    geometry_types = pytest.importorskip("optics.geometry.aspheres")
    optic = singlet(epd=20.0)
    optic.surfaces[1].geometry = geometry_types.EvenAsphere(50.0, 0.0, [0.0, 0.0])
    problem = Problem(
        optic,
        ["surfaces[1].coefficients[0]", "surfaces[1].coefficients[1]", "surfaces[1].conic"],
        [Operand("rms_spot", fields=[0])],
    )
    assert np.all(problem.variables.scales > 0)  # sensitivity-based scales for zero starts
    _assert_matches_finite_differences(problem, np.array([0.5, -0.5, 0.2]))


def test_variables_are_the_only_gradient_leaves_of_the_merit():
    torch = pytest.importorskip("torch")  # leaves are a torch notion (JAX has none)

    optic = reference_cooke()
    optic.surfaces[3].thickness = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    problem = Problem(optic, ["surfaces[1].radius", "surfaces[5].curvature"], [Operand("rms_spot")])
    assert not be.requires_grad(optic.surfaces[3].thickness)  # detached by the problem
    with be.using("torch"):
        leaves = [torch.tensor(0.0, dtype=torch.float64, requires_grad=True) for _ in range(2)]
        merit = problem.merit_value(leaves)
    found, stack, seen = set(), [merit.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if hasattr(node, "variable"):
            found.add(id(node.variable))
        stack.extend(next_fn for next_fn, _ in node.next_functions)
    assert found == {id(leaf) for leaf in leaves}


def test_the_optic_holds_plain_floats_after_an_optimization(autodiff_backend):
    from optics.optimize import optimize

    problem = _cooke_problem()
    optimize(problem, "adam", steps=2)
    values = [problem.optic.surfaces[i].geometry.radius for i in range(1, 7)]
    assert all(isinstance(v, float) and math.isfinite(v) for v in values)
    assert isinstance(problem.optic.surfaces[6].thickness, float)


def test_curvature_variable_passes_through_flat():
    from optics.params import get_param

    optic = singlet(radius2=-1e4)
    problem = Problem(
        optic, [Variable("surfaces[2].curvature", scale=1e-4)], [Operand("efl", target=0.0)]
    )
    problem.variables.apply(
        np.array([2.0])
    )  # -1e-4 + 2e-4 = +1e-4: the surface flipped through flat
    assert get_param(optic, "surfaces[2].radius") == pytest.approx(1e4)
    assert isinstance(optic.surfaces[0], Surface)


def test_a_flat_stop_curvature_gets_a_bounded_scale():
    """A plane stop in air: the merit is blind to its curvature, its scale still bounded."""
    import optics

    lens = optics.load("double_gauss")
    stop = lens.stop_index
    assert lens.surfaces[stop].geometry.curvature == 0.0
    problem = Problem(lens, [f"surfaces[{stop}].curvature"], [Operand("rms_spot")])
    scale = problem.variables.scales[0]
    cap = problem.variables.largest_scales()[0]
    assert np.isfinite(cap) and 0 < scale <= cap
    # The cap: the sag at the rim moves by half a per cent of the rim height per unit.
    semi = lens.surfaces[stop].semi_diameter
    rim = float(semi) if semi is not None else float(optics.paraxial(lens).epd) / 2
    assert cap == pytest.approx(0.01 / rim)
