"""be.recompute: the same values and first derivatives as a plain call, less kept for backward.

On eager torch it is a checkpoint (only its array arguments are saved, the
function runs again in the backward pass); gradients must reach both its
arguments and the parameters the function closes over, also through
``be.value_and_grad``-style ``autograd.grad`` calls.  Elsewhere it is a plain call.
"""

from __future__ import annotations

import numpy as np
import pytest

from optics import backend as be


def _slopes(c):
    def fn(x, y):
        r2 = x * x + y * y
        root = be.sqrt(1.0 - c * c * r2)
        slope = c / root
        return slope * x, slope * y

    return fn


def test_recompute_gives_the_plain_values_on_every_backend(backend):
    x, y = be.asarray([0.5, -1.0, 2.0]), be.asarray([1.0, 0.25, -0.5])
    plain = _slopes(0.05)(x, y)
    again = be.recompute(_slopes(0.05), x, y)
    for a, b in zip(plain, again):
        np.testing.assert_array_equal(be.to_numpy(a), be.to_numpy(b))


def test_recompute_gradients_match_and_it_saves_only_its_inputs():
    torch = pytest.importorskip("torch")
    with be.using("torch", precision="float64"):
        base = be.asarray([0.5, -1.0, 2.0, 3.0])
        grads, saved = [], []
        for wrap in (False, True):
            c = be.parameter(0.05)
            shift = be.parameter(0.1)
            x, y = base + shift, base * shift
            packed = []

            def pack(t, packed=packed):
                packed.append(t.untyped_storage().data_ptr())
                return t

            with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
                fn = _slopes(c)
                sx, sy = be.recompute(fn, x, y) if wrap else fn(x, y)
                loss = be.sum(sx * sx + 3.0 * sy)
            grads.append([g.item() for g in torch.autograd.grad(loss, [c, shift])])
            saved.append(len(set(packed)))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-14)
    assert all(g != 0.0 for g in grads[0])
    assert saved[1] < saved[0]
