"""The ``be`` contract on JAX: NumPy and JAX results compared, and JAX's own semantics.

The same operation tables as test_backend_contract.py (NumPy against Torch),
here NumPy against JAX in float64 and float32; then what differs in kind on
JAX: grad_active under transformations, no_grad, stop_gradient, functional
scatter, the graph-free loop (one loop body in the jaxpr, whatever the count).
"""

from __future__ import annotations

import numpy as np
import pytest
from _backend_cases import (
    BINARY,
    FEW,
    LIKE,
    LOGICAL,
    PRECISIONS,
    REDUCTIONS,
    UNARY,
    finite_scale,
    floats,
    shapes,
    tolerance,
)
from helpers import jaxpr_size
from hypothesis import given
from hypothesis import strategies as st

from optics import backend as be

jax = pytest.importorskip("jax")
jnp = jax.numpy
NP_FLOAT = {"float64": np.float64, "float32": np.float32}


def _pair(values, precision=None):
    x = np.asarray(values, dtype=NP_FLOAT[precision] if precision else None)
    if x.dtype == np.float32:
        # XLA on CPU flushes float32 subnormals to zero (NumPy and torch keep them).
        x = np.where(np.abs(x) < np.finfo(np.float32).tiny, np.float32(0.0), x)
    with be.using("jax"):
        return x, be.asarray(x.copy())


def _same(np_out, jax_out, rtol=0.0, atol=0.0):
    assert isinstance(np_out, (np.ndarray, np.generic)), type(np_out)
    assert isinstance(jax_out, jax.Array), type(jax_out)
    assert str(jax_out.dtype) == str(np_out.dtype)
    assert tuple(jax_out.shape) == np.shape(np_out)
    np.testing.assert_allclose(np.asarray(jax_out), np_out, rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("name", sorted(UNARY))
@FEW
@given(data=st.data())
def test_unary_math_agrees_between_numpy_and_jax(name, precision, data):
    values = data.draw(UNARY[name])
    x, j = _pair(values, precision)
    fn = getattr(be, name)
    _same(fn(x), fn(j), *tolerance(precision, finite_scale(values)))


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("name", BINARY + LOGICAL)
@FEW
@given(data=st.data())
def test_binary_math_agrees_between_numpy_and_jax_also_with_python_scalars(name, precision, data):
    shape = data.draw(shapes())
    a_values, b_values = data.draw(floats(-100, 100, shape)), data.draw(floats(-100, 100, shape))
    (a, ja), (b, jb) = _pair(a_values, precision), _pair(b_values, precision)
    fn = getattr(be, name)
    _same(fn(a, b), fn(ja, jb), *tolerance(precision, 100))
    if name in BINARY:  # a Python scalar takes the array's dtype on both
        _same(fn(a, 2.5), fn(ja, 2.5), *tolerance(precision, 100))


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, True), ((0, 1), False)])
def test_reductions_agree_and_return_arrays(name, precision, axis, keepdims):
    values = np.array([[1.0, -2.0, 3.5], [0.0, 4.0, -1.5]])
    if name in ("all", "any"):
        values = values > 0
        precision = None
    x, j = _pair(values, precision)
    rtol = tolerance(precision or "float64")[0]  # summation order differs
    _same(getattr(be, name)(x, axis, keepdims), getattr(be, name)(j, axis, keepdims), rtol)


@pytest.mark.parametrize("name", ["mean", "max", "min"])
def test_mean_max_min_propagate_nan_like_numpy(name):
    x, j = _pair([1.0, np.nan, 2.0])
    _same(getattr(be, name)(x), getattr(be, name)(j))


def test_where_keeps_float32_and_never_downcasts(jax_backend):
    x32 = be.asarray([1.0, 2.0], dtype="float32")
    assert be.where(x32 > 1, x32, 0.5).dtype == np.float32
    assert be.where(x32 > 1, x32, be.asarray([1.0, 2.0])).dtype == np.float64
    with be.using(precision="float32"):
        assert be.where(x32 > 1, 1.0, 2.0).dtype == np.float32


@pytest.mark.parametrize("precision", PRECISIONS)
def test_creation_linear_algebra_and_joining_agree(precision):
    def make():
        a = be.eye(3) * 4.0 + be.reshape(be.linspace(0.0, 1.0, 9), (3, 3))
        b = be.stack([be.ones(3), be.arange(3.0)], axis=1)
        return (
            be.solve(a, b),
            be.matmul(a, b),
            be.concatenate([be.zeros(2), be.full(2, 3.0)]),
            be.broadcast_to(be.arange(3), (2, 3)),
            be.clip(be.linspace(-2.0, 2.0, 5), -1.0, None),
        )

    with be.using("numpy", precision=precision):
        expected = make()
    with be.using("jax", precision=precision):
        actual = make()
    for e, a in zip(expected, actual):
        _same(e, a, *tolerance(precision, 10))


