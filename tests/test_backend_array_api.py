"""The dispatched operations on any other Array API array: array-api-strict against NumPy.

``be`` finds the namespace of an array it does not know through
array-api-compat; the results must match what NumPy gives for the same values,
in dtype, shape and value.
"""

from __future__ import annotations

import numpy as np
import pytest
from _backend_cases import (
    BINARY,
    FEW,
    LOGICAL,
    NP_FLOAT,
    PRECISIONS,
    UNARY,
    finite_scale,
    tolerance,
    well_conditioned,
)
from hypothesis import given
from hypothesis import strategies as st

from optics import backend as be


@pytest.fixture(scope="module")
def xp():
    return pytest.importorskip("array_api_strict")


def assert_like_numpy(xp, out, expected, rtol=0.0, atol=0.0):
    """An array-api-strict result matches the NumPy result in kind, dtype, shape and values."""
    assert type(out).__module__.startswith("array_api_strict"), type(out)
    assert str(out.dtype).removeprefix("array_api_strict.") == str(np.asarray(expected).dtype)
    values = be.to_numpy(out)
    assert values.shape == np.shape(expected)
    np.testing.assert_allclose(values, expected, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("name", sorted(UNARY))
@FEW
@given(data=st.data())
def test_unary_math_on_array_api_arrays_matches_numpy(xp, name, precision, data):
    x = np.asarray(data.draw(UNARY[name]), dtype=NP_FLOAT[precision])
    out = getattr(be, name)(xp.asarray(x))
    assert_like_numpy(xp, out, getattr(be, name)(x), *tolerance(precision, finite_scale(x)))


@pytest.mark.parametrize("name", BINARY + LOGICAL)
def test_binary_math_on_array_api_arrays_matches_numpy(xp, name):
    if name in LOGICAL:
        a, b = np.array([True, True, False]), np.array([True, False, False])
    else:
        a, b = np.array([1.0, -2.0, 3.0], np.float32), np.array([0.5, 4.0, -3.0], np.float32)
    fn = getattr(be, name)
    assert_like_numpy(xp, fn(xp.asarray(a), xp.asarray(b)), fn(a, b), *tolerance("float32"))
    if name not in LOGICAL:  # a Python scalar takes the array's dtype
        assert_like_numpy(xp, fn(xp.asarray(a), 2.0), fn(a, 2.0), *tolerance("float32"))


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "all", "any"])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, True), (-1, False)])
def test_reductions_on_array_api_arrays_match_numpy(xp, name, axis, keepdims):
    x = np.array([[1.0, -2.0, 3.5], [0.0, 4.0, -1.0]])
    if name in ("all", "any"):
        x = x > 0
    fn = getattr(be, name)
    expected = fn(x, axis=axis, keepdims=keepdims)
    assert_like_numpy(xp, fn(xp.asarray(x), axis=axis, keepdims=keepdims), expected, 1e-15)


def test_where_and_clip_on_array_api_arrays_match_numpy(xp):
    c, a = np.array([True, False, True]), np.array([1.0, -2.0, 3.0], np.float32)
    b = np.array([9.0, 8.0, 7.0], np.float32)
    xc, xa, xb = xp.asarray(c), xp.asarray(a), xp.asarray(b)
    assert_like_numpy(xp, be.where(xc, xa, xb), be.where(c, a, b))
    assert_like_numpy(xp, be.where(xc, xa, 0.5), be.where(c, a, 0.5))
    with be.using("numpy", precision="float32"):
        assert_like_numpy(xp, be.where(xc, 1.0, 2.0), be.where(c, 1.0, 2.0))
    for bounds in [(-1.0, 2.0), (None, 0.0), (0.0, None)]:
        assert_like_numpy(xp, be.clip(xa, *bounds), be.clip(a, *bounds))


def test_joining_and_shaping_on_array_api_arrays_match_numpy(xp):
    a, b = np.arange(6.0).reshape(2, 3), np.ones((2, 3))
    xa, xb = xp.asarray(a), xp.asarray(b)
    assert_like_numpy(xp, be.stack([xa, xb], axis=1), be.stack([a, b], axis=1))
    assert_like_numpy(xp, be.concatenate([xa, xb], axis=-1), be.concatenate([a, b], axis=-1))
    assert_like_numpy(xp, be.reshape(xa, (3, 2)), be.reshape(a, (3, 2)))
    assert_like_numpy(xp, be.reshape(xa, 6), be.reshape(a, 6))
    assert_like_numpy(xp, be.broadcast_to(xa, (4, 2, 3)), be.broadcast_to(a, (4, 2, 3)))


def test_linear_algebra_on_array_api_arrays_matches_numpy(xp):
    a = well_conditioned(np.linspace(-1, 1, 9).reshape(3, 3))
    b = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    xa, xb = xp.asarray(a), xp.asarray(b)
    tol = tolerance("float64", 100)
    assert_like_numpy(xp, be.matmul(xa, xb), be.matmul(a, b), *tol)
    assert_like_numpy(xp, be.solve(xa, xb), be.solve(a, b), *tol)
    assert_like_numpy(xp, be.solve(xa, xb[:, 0]), be.solve(a, b[:, 0]), *tol)


def test_conversion_helpers_accept_array_api_arrays(xp):
    x = xp.asarray([1.0, 2.0], dtype=xp.float32)
    assert be.is_array(x)
    assert be.to_numpy(x).tolist() == [1.0, 2.0]
    assert be.machine_eps(x) == 2.0**-23
    assert be.requires_grad(x) is False and be.detach(x) is x
    assert_like_numpy(xp, be.full_like(x, 3.0), np.full(2, 3.0, np.float32))
