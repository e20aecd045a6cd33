"""The public trace under JAX's transformations: jit (method="compiled"), grad and vmap.

``trace_rays(..., method="compiled")`` on JAX is ``jax.jit`` of the whole trace;
it must equal the eager trace, keep its gradients exact under ``jax.grad``,
and ``jax.vmap`` over fields must equal one trace per field.  The sample
designs give the same numbers on NumPy and JAX in float64.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import cooke_chebyshev, reference_cooke

from optics import backend as be
from optics.io import load
from optics.sampling import hexapolar
from optics.trace import trace_rays
from optics.trace.methods import compiled

jax = pytest.importorskip("jax")

# torch.compile / jax.jit graphs: a step of their own (./dev compile-tests, .ci/run).
pytestmark = pytest.mark.compile
COMPONENTS = ("x", "y", "z", "L", "M", "N", "opd")


def _pupil():
    px, py = hexapolar(4)
    return be.asarray(px), be.asarray(py)


def _spot(rays):
    return be.sum(be.where(rays.valid, rays.x * rays.x + rays.y * rays.y, 0.0))


@pytest.mark.parametrize("system", [reference_cooke, cooke_chebyshev], ids=["cooke", "chebyshev"])
def test_compiled_trace_is_jit_and_equals_the_eager_trace(system, jax_backend):
    optic, (px, py) = system(), _pupil()
    eager = trace_rays(optic, (0.0, 0.7), (px, py))
    jitted = trace_rays(optic, (0.0, 0.7), (px, py), method="compiled")
    for name in COMPONENTS:
        a, e = be.to_numpy(getattr(jitted, name)), be.to_numpy(getattr(eager, name))
        np.testing.assert_allclose(a, e, rtol=0, atol=1e-12 * max(1.0, np.abs(e).max()))
    assert be.to_numpy(jitted.valid).tolist() == be.to_numpy(eager.valid).tolist()
    assert compiled.cache_entries(), "the jitted trace is cached"


def test_gradients_through_the_jitted_trace_equal_the_eager_ones(jax_backend):
    px, py = _pupil()

    def loss(radius, compiled_trace):
        optic = cooke_chebyshev()
        optic.surfaces[6].geometry.radius = radius
        return _spot(
            trace_rays(optic, (0.0, 0.7), (px, py), method="compiled" if compiled_trace else None)
        )

    radius = be.asarray(float(cooke_chebyshev().surfaces[6].geometry.radius))
    eager = jax.grad(loss)(radius, False)
    jitted = jax.grad(loss)(radius, True)
    assert float(abs(eager)) > 0
    assert float(abs(jitted - eager)) <= 1e-12 * float(abs(eager))


def test_vmap_over_fields_equals_one_trace_per_field(jax_backend):
    optic, (px, py) = reference_cooke(), _pupil()
    fields = be.asarray([0.0, 0.5, 1.0])
    batched = jax.vmap(lambda hy: trace_rays(optic, (0.0, hy), (px, py)).y)(fields)
    for k, hy in enumerate([0.0, 0.5, 1.0]):
        single = be.to_numpy(trace_rays(optic, (0.0, hy), (px, py)).y)
        np.testing.assert_allclose(be.to_numpy(batched[k]), single, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["cooke_triplet", "double_gauss", "singlet", "achromat"])
def test_sample_designs_give_the_same_numbers_on_numpy_and_jax(name):
    px, py = hexapolar(4)
    results = {}
    for backend in ("numpy", "jax"):
        with be.using(backend):
            optic = load(name)
            rays = trace_rays(optic, (0.0, 1.0), (be.asarray(px), be.asarray(py)))
            results[backend] = {c: be.to_numpy(getattr(rays, c)) for c in COMPONENTS}
    for c in COMPONENTS:
        np.testing.assert_allclose(results["jax"][c], results["numpy"][c], rtol=0, atol=1e-12)
