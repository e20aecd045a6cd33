"""The autograd graph of a Newton surface does not grow with the iteration count.

The Newton loop runs graph-free and one correction attaches the derivative,
so a trace forced to take 5, 50 or 500 iterations records the same autograd
nodes and saves the same tensors (counted with ``saved_tensors_hooks``) on
torch, and on JAX the same linearized jaxpr (its equation count) and the
same gradient.
"""

from __future__ import annotations

import pytest
from _newton_cases import NAMES, make, singlet_with
from helpers import autograd_graph_size, jaxpr_size

from optics import backend as be
from optics.geometry.newton_types import forced_iterations
from optics.params import get_param, set_param
from optics.sampling import hexapolar
from optics.trace import trace_rays

ITERATIONS = (5, 50, 500)


def _profile(name, iterations):
    """(node count, saved tensor count, saved bytes, gradient) of one traced loss."""
    geometry = make(name)
    path = "radius"
    leaf = be.parameter(float(get_param(geometry, path)))
    set_param(geometry, path, leaf)
    saved = []

    def pack(tensor):
        saved.append(tensor.numel() * tensor.element_size())
        return tensor

    px, py = hexapolar(3)
    torch = pytest.importorskip("torch")
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        with forced_iterations(iterations):
            rays = trace_rays(singlet_with(geometry), (0.3, 1.0), (px, py))
        loss = be.sum(rays.x * rays.x + rays.y * rays.y)
    nodes = autograd_graph_size(loss)
    (gradient,) = torch.autograd.grad(loss, leaf)
    return nodes, len(saved), sum(saved), float(gradient)


@pytest.mark.parametrize("name", NAMES)
def test_graph_size_and_saved_bytes_do_not_depend_on_the_iteration_count(name, torch_backend):
    profiles = [_profile(name, n) for n in ITERATIONS]
    nodes, counts, sizes, gradients = zip(*profiles)
    assert len(set(nodes)) == 1, f"autograd nodes {dict(zip(ITERATIONS, nodes))}"
    assert len(set(counts)) == 1, f"saved tensors {dict(zip(ITERATIONS, counts))}"
    assert len(set(sizes)) == 1, f"saved bytes {dict(zip(ITERATIONS, sizes))}"
    assert gradients[0] == pytest.approx(gradients[-1], rel=1e-12)


def test_the_converging_solve_records_the_same_graph_as_a_forced_one(torch_backend):
    forced = _profile("chebyshev", 50)
    free = _profile("chebyshev", None)
    assert forced[:3] == free[:3]
    assert forced[3] == pytest.approx(free[3], rel=1e-12)


def _loss(name):
    """Sum of squared image coordinates as a function of the surface's radius."""
    px, py = hexapolar(3)

    def loss(radius):
        geometry = make(name)
        set_param(geometry, "radius", radius)
        rays = trace_rays(singlet_with(geometry), (0.3, 1.0), (be.asarray(px), be.asarray(py)))
        return be.sum(rays.x * rays.x + rays.y * rays.y)

    return loss, float(get_param(make(name), "radius"))


def _linearized(loss, radius):
    """(equations of the linearized loss's jaxpr, the derivative) at ``radius``."""
    import jax

    _, linear = jax.linearize(loss, be.asarray(radius))
    one = be.asarray(1.0)
    return jaxpr_size(linear, one), float(linear(one))


@pytest.mark.parametrize("name", NAMES)
def test_jaxpr_size_does_not_depend_on_the_iteration_count(name, jax_backend):
    loss, radius = _loss(name)
    profiles = []
    for n in (5, 50, None):  # None: the converging solve records the same graph
        with forced_iterations(n):
            profiles.append(_linearized(loss, radius))
    sizes, gradients = zip(*profiles)
    assert len(set(sizes)) == 1, f"jaxpr equations {dict(zip((5, 50, None), sizes))}"
    assert gradients[0] == pytest.approx(gradients[1], rel=1e-12)
    assert gradients[0] == pytest.approx(gradients[2], rel=1e-12)
