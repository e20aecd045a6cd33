"""The real-image-height field solve: accuracy, x/y coupling, and implicit derivatives.

Every derivative is checked against central finite differences of the primal
(graph-free) solve at two step sizes, so a derivative that only looks right
at one step cannot pass.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import derivative, derivative_graph_size, reference_cooke

from optics import backend as be
from optics.errors import OpticsError, SolveError
from optics.geometry import Standard
from optics.geometry.freeforms import XYPolynomial
from optics.materials import Abbe, ConstantIndex
from optics.optimize import gradients, residuals_and_jacobian
from optics.solvers import condition_ratio, newton_2x2
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths
from optics.trace import field_parameters, trace_rays, trace_surfaces
from optics.trace.real_image_height import field_jacobian, solve_fields, solve_real_image_height

HEIGHTS = (6.0, 12.0, 18.0)  # mm on the image surface


def cooke(heights=HEIGHTS):
    """The reference Cooke triplet with real-image-height fields along y (mm)."""
    optic = reference_cooke()
    optic.fields = Fields("real_image_height", [(0.0, h) for h in heights])
    return optic


def coupled_cooke():
    """The Cooke triplet with a decentered middle lens, a tilted rear surface and a
    tilted image surface: x and y responses are coupled even on axis."""
    optic = cooke()
    optic.surfaces[3].decenter = (0.3, -0.2)
    optic.surfaces[4].decenter = (0.3, -0.2)
    optic.surfaces[5].tilt = (1.5, -2.0, 0.0)
    optic.surfaces[-1].tilt = (3.0, 2.0, 0.0)
    return optic


def freeform_cooke():
    """The Cooke triplet with an XY-polynomial surface whose x·y term couples x and y."""
    optic = cooke()
    optic.surfaces[5].geometry = XYPolynomial(79.6836, coefficients=FREEFORM_COEFFICIENTS)
    return optic


def finite_cooke():
    """The Cooke triplet refocused for an object 500 mm away: q are object heights (mm)."""
    optic = cooke()
    optic.surfaces[0].thickness = 500.0
    optic.surfaces[-2].thickness = 47.5
    return optic


FREEFORM_COEFFICIENTS = [[0.0, 0.0, 1e-4], [0.0, 3e-4], [2e-4]]  # c02 y², c11 x y, c20 x²
SYSTEMS = {
    "centred": cooke,
    "coupled": coupled_cooke,
    "freeform": freeform_cooke,
    "finite": finite_cooke,
}
FIELD = (0.3, 0.8)  # normalized; off both axes


def chief_xy(optic, hx, hy):
    """Global (x, y) of the traced chief ray on the image surface, NumPy."""
    rays = trace_rays(optic, (hx, hy), (0.0, 0.0))
    return np.array([be.to_numpy(rays.x), be.to_numpy(rays.y)], dtype=float).reshape(2, -1)


# -- the primal solve -------------------------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
def test_chief_ray_lands_on_the_requested_height(precision, system):
    optic = SYSTEMS[system]()
    top = optic.fields.max_magnitude
    targets = be.asarray([[0.0, 0.0], [6.0, 0.0], [-4.0, 11.0], [0.0, 18.0]])
    result = solve_fields(optic, targets)
    assert np.all(be.to_numpy(result.residual_norm) <= result.tolerance)
    hx, hy = targets[:, 0] / top, targets[:, 1] / top
    landed = chief_xy(optic, hx, hy)
    assert np.all(np.abs(landed.T - be.to_numpy(targets)) <= result.tolerance * 4)


def test_tolerance_follows_the_dtype(precision):
    result = solve_fields(cooke(), be.asarray([[0.0, 18.0]]))
    eps = be.machine_eps(be.float_dtype())
    assert result.tolerance == pytest.approx(16 * eps * 60.17675)
    assert float(be.to_numpy(result.residual_norm)[0]) <= result.tolerance


@pytest.mark.parametrize("system", ["coupled", "freeform"])
def test_tilted_decentered_and_freeform_systems_have_a_coupled_jacobian(system):
    optic = SYSTEMS[system]()
    with be.using("numpy"):
        result = solve_fields(optic, be.asarray([[0.0, 0.0], [5.0, 10.0]]))
        J = be.to_numpy(field_jacobian(optic, result.q))
        q = be.to_numpy(result.q)
    # On axis the centred system has a diagonal J (and q = 0); these do not.
    if system == "coupled":  # decenters and tilts also move the on-axis solution
        assert np.all(np.abs(q[0]) > 1e-4)
    off_diagonal = np.abs(J[:, [0, 1], [1, 0]])
    assert np.all(off_diagonal > 1e-4 * np.abs(J).max())
    assert np.all(be.to_numpy(condition_ratio(be.asarray(J))) > 0.4)


def test_requested_height_is_global_on_a_tilted_image_surface(backend):
    optic = coupled_cooke()
    landed = chief_xy(optic, 0.25, -0.5)
    np.testing.assert_allclose(landed[:, 0], [4.5, -9.0], atol=1e-12)


def test_numpy_and_an_autodiff_backend_give_the_same_solution(autodiff_backend):
    targets = [[0.0, 0.0], [5.0, 10.0], [-12.0, 12.0]]
    with be.using("numpy"):
        q_numpy = be.to_numpy(solve_fields(coupled_cooke(), be.asarray(targets)).q)
    q_other = be.to_numpy(solve_fields(coupled_cooke(), be.asarray(targets)).q)
    np.testing.assert_allclose(q_other, q_numpy, rtol=1e-13, atol=1e-15)


def test_one_solve_per_distinct_field_point_shared_by_all_rays(backend, monkeypatch):
    from optics.trace import _aim_solve

    batches = []

    def counting(residual, jacobian, q0, **kwargs):
        batches.append(tuple(q0.shape))
        return newton_2x2(residual, jacobian, q0, **kwargs)

    monkeypatch.setattr(_aim_solve, "newton_2x2", counting)
    optic = cooke()
    hx = be.asarray([0.0, 0.2, 0.0, 0.2, 0.0])
    hy = be.asarray([1.0, 0.5, 1.0, 0.5, 1.0])
    qx, qy = solve_real_image_height(optic, hx, hy)
    assert batches == [(2, 2)] and tuple(qx.shape) == (5,)
    single = solve_real_image_height(optic, 0.2, 0.5)
    assert float(be.to_numpy(qx)[1]) == float(be.to_numpy(single[0]))
    assert float(be.to_numpy(qy)[3]) == float(be.to_numpy(single[1]))
    np.testing.assert_array_equal(be.to_numpy(qy)[[0, 2, 4]], be.to_numpy(qy)[0])


def test_every_occurrence_of_a_shared_field_point_gets_its_gradient(autodiff_backend):
    optic = cooke()

    def loss(hy):
        _, qy = solve_real_image_height(optic, be.zeros_like(hy), hy)
        return be.sum(qy * be.asarray([1.0, 1.0, 2.0]))

    _, (grad,) = gradients(loss, [be.asarray([1.0, 0.5, 1.0])])
    assert grad[0] > 0 and grad[2] == pytest.approx(2 * grad[0], rel=1e-14)


def test_field_is_solved_at_the_primary_wavelength_and_shared_by_all_wavelengths(backend):
    optic = cooke()
    for surface in optic.surfaces:  # make the glass dispersive
        if isinstance(surface.material, ConstantIndex):
            surface.material = Abbe(surface.material.value, 40.0)
    optic.wavelengths = Wavelengths([0.48, 0.55, 0.65], 1)
    wavelengths = be.asarray([0.48, 0.55, 0.65])
    history = trace_surfaces(optic, (0.0, 1.0), (0.0, 0.0), wavelengths)
    launch, image = history[0], history[-1]
    directions = np.broadcast_to(be.to_numpy(launch.M), (3,))  # one launch for all wavelengths
    np.testing.assert_array_equal(directions, directions[1])
    y = be.to_numpy(image.y)
    assert abs(y[1] - 18.0) < 1e-12
    assert abs(y[0] - 18.0) > 1e-4 and abs(y[2] - 18.0) > 1e-4  # lateral colour


# -- errors -----------------------------------------------------------------------------------


def test_non_converged_field_names_the_field_and_the_residual(backend):
    with pytest.raises(SolveError, match=r"image height \(x, y\) = \(0, 18\) mm.*residual"):
        solve_real_image_height(cooke(), 0.0, 1.0, max_iter=1, tol=1e-300)


def test_singular_jacobian_raises_naming_the_field_and_never_steps(backend, monkeypatch):
    from optics.trace import real_image_height as field_solve

    def rank_one(self, q):  # the x and y responses made parallel
        return be.asarray([[[50.0, 50.0], [50.0, 50.0]]]) + 0.0 * q[:, :1, None]

    monkeypatch.setattr(field_solve._FieldProblem, "jacobian", rank_one)
    with pytest.raises(SolveError, match=r"\(0, 18\) mm.*singular.*residual"):
        solve_real_image_height(cooke(), 0.0, 1.0)


def test_chief_ray_that_misses_raises_naming_the_field(backend):
    optic = cooke((0.0, 400.0))
    with pytest.raises(SolveError, match=r"\(0, 400\) mm.*residual"):
        solve_real_image_height(optic, 0.0, 1.0)


def test_singular_paraxial_scale_raises_a_clear_error(backend):
    # Image surface on the stop: every chief ray lands on the axis paraxially.
    optic = Optic(
        [Surface(thickness=math.inf), Surface(Standard(50.0), 0.0, is_stop=True), Surface()],
        Aperture("epd", 10.0),
        Fields("angle", [(0.0, 5.0)]),
        Wavelengths([0.55]),
    )
    with pytest.raises(SolveError, match="paraxial image height per unit"):
        solve_fields(optic, be.asarray([[0.0, 1.0]]))
    optic.fields = Fields("real_image_height", [(0.0, 1.0)])
    with pytest.raises(OpticsError, match="paraxial image height"):
        trace_rays(optic, (0.0, 1.0), (0.0, 0.0))


# -- implicit differentiation (torch and jax) --------------------------------------------


def launch_and_marginal(optic, hx, hy):
    """[L, M] of the solved chief ray at launch, and a marginal ray's image (x, y)."""
    launch = trace_surfaces(optic, (hx, hy), (0.0, 0.0))[0]
    marginal = trace_rays(optic, (hx, hy), (0.0, 1.0))
    return be.stack([launch.L, launch.M, marginal.x, marginal.y])


