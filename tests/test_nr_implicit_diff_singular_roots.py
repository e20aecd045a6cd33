"""Mixed batches of regular and rejected rays: gradients, validity and the one grouped warning.

Rejected rays (non-finite, non-converged, tangent, near-vertical, outside the
domain) must contribute exactly zero gradient and never NaN, while the
regular rays in the same batch keep exactly the gradients they would have in
a batch of their own.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from optics import backend as be
from optics.geometry.newton_types import Chebyshev, EvenAsphere, XYPolynomial
from optics.optimize import gradients


def _rays(rows):
    """(x, y, z, L, M, N) tuples -> six float64 arrays of the configured backend."""
    return tuple(be.asarray(np.array(column, dtype=float)) for column in zip(*rows))


def _axial(x, y, z=-2.0):
    return (x, y, z, 0.0, 0.0, 1.0)


REGULAR = [
    _axial(1.0, 0.5),
    _axial(-2.0, 1.5),
    (0.5, -1.0, -2.0, 0.05, 0.02, float(np.sqrt(1 - 0.0029))),
]
#: A sphere of radius 5 has no sag beyond r = 5: the ray lands where the sag is NaN.
BEYOND_THE_SPHERE = _axial(6.0, 0.0)
#: Along +x through the vertex: a double root, F_t = 0 at t = 0.
TANGENT = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _asphere(radius=5.0, **solver):
    return EvenAsphere(radius, 0.0, [1e-3], **solver)


def _intersect_recording(geometry, rays):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t, hit = geometry.intersect(*rays)
    runtime = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    return t, hit, runtime


def _counts(message):
    return {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", message)}


def _gradients(geometry, rows):
    """t, hit, and d(sum t)/d(each ray component, coefficient, radius) with recording on.

    Gradients are NumPy arrays: ``rays`` a list of six (n,), then two floats.
    """
    arrays = [*_rays(rows), be.asarray(1e-3), be.asarray(float(geometry.radius))]

    def total(*a):
        geometry.coefficients[0], geometry.radius = a[6], a[7]
        return be.sum(geometry.intersect(*a[:6])[0])

    _, grads = gradients(total, arrays)
    geometry.coefficients[0], geometry.radius = arrays[6], arrays[7]  # no traced value left
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        t, hit = geometry.intersect(*arrays[:6])
    return be.to_numpy(t), be.to_numpy(hit), grads[:6], float(grads[6]), float(grads[7])


def test_regular_rays_keep_their_gradients_next_to_rejected_rays(autodiff_backend):
    mixed = [REGULAR[0], BEYOND_THE_SPHERE, REGULAR[1], TANGENT, REGULAR[2]]
    _, hit, rays, _, _ = _gradients(_asphere(), mixed)
    _, hit_alone, rays_alone, _, _ = _gradients(_asphere(), REGULAR)
    assert bool(hit_alone.all())
    regular = [0, 2, 4]
    for grad, alone in zip(rays, rays_alone):
        assert np.array_equal(grad[regular], alone)


def test_rejected_rays_get_exactly_zero_gradient_and_never_nan(autodiff_backend):
    mixed = [REGULAR[0], BEYOND_THE_SPHERE, TANGENT]
    t, _, rays, coefficient, radius = _gradients(_asphere(), mixed)
    assert np.isfinite(t).all()
    for grad in rays:
        assert np.isfinite(grad).all()
        assert grad[1:].tolist() == [0.0, 0.0]
    assert np.isfinite(coefficient) and np.isfinite(radius)


def test_the_parameter_gradient_counts_only_the_regular_rays(autodiff_backend):
    mixed = [REGULAR[0], BEYOND_THE_SPHERE, REGULAR[1], TANGENT, REGULAR[2]]
    _, _, _, coefficient, radius = _gradients(_asphere(), mixed)
    _, _, _, coefficient_alone, radius_alone = _gradients(_asphere(), REGULAR)
    assert coefficient == pytest.approx(coefficient_alone, rel=1e-15, abs=0)
    assert radius == pytest.approx(radius_alone, rel=1e-15, abs=0)


def test_a_tangent_root_is_valid_without_gradients_and_rejected_with_them(backend):
    rows = [REGULAR[0], TANGENT]
    with be.no_grad():
        _, hit, messages = _intersect_recording(_asphere(), _rays(rows))
    assert be.to_numpy(hit).tolist() == [True, True]
    assert len(messages) == 1 and _counts(messages[0])["tangent"] == 1
    if be.autodiff_kind() == "tape":  # torch records: the tangent ray is rejected
        _, hit, messages = _intersect_recording(_asphere(), _rays(rows))
        assert be.to_numpy(hit).tolist() == [True, False]
        assert "zero gradient" in messages[0]


def test_a_near_vertical_surface_is_not_a_valid_height_function(backend):
    # A plane of slope 1e15 in x: |n_z| ~ 1e-15 <= C eps, though the root is found exactly.
    steep = XYPolynomial(float("inf"), 0.0, [[0.0], [1e15]])
    gentle = XYPolynomial(float("inf"), 0.0, [[0.0], [1e-3]])
    rows = [_axial(0.0, 0.0), _axial(0.0, 1.0)]
    _, hit, messages = _intersect_recording(steep, _rays(rows))
    assert not be.to_numpy(hit).any()
    assert len(messages) == 1 and _counts(messages[0])["near_vertical"] == 2
    _, hit, messages = _intersect_recording(gentle, _rays(rows))
    assert be.to_numpy(hit).all() and not messages


def test_non_converged_rays_are_invalid_on_every_backend(backend):
    # One Newton step from the base sphere cannot reach 1e-10 on a strong departure.
    geometry = EvenAsphere(50.0, 0.0, [0.05, 0.01], max_iter=1)
    rows = [_axial(0.0, 0.0), (1.5, 1.0, -2.0, 0.1, 0.05, float(np.sqrt(1 - 0.0125)))]
    with be.no_grad():
        t, hit, messages = _intersect_recording(geometry, _rays(rows))
    assert be.to_numpy(hit).tolist() == [True, False]
    assert np.isfinite(be.to_numpy(t)).all()
    counts = _counts(messages[0])
    assert counts["non_converged"] == 1 and "after 1 iterations" in messages[0]


def test_one_grouped_warning_per_call_with_the_counts_by_category(backend):
    geometry = Chebyshev(
        -20.0, 0.0, [[0.0, 0.0, 0.01], [0.0, 0.0, 0.0], [0.01, 0.0, 0.0]], norm_x=4.0, norm_y=4.0
    )
    rows = [_axial(0.0, 0.0), _axial(4.5, 0.0), _axial(0.0, -5.0), _axial(25.0, 0.0)]
    with be.no_grad():
        _, hit, messages = _intersect_recording(geometry, _rays(rows))
    assert len(messages) == 1
    counts = _counts(messages[0])
    assert counts["outside_domain"] == 2 and counts["non_finite"] == 1
    assert "3 of 4" in messages[0]
    assert "worst residual" in messages[0]
    assert be.to_numpy(hit).tolist() == [True, False, False, False]


def test_a_clean_batch_warns_nothing(backend):
    _, hit, messages = _intersect_recording(_asphere(), _rays(REGULAR))
    assert bool(be.all(hit)) and messages == []


def test_rejected_rays_reach_the_image_with_finite_numbers(autodiff_backend):
    from _newton_cases import singlet_with

    from optics.trace import trace_rays

    px = be.asarray(np.linspace(-1.0, 1.0, 9))

    def trace(coefficient):
        geometry = Chebyshev(30.0, 0.0, [[0.0, 0.001], [0.001, 0.0]], norm_x=3.0, norm_y=3.0)
        geometry.coefficients[0][1] = coefficient
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return trace_rays(singlet_with(geometry), (0.0, 0.0), (px, 0.0 * px))

    valid = be.to_numpy(trace(be.asarray(0.001)).valid)
    assert valid.any() and not valid.all()

    def loss(coefficient):
        rays = trace(coefficient)
        return be.sum(be.where(rays.valid, rays.y * rays.y + rays.x * rays.x, 0.0))

    _, (gradient,) = gradients(loss, [be.asarray(0.001)])
    assert np.isfinite(gradient) and float(gradient) != 0.0
