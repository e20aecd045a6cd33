"""The Newton intersection distance t: autograd (implicit correction) against finite differences.

For every surface type, derivatives of t with respect to the base radius, the
conic, a coefficient, the ray's origin and its direction, on and off axis, in
float64 and float32.  The reference is a central finite difference in float64
with the solve taken to round-off (tol = 0), checked against itself at two
step sizes before it is trusted.
"""

from __future__ import annotations

import numpy as np
import pytest
from _newton_cases import (
    NAMES,
    all_parameter_cases,
    as_backend,
    checked_fd,
    fd_noise,
    make,
    plain_value,
    ray_batch,
    with_value,
)
from helpers import derivative

from optics import backend as be
from optics.optimize import gradients
from optics.params import set_param

#: Allowed |autograd - fd| beyond the finite differences' own noise, relative to the
#: largest |fd| of the batch, in units of the autograd precision's machine eps.  Measured
#: over every case on torch and jax: at most 13 eps in float32, within the noise in float64.
RTOL_IN_EPS = 1024
RAY_COMPONENTS = ("x", "y", "z", "L", "M", "N")


def _numpy_distance(geometry, rays):
    """t by the graph-free solve on NumPy in float64, to round-off."""
    geometry.tol = 0.0
    with be.using("numpy", precision="float64"):
        t, hit = geometry.intersect(*as_backend(rays))
        assert bool(be.all(hit))
        return be.to_numpy(t)


def _assert_matches(autograd, fd, precision, noise, natural_scale):
    """|autograd - fd| within RTOL of the larger of |fd| and the quantity's natural scale.

    ``noise`` is the finite differences' own round-off; ``natural_scale`` (|t| / |value|)
    sizes the float32 round-off of a derivative that happens to be near zero.
    """
    scale = max(float(np.max(np.abs(fd))), natural_scale if precision == "float32" else 0.0)
    error = float(np.max(np.abs(autograd - fd)))
    bound = RTOL_IN_EPS * be.machine_eps(be.zeros((), dtype=precision)) * scale + noise
    assert error <= bound, f"autograd {autograd} vs fd {fd} (error {error:.3e} > {bound:.3e})"


@pytest.mark.parametrize("off_axis", [True, False], ids=["off_axis", "on_axis"])
@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("name, path", all_parameter_cases())
def test_distance_derivative_by_a_surface_parameter_matches_fd(
    name, path, precision, off_axis, autodiff_backend
):
    rays = ray_batch(off_axis)
    value = plain_value(make(name), path)
    fd = checked_fd(lambda v: _numpy_distance(with_value(name, path, v), rays), value)
    with be.using(autodiff_backend, precision=precision):

        def distance(v):
            geometry = make(name)
            set_param(geometry, path, v)
            return geometry.intersect(*as_backend(rays))

        assert bool(be.all(distance(be.asarray(value))[1]))
        autograd = derivative(lambda v: distance(v)[0], value)
    assert np.all(np.isfinite(autograd))
    t = _numpy_distance(make(name), rays)
    natural = float(np.max(np.abs(t))) / max(abs(value), 1.0)
    _assert_matches(autograd, fd, precision, fd_noise(t, value), natural)


def _smooth_on_axis(name):
    return name != "odd_asphere"  # its cone term has a kink at the vertex


@pytest.mark.parametrize("off_axis", [True, False], ids=["off_axis", "on_axis"])
@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("name", NAMES)
def test_distance_derivative_by_the_ray_origin_and_direction_matches_fd(
    name, precision, off_axis, autodiff_backend
):
    rays = ray_batch(off_axis)
    components = RAY_COMPONENTS if off_axis or _smooth_on_axis(name) else ("z", "N")
    with be.using(autodiff_backend, precision=precision):
        arrays = as_backend(rays)
        assert bool(be.all(make(name).intersect(*arrays)[1]))
        # Each t_i depends on ray i alone: the gradient of the sum is the diagonal.
        _, grads = gradients(lambda *a: be.sum(make(name).intersect(*a)[0]), arrays)
        autograd = dict(zip(RAY_COMPONENTS, grads))
    for k, component in enumerate(RAY_COMPONENTS):
        if component not in components:
            continue

        def distance(shift, k=k):
            shifted = [a + shift if j == k else a for j, a in enumerate(rays)]
            return _numpy_distance(make(name), shifted)

        fd = checked_fd(distance, 0.0)
        assert np.all(np.isfinite(autograd[component]))
        t = distance(0.0)
        _assert_matches(autograd[component], fd, precision, fd_noise(t, 0.0), float(np.max(t)))


def test_rays_that_do_not_require_grad_still_carry_the_parameter_gradient(autodiff_backend):
    def total(leaf):
        geometry = make("chebyshev")
        geometry.coefficients[1][2] = leaf
        return be.sum(geometry.intersect(*as_backend(ray_batch()))[0])

    (gradient,) = derivative(total, 0.0005)
    assert np.isfinite(gradient) and gradient != 0.0


def test_the_forward_value_with_gradients_is_the_primal_root_within_tolerance(torch_backend):
    geometry = make("qbfs")
    rays = as_backend(ray_batch())
    with be.no_grad():
        primal, _ = geometry.intersect(*rays)
    geometry.radius = be.parameter(30.0)
    corrected, _ = geometry.intersect(*rays)
    assert corrected.requires_grad
    assert float(be.max(be.abs(be.detach(corrected) - primal))) <= 10 * geometry.tol