def radius(optic, value):
    optic.surfaces[3].geometry.radius = value


def thickness(optic, value):
    optic.surfaces[4].thickness = value


def freeform_xy_coefficient(optic, value):
    optic.surfaces[5].geometry.coefficients[1][1] = value


def index(optic, value):
    """The first glass's constant index (reaches the trace through be.full_like)."""
    optic.surfaces[1].material = ConstantIndex(value)


PARAMETERS = {
    "radius": (radius, -22.21328, (1e-4, 1e-5)),
    "index": (index, 1.6226085614386923, (1e-5, 1e-6)),
    "thickness": (thickness, 4.75041, (1e-4, 1e-5)),
    "freeform_xy": (freeform_xy_coefficient, 3e-4, (1e-6, 1e-7)),
}
CASES = [
    (system, name)
    for system in SYSTEMS
    for name in PARAMETERS
    if name != "freeform_xy" or system == "freeform"
]


def autograd_and_differences(system, setter, x0, steps, field=FIELD):
    """d(launch_and_marginal)/dx by autograd and by central differences at each step."""
    optic = SYSTEMS[system]()

    def out(x):
        setter(optic, x)
        return launch_and_marginal(optic, *field)

    ad = derivative(out, x0)
    differences = []
    with be.no_grad():
        for step in steps:
            setter(optic, x0 + step)
            up = be.to_numpy(launch_and_marginal(optic, *field))
            setter(optic, x0 - step)
            down = be.to_numpy(launch_and_marginal(optic, *field))
            differences.append((up - down) / (2 * step))
    return ad, differences