@pytest.mark.parametrize("name", LIKE)
def test_like_creation_keeps_shape_and_dtype(name):
    x, j = _pair([[1.0, 2.0]], "float32")
    args = (7.0,) if name == "full_like" else ()
    n, k = getattr(be, name)(x, *args), getattr(be, name)(j, *args)
    if name == "empty_like":
        n, k = np.zeros_like(n), jnp.zeros_like(k)
    _same(n, k)


def test_solve_reads_b_as_a_matrix_unless_it_is_one_dimensional(jax_backend):
    a = np.stack([np.eye(2) * 2.0, np.eye(2) * 4.0])  # (2, 2, 2)
    b = np.array([[1.0, 2.0], [3.0, 4.0]])  # a (2, 2) matrix broadcast against each, not 2 vectors
    _same(np.linalg.solve(a, b), be.solve(be.asarray(a), be.asarray(b)))


def test_machine_eps_finfo_and_the_x64_switch(jax_backend):
    assert jax.config.jax_enable_x64
    assert be.zeros(2).dtype == np.float64 and be.machine_eps(be.zeros(2)) == 2.0**-52
    assert be.machine_eps(be.zeros(2, dtype="float32")) == 2.0**-23


def test_scatter_is_functional_and_keeps_both_gradients(jax_backend):
    base, values = be.asarray([1.0, 2.0, 3.0, 4.0]), be.asarray([10.0, 30.0])
    mask = be.asarray([True, False, True, False])
    out = be.scatter(base, mask, values)
    assert out.tolist() == [10.0, 2.0, 30.0, 4.0] and base.tolist() == [1.0, 2.0, 3.0, 4.0]
    weights = jnp.arange(1.0, 5.0)
    g_base, g_values = jax.grad(lambda b, v: jnp.sum(be.scatter(b, mask, v) * weights), (0, 1))(
        base, values
    )
    assert g_base.tolist() == [0.0, 2.0, 0.0, 4.0] and g_values.tolist() == [1.0, 3.0]


def test_grad_active_is_true_exactly_while_a_transformation_traces(jax_backend):
    seen = []

    def f(x):
        seen.append(be.grad_active())
        with be.no_grad():
            seen.append(be.grad_active())
            with be.enable_grad():
                seen.append(be.grad_active())
        seen.append(be.grad_active(x))  # following the array
        return be.sum(x * x)

    x = be.asarray([1.0, 2.0])
    f(x)
    assert seen == [False, False, False, False]
    for transform in (jax.grad, jax.jit, jax.vmap):
        seen.clear()
        transform(f)(x)
        assert seen == [True, False, True, True], transform.__name__


def test_parameter_is_a_plain_array_and_detach_stops_the_gradient(jax_backend):
    p = be.parameter([1.0, 2.0])
    assert isinstance(p, jax.Array) and not be.requires_grad(p)
    grad = jax.grad(lambda v: be.sum(v * be.detach(v)))(p)
    assert grad.tolist() == [1.0, 2.0]  # d/dv of v * stop_gradient(v)
    assert be.to_numpy(p * 2).tolist() == [2.0, 4.0] and be.is_array(p)


def test_graph_free_loop_has_one_body_and_no_gradient(jax_backend):
    def loop(theta, steps):
        return be.graph_free_loop(lambda t: t - (t * t - theta) / (2 * t), be.ones(3), steps)

    theta = be.asarray([2.0, 3.0, 4.0])
    np.testing.assert_allclose(np.asarray(loop(theta, 30)), np.sqrt([2.0, 3.0, 4.0]), rtol=1e-15)
    sizes = {jaxpr_size(lambda th, n=n: loop(th, n), theta) for n in (5, 50)}
    assert len(sizes) == 1 and sizes.pop() < 40
    assert jax.grad(lambda th: be.sum(loop(th, 30)))(theta).tolist() == [0.0, 0.0, 0.0]


def test_the_environment_selects_jax_in_float64_without_importing_it_at_import():
    import os
    import subprocess
    import sys

    code = "import sys; from optics import backend as be; print('jax' in sys.modules); "
    code += "x = be.zeros(1); print(be.get_backend(), be.backend_of(x), x.dtype)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPTICS_")}
    env["OPTICS_BACKEND"] = "jax"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "jax", "jax", "float64"]
