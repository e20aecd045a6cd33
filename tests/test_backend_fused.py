"""accel.accumulate and accel.add_product: the plain values, in place only where allowed."""

from __future__ import annotations

import numpy as np
import pytest

from optics import accel
from optics import backend as be


def _arrays(n=7):
    rng = np.random.default_rng(5)
    return [be.asarray(rng.normal(size=n)) for _ in range(3)]


def test_add_product_equals_the_expression(backend):
    a, t, b = _arrays()
    for args in ((a, t, b), (a, 2.5, b), (a, t, 0.5), (1.0, t, b), (a[:1], t, b)):
        expected = be.to_numpy(args[0] + args[1] * args[2])
        actual = be.to_numpy(accel.add_product(*args))
        if backend == "numpy":  # the same two roundings
            np.testing.assert_array_equal(actual, expected)
        else:  # a fused multiply-add may round once: within an ulp of the terms
            bound = np.abs(be.to_numpy(args[0]) + 0.0 * expected)
            bound = bound + np.abs(be.to_numpy(args[1] * args[2]))
            np.testing.assert_allclose(actual, expected, rtol=0, atol=np.max(bound) * 2**-51)
    before = be.to_numpy(a).copy()
    accel.add_product(a, t, b)
    np.testing.assert_array_equal(be.to_numpy(a), before)  # the operands are never written


def test_accumulate_equals_the_expression_and_may_reuse_the_total(backend):
    a, t, _ = _arrays()
    total = a * 1.0  # a temporary of ours
    expected = be.to_numpy(total + 0.25 * t)
    out = accel.accumulate(total, t, 0.25)
    np.testing.assert_array_equal(be.to_numpy(out), expected)
    # A broadcasting term that would change the shape is never written in place.
    short = a[:1] * 1.0
    np.testing.assert_array_equal(
        be.to_numpy(accel.accumulate(short, t, 2.0)), be.to_numpy(a[:1] + 2.0 * t)
    )


def test_fused_helpers_keep_gradients_on_torch():
    if "torch" not in be.available_backends():
        pytest.skip("torch is not installed")
    with be.using("torch", precision="float64"):
        a, t, b = _arrays()
        w = be.parameter(be.asarray(0.5))
        leaf = be.parameter(be.asarray(2.0))
        total = leaf * a  # requires grad: accumulate must not write into it
        out = be.sum(accel.accumulate(total, t, w) + accel.add_product(a, leaf, b))
        out.backward()
        expected_leaf = be.to_numpy(be.sum(a) + be.sum(b))
        np.testing.assert_allclose(be.to_numpy(leaf.grad), expected_leaf, rtol=1e-14)
        np.testing.assert_allclose(be.to_numpy(w.grad), be.to_numpy(be.sum(t)), rtol=1e-14)