@pytest.mark.parametrize(("system", "name"), CASES)
def test_gradient_through_the_solve_matches_finite_differences(autodiff_backend, system, name):
    setter, x0, steps = PARAMETERS[name]
    ad, differences = autograd_and_differences(system, setter, x0, steps)
    assert np.abs(ad[:2]).max() > 1e-5  # the launch direction really moves with θ
    for fd in differences:
        np.testing.assert_allclose(ad, fd, rtol=2e-6, atol=1e-9)


@pytest.mark.parametrize("system", SYSTEMS)
def test_gradient_with_respect_to_the_requested_height(autodiff_backend, system):
    optic = SYSTEMS[system]()
    top = optic.fields.max_magnitude
    ad = derivative(lambda hy: launch_and_marginal(optic, FIELD[0], hy), FIELD[1]) / top  # per mm
    with be.no_grad():
        for step in (1e-4, 1e-5):  # normalized; x18 mm
            up = be.to_numpy(launch_and_marginal(optic, FIELD[0], FIELD[1] + step))
            down = be.to_numpy(launch_and_marginal(optic, FIELD[0], FIELD[1] - step))
            np.testing.assert_allclose(ad, (up - down) / (2 * step * top), rtol=2e-6, atol=1e-9)


def test_targets_stacked_from_tensors_stay_attached(autodiff_backend):
    optic = coupled_cooke()
    # be.asarray of a list holding a traced or grad-carrying scalar
    ad = derivative(lambda height: solve_fields(optic, be.asarray([[-3.0, height]])).q[0], 12.0)
    with be.no_grad():
        for step in (1e-3, 1e-4):
            up = be.to_numpy(solve_fields(optic, be.asarray([[-3.0, 12.0 + step]])).q[0])
            down = be.to_numpy(solve_fields(optic, be.asarray([[-3.0, 12.0 - step]])).q[0])
            np.testing.assert_allclose(ad, (up - down) / (2 * step), rtol=1e-6)


