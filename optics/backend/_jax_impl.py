"""JAX implementation of the backend operations (one meaning per name, see _numpy_impl).

JAX arrays are immutable and JAX differentiates functions: ``scatter`` is
functional, ``detach`` is ``lax.stop_gradient``, ``requires_grad(x)`` is True
for a tracer, and "recording" means "a transformation traces and no
``no_grad`` block is active" (docs/backend.md).  Selecting the backend turns
on ``jax_enable_x64``: without it JAX silently computes in float32.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
from contextvars import ContextVar

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ._jax_compile import (  # noqa: F401  (the jax backend's compile names)
    compile_function,
    compiled_stage,
    detach_all,
    explain_compile,
    mark_trace_constant,
    reset_compiled,
)

try:  # where a JAX transformation is tracing (no public name for it yet)
    from jax._src.core import trace_state_clean as _trace_state_clean
except ImportError:  # pragma: no cover - depends on the JAX version

    def _trace_state_clean():
        return False  # assume tracing: the implicit correction is then always applied


#: Setup on selection (and at import): float64 must be on, or JAX computes in float32.
select = functools.partial(jax.config.update, "jax_enable_x64", True)
select()

name = "jax"
#: compile_function takes ``rows=`` (row chunks and a runner of parts, _jax_compile).
compile_uses_rows = True
array_types = (jax.Array,)

FLOAT_DTYPES = {"float64": np.dtype(np.float64), "float32": np.dtype(np.float32)}
INT64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)


sqrt, sin, cos, tan = jnp.sqrt, jnp.sin, jnp.cos, jnp.tan
arcsin, arccos, arctan, arctan2 = jnp.arcsin, jnp.arccos, jnp.arctan, jnp.arctan2
exp, log, abs, sign, square, floor = jnp.exp, jnp.log, jnp.abs, jnp.sign, jnp.square, jnp.floor
copysign, hypot, maximum, minimum = jnp.copysign, jnp.hypot, jnp.maximum, jnp.minimum
isfinite, isnan = jnp.isfinite, jnp.isnan
logical_and, logical_or, logical_not = jnp.logical_and, jnp.logical_or, jnp.logical_not
matmul = jnp.matmul


# Python scalars are weakly typed in JAX: they take the array operand's dtype.
where, clip = jnp.where, jnp.clip


def reshape(x, shape):
    return jnp.reshape(x, (shape,) if isinstance(shape, int) else tuple(shape))


def broadcast_to(x, shape):
    return jnp.broadcast_to(x, (shape,) if isinstance(shape, int) else tuple(shape))


sum, max, min, all, any = jnp.sum, jnp.max, jnp.min, jnp.all, jnp.any


def mean(x, axis=None, keepdims=False):
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        x = x.astype(jnp.float64)  # NumPy's mean of integers is float64
    return jnp.mean(x, axis=axis, keepdims=keepdims)


def stack(arrays, axis=0):
    return jnp.stack(list(arrays), axis=axis)


def concatenate(arrays, axis=0):
    return jnp.concatenate(list(arrays), axis=axis)


def solve(a, b):
    # NumPy 2 / Array API meaning: ``b`` is a vector only when it is 1-D.
    if b.ndim >= 2 and b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]:
        b = b[None]
    return jnp.linalg.solve(a, b)


def float_dtype(precision):
    return FLOAT_DTYPES[precision]


def _device(device):
    """A jax.Device for "cpu", "cuda", "cuda:1", "gpu" ... (None: JAX's default)."""
    if device is None or not isinstance(device, str):
        return device
    kind, _, index = device.partition(":")
    platform = "gpu" if kind in ("cuda", "gpu") else kind
    try:
        found = jax.devices(platform)
    except RuntimeError:
        found = []
    if int(index or 0) >= len(found):
        raise ValueError(f"device {device!r} is not available to JAX here (found {devices()})")
    return found[int(index or 0)]


_DEFAULT_PLATFORM = jax.devices()[0].platform


def _place(out, device):
    if device is None or (device == "cpu" and _DEFAULT_PLATFORM == "cpu"):
        return out  # already there: no device_put (it is an operation of its own)
    return jax.device_put(out, _device(device))


def asarray(obj, dtype=None, device=None, copy=False):
    dtype = None if dtype is None else np.dtype(dtype)
    if isinstance(obj, (list, tuple)) and _holds_array(obj):
        obj = jnp.stack([asarray(o, dtype=dtype) for o in obj])
    out = jnp.array(obj, dtype=dtype, copy=True) if copy else jnp.asarray(obj, dtype=dtype)
    return _place(out, device)


def _holds_array(seq):
    return builtins.any(
        isinstance(o, jax.Array) or (isinstance(o, (list, tuple)) and _holds_array(o)) for o in seq
    )


def creation(fn_name):
    fn = getattr(jnp, fn_name)

    def create(*args, dtype, device=None):
        return _place(fn(*args, dtype=np.dtype(dtype)), device)

    return create


zeros, ones, empty = creation("zeros"), creation("ones"), creation("empty")
arange, linspace, eye, full = (creation(n) for n in ("arange", "linspace", "eye", "full"))
zeros_like, ones_like, empty_like = jnp.zeros_like, jnp.ones_like, jnp.empty_like
full_like, finfo, detach = jnp.full_like, jnp.finfo, lax.stop_gradient


def astype(x, dtype):
    return x.astype(np.dtype(dtype))


def is_floating(x):
    return jnp.issubdtype(x.dtype, jnp.floating)


def tracing():
    """True while a JAX transformation (grad, jit, vmap ...) traces the calling code."""
    return not _trace_state_clean()


def compiling():
    return False  # abstract values are asked of the arrays (abstract), not of a mode


def abstract(x):
    """True when x's value cannot be read on the host (a jit or vmap tracer)."""
    return isinstance(x, jax.core.Tracer) and isinstance(lax.stop_gradient(x), jax.core.Tracer)


def requires_grad(x):
    return isinstance(x, jax.core.Tracer)


_GRAD_ON = ContextVar("optics_jax_grad_on", default=True)


def grad_enabled():
    return _GRAD_ON.get() and tracing()


@contextlib.contextmanager
def _grad_switch(on):
    token = _GRAD_ON.set(on)
    try:
        yield
    finally:
        _GRAD_ON.reset(token)


no_grad, enable_grad = functools.partial(_grad_switch, False), functools.partial(_grad_switch, True)


def as_parameter(x):
    return x  # JAX has no leaves: jax.grad differentiates a function of x


def value_and_grad(fn, arrays):
    """fn(*arrays) (0-d) and its gradient with respect to each array (``jax.value_and_grad``)."""
    if not arrays:
        return fn(), []
    value, grads = jax.value_and_grad(fn, argnums=tuple(range(len(arrays))))(*arrays)
    return value, list(grads)


def jacobian(fn, arrays):
    """fn(*arrays) (1-D) and its Jacobian with respect to each array (``jax.jacrev``)."""
    out = fn(*arrays)
    if not arrays:
        return out, []
    return out, list(jax.jacrev(fn, argnums=tuple(range(len(arrays))))(*arrays))


quiet_float_errors = contextlib.nullcontext  # JAX never warns on inf/nan arithmetic


def to_numpy(x):
    # Under an eager jax.grad a stop-gradient value is concrete again; under jit it is not.
    return np.asarray(lax.stop_gradient(x) if isinstance(x, jax.core.Tracer) else x)


def scatter(base, mask, values):
    return base.at[jnp.nonzero(mask)].set(values.astype(base.dtype))


def device_of(x):
    try:
        device = next(iter(x.devices()))
    except jax.errors.ConcretizationTypeError:  # a traced value: JAX's default device
        device = jax.devices()[0]
    return "cpu" if device.platform == "cpu" else f"cuda:{device.id}"


def devices():
    found = ["cpu"]
    try:
        found += [f"cuda:{i}" for i, _ in enumerate(jax.devices("gpu"))]
    except RuntimeError:
        pass
    return found


def device_available(device):
    kind, _, index = device.partition(":")
    if kind == "cpu":
        return True
    return f"cuda:{int(index or 0)}" in devices()


def item(x):
    return to_numpy(x).item()


def graph_free_loop(body, state, steps, active=None):
    """``steps`` applications of ``body`` as one ``lax.while_loop`` on stop-gradient inputs.

    Every traced value the body closes over (surface parameters, rays) is
    hoisted by ``jax.closure_convert`` and passed through ``stop_gradient``, so
    the loop adds nothing to a derivative and its jaxpr is one body, whatever
    ``steps`` is.  With ``active``, the loop ends early once ``active(state)``
    is false everywhere (``body`` must then leave the state unchanged).
    """
    state = jax.tree_util.tree_map(lax.stop_gradient, state)

    def step(carry):
        count, current, _ = carry
        new = body(current)
        go = jnp.asarray(True) if active is None else jnp.any(active(new))
        return count + 1, new, go

    init = (jnp.asarray(0, dtype=jnp.int32), state, jnp.asarray(True))
    converted, consts = jax.closure_convert(step, init)
    leaves = jax.tree_util.tree_leaves(state)
    if not builtins.any(isinstance(v, jax.core.Tracer) for v in [*leaves, *consts]):
        # Concrete inputs (eager, or detached under an eager jax.grad): nothing records,
        # and a Python loop costs no XLA compilation of the body.
        for _ in range(steps):
            state = body(state)
        return state
    consts = [lax.stop_gradient(c) for c in consts]
    _, out, _ = lax.while_loop(
        lambda carry: (carry[0] < steps) & carry[2], lambda carry: converted(carry, *consts), init
    )
    return out


def row_view(x, start, size):
    # A JAX slice copies; a NumPy view of the same CPU buffer handed back does not (when
    # 64-byte aligned; it copies otherwise, with the same values).
    return jax.device_put(np.asarray(x)[start : start + size], next(iter(x.devices())))


block_until_ready = jax.block_until_ready


def join_rows(pieces, owned):
    return _join_rows(tuple(owned), *pieces)


@functools.partial(jax.jit, static_argnums=0)
def _join_rows(owned, *pieces):  # one pass: eager slices would copy the rows twice
    return jnp.concatenate([piece[lo:hi] for piece, (lo, hi) in zip(pieces, owned)])


def owns_dtype(dtype):
    return False  # JAX dtypes are NumPy dtypes: NumPy answers for them
