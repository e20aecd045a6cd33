"""The Forbes surfaces' cache of prepared coefficients is autograd-safe and never stale.

Hazards covered: a cache first filled inside the graph-free Newton loop (it
must still carry the coefficients' gradient), a coefficient changed by
assignment, by editing a nested list or by an in-place (optimizer-style)
tensor update (the cache must be rebuilt), and several traces each followed
by ``backward()`` (no graph may be shared between them).
"""

from __future__ import annotations

import numpy as np
from _newton_cases import Q2D_TERMS, as_backend, checked_fd, fd_noise, ray_batch
from helpers import derivative

from optics import backend as be
from optics.geometry.newton_types import Q2D, QBFS
from optics.optimize import gradients as exact_gradients

TERMS = [0.01, -0.002, 0.001, 0.0005]


def _qbfs(terms=None, **solver):
    return QBFS(30.0, -0.3, list(TERMS if terms is None else terms), norm_radius=10.0, **solver)


def _points():
    return be.asarray(np.linspace(-6.0, 6.0, 7)), be.asarray(np.linspace(4.0, -5.0, 7))


def _numpy_distance_total(terms):
    with be.using("numpy", precision="float64"):
        t, _ = _qbfs(terms, tol=0.0).intersect(*as_backend(ray_batch()))
        return float(np.sum(be.to_numpy(t)))


def _fd_by_term(index):
    def total(v):
        terms = list(TERMS)
        terms[index] = v
        return _numpy_distance_total(terms)

    value = TERMS[index]
    return checked_fd(total, value), fd_noise(total(value), value)


def _autograd_by_term(geometry, leaf):
    import torch

    t, hit = geometry.intersect(*as_backend(ray_batch()))
    assert bool(be.all(hit))
    (gradient,) = torch.autograd.grad(t.sum(), leaf)
    return float(gradient)


def test_a_cache_first_built_inside_the_no_grad_primal_gives_correct_gradients(autodiff_backend):
    def total(value):
        geometry = _qbfs()
        geometry.terms[1] = value
        with be.no_grad():  # fills the cache with the primal's graph switched off
            geometry.sag(*_points())
        t, hit = geometry.intersect(*as_backend(ray_batch()))
        return be.sum(t)

    (autograd,) = derivative(total, TERMS[1])
    fd, noise = _fd_by_term(1)
    assert abs(autograd - fd) <= 1e-7 * abs(fd) + noise
    assert abs(fd) > 1e-3


def test_the_gradient_reaches_every_term(autodiff_backend):
    def total(*terms):
        geometry = _qbfs()
        geometry.terms = list(terms)
        return be.sum(geometry.intersect(*as_backend(ray_batch()))[0])

    _, gradients = exact_gradients(total, [be.asarray(v) for v in TERMS])
    for index, gradient in enumerate(gradients):
        fd, noise = _fd_by_term(index)
        assert abs(float(gradient) - fd) <= 1e-7 * abs(fd) + noise


def test_the_cache_is_reused_while_the_coefficients_do_not_change(backend):
    geometry = _qbfs()
    rays = as_backend(ray_batch())
    with be.no_grad():
        for _ in range(3):
            geometry.intersect(*rays)
    assert geometry._prepared.builds == 1  # one build for all Newton iterations and calls


def test_assigning_a_term_invalidates_the_cache(backend):
    geometry = _qbfs()
    x, y = _points()
    geometry.sag(x, y)
    geometry.terms[2] = 0.004
    changed = list(TERMS)
    changed[2] = 0.004
    assert np.array_equal(be.to_numpy(geometry.sag(x, y)), be.to_numpy(_qbfs(changed).sag(x, y)))
    geometry.terms = [0.0, 0.0]
    assert np.array_equal(be.to_numpy(geometry.sag(x, y)), be.to_numpy(_qbfs([0.0]).sag(x, y)))


def test_an_in_place_tensor_update_invalidates_the_cache(torch_backend):
    import torch

    geometry = _qbfs()
    geometry.terms[0] = leaf = be.parameter(TERMS[0])
    x, y = _points()
    before = geometry.sag(x, y).detach().clone()
    with torch.no_grad():
        leaf.add_(0.003)  # what an optimizer step does
    changed = list(TERMS)
    changed[0] = TERMS[0] + 0.003
    after = geometry.sag(x, y).detach()
    assert torch.allclose(after, _qbfs(changed).sag(x, y), rtol=1e-15, atol=0)
    assert not torch.allclose(after, before, rtol=1e-6, atol=0)


def test_a_q2d_coefficient_change_invalidates_the_cache(backend):
    geometry = Q2D(30.0, -0.3, Q2D_TERMS, norm_radius=10.0)
    x, y = _points()
    geometry.sag(x, y)
    geometry.coefficients[3]["value"] = -0.004
    changed = [dict(term) for term in Q2D_TERMS]
    changed[3]["value"] = -0.004
    expected = Q2D(30.0, -0.3, changed, norm_radius=10.0).sag(x, y)
    assert np.array_equal(be.to_numpy(geometry.sag(x, y)), be.to_numpy(expected))


def test_repeated_backward_over_fresh_traces(torch_backend):
    geometry = _qbfs()
    geometry.terms[1] = leaf = be.parameter(TERMS[1])
    rays = as_backend(ray_batch())
    gradients = []
    for _ in range(3):
        t, _ = geometry.intersect(*rays)
        t.sum().backward()  # frees this trace's graph; the next trace must build its own
        gradients.append(float(leaf.grad))
        leaf.grad = None
    assert gradients[0] == gradients[1] == gradients[2] != 0.0


def test_gradients_after_an_optimizer_step_are_those_at_the_new_value(torch_backend):
    import torch

    geometry = _qbfs()
    geometry.terms[1] = leaf = be.parameter(TERMS[1])
    rays = as_backend(ray_batch())
    t, _ = geometry.intersect(*rays)
    t.sum().backward()
    optimizer = torch.optim.SGD([leaf], lr=1e-3)
    optimizer.step()
    new_value = float(leaf.detach())
    assert new_value != TERMS[1]
    autograd = _autograd_by_term(geometry, leaf)

    def total(v):
        terms = list(TERMS)
        terms[1] = v
        return _numpy_distance_total(terms)

    fd = checked_fd(total, new_value)
    assert abs(autograd - fd) <= 1e-7 * abs(fd) + fd_noise(total(new_value), new_value)
    t_new, _ = geometry.intersect(*rays)
    assert abs(float(t_new.sum().detach()) - total(new_value)) < 1e-9


def test_a_q2d_gradient_survives_a_cache_built_without_gradients(autodiff_backend):
    def traced_total(leaf):
        geometry = Q2D(30.0, -0.3, Q2D_TERMS, norm_radius=10.0)
        geometry.coefficients[2]["value"] = leaf
        with be.no_grad():
            geometry.sag(*_points())
        return be.sum(geometry.intersect(*as_backend(ray_batch()))[0])

    (autograd,) = derivative(traced_total, Q2D_TERMS[2]["value"])

    def total(v):
        terms = [dict(term) for term in Q2D_TERMS]
        terms[2]["value"] = v
        with be.using("numpy"):
            surface = Q2D(30.0, -0.3, terms, norm_radius=10.0, tol=0.0)
            return float(np.sum(be.to_numpy(surface.intersect(*as_backend(ray_batch()))[0])))

    value = Q2D_TERMS[2]["value"]
    fd = checked_fd(total, value)
    assert abs(float(autograd) - fd) <= 1e-7 * abs(fd) + fd_noise(total(value), value)
    assert abs(fd) > 1e-3