def test_solution_jacobian_in_the_target_is_block_diagonal_across_fields(autodiff_backend):
    optic = coupled_cooke()
    targets0 = np.array([[0.0, 0.0], [5.0, 10.0], [-12.0, 12.0]])

    def q_flat(leaves):
        return be.reshape(solve_fields(optic, be.reshape(be.stack(leaves), (3, 2))).q, (-1,))

    _, jacobian = residuals_and_jacobian(q_flat, targets0.ravel())
    dq_dh = jacobian.reshape(3, 2, 3, 2)  # [i, a, j, b]
    for i in range(3):
        for j in range(3):
            if i != j:
                assert np.all(dq_dh[i, :, j, :] == 0.0)
    with be.no_grad():
        for step in (1e-3, 1e-4):
            for b in range(2):
                up, down = targets0.copy(), targets0.copy()
                up[:, b] += step
                down[:, b] -= step
                fd = (
                    be.to_numpy(solve_fields(optic, be.asarray(up)).q)
                    - be.to_numpy(solve_fields(optic, be.asarray(down)).q)
                ) / (2 * step)
                diagonal = dq_dh[np.arange(3), :, np.arange(3), b]
                np.testing.assert_allclose(diagonal, fd, rtol=1e-6, atol=1e-12)


def test_finite_difference_jacobian_matches_autograd_of_the_chief_ray(autodiff_backend):
    from optics.trace import launch_rays, propagate

    optic = coupled_cooke()
    q0 = be.to_numpy(solve_fields(optic, be.asarray([[5.0, 10.0]])).q)[0]

    def image_xy(q):
        rays = launch_rays(optic, q[0], q[1], 0.0, 0.0, 0.55)
        rays = propagate(optic, rays)
        return be.stack([rays.x, rays.y])

    _, exact = residuals_and_jacobian(image_xy, q0)
    J = field_jacobian(optic, be.asarray(q0[None]))[0]
    np.testing.assert_allclose(be.to_numpy(J), be.to_numpy(exact), rtol=1e-8)


def test_graph_size_does_not_depend_on_the_iterations(autodiff_backend):
    optic = cooke()
    targets = be.asarray([[0.0, 18.0]])
    solves = {}

    def q(x, **solver):
        radius(optic, x)
        solves[len(solves)] = result = solve_fields(optic, targets, **solver)
        return result.q

    loose = derivative_graph_size(lambda x: q(x, tol=1.0, max_iter=2), -22.21328)
    tight = derivative_graph_size(lambda x: q(x, max_iter=50), -22.21328)
    assert solves[0].n_iter == 0 and solves[1].n_iter >= 2
    assert loose == tight


def test_correction_only_when_gradients_record(torch_backend):
    optic = cooke()
    radius(optic, be.parameter(-22.21328))
    with be.no_grad():
        detached = field_parameters(optic, 0.0, 1.0)[1]
    attached = field_parameters(optic, 0.0, 1.0)[1]
    assert detached.grad_fn is None and attached.grad_fn is not None
    assert abs(float(be.to_numpy(be.detach(attached))) - float(be.to_numpy(detached))) < 1e-15
