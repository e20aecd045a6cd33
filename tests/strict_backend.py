"""A fourth backend for the tests: array-api-strict, written from the recipe of docs/backend.md.

array-api-strict implements the Array API standard and nothing more: no
implicit conversions, no in-place writes through views, no NumPy names.  A
trace that runs on it runs on any conforming library; where optics leans on
NumPy or Torch behaviour, this backend fails loudly.  No derivatives, CPU only.
"""

from __future__ import annotations

import contextlib

import array_api_strict as xp
import numpy as np

name = "strict"
array_types = (type(xp.asarray(0.0)),)

FLOAT_DTYPES = {"float64": xp.float64, "float32": xp.float32}
INT64 = xp.int64
BOOL = xp.bool

sqrt, sin, cos, tan, exp, log, abs = xp.sqrt, xp.sin, xp.cos, xp.tan, xp.exp, xp.log, xp.abs
arcsin, arccos, arctan, arctan2 = xp.asin, xp.acos, xp.atan, xp.atan2
sign, square, floor, copysign, hypot = xp.sign, xp.square, xp.floor, xp.copysign, xp.hypot
maximum, minimum, isfinite, isnan = xp.maximum, xp.minimum, xp.isfinite, xp.isnan
logical_and, logical_or, logical_not = xp.logical_and, xp.logical_or, xp.logical_not
matmul = xp.matmul


def reshape(x, shape):
    return xp.reshape(x, (shape,) if isinstance(shape, int) else tuple(shape))


def broadcast_to(x, shape):
    return xp.broadcast_to(x, tuple(shape))


def where(condition, a, b):
    return xp.where(condition, a, b)


def clip(x, lo=None, hi=None):
    return xp.clip(x, lo, hi)


def _reduce(fn):
    return lambda x, axis=None, keepdims=False: fn(x, axis=axis, keepdims=keepdims)


sum, mean, max, min = _reduce(xp.sum), _reduce(xp.mean), _reduce(xp.max), _reduce(xp.min)
all, any = _reduce(xp.all), _reduce(xp.any)


def stack(arrays, axis=0):
    return xp.stack(list(arrays), axis=axis)


def concatenate(arrays, axis=0):
    return xp.concat(list(arrays), axis=axis)


def solve(a, b):
    return xp.linalg.solve(a, b)


def float_dtype(precision):
    return FLOAT_DTYPES[precision]


def _check_device(device):
    if device not in (None, "cpu"):
        raise ValueError(f"array-api-strict arrays live on the CPU, not {device!r}")


def asarray(obj, dtype=None, device=None, copy=False):
    _check_device(device)
    if isinstance(obj, np.ndarray | np.generic):
        obj = obj.tolist()  # the strict namespace takes no NumPy arrays
    return xp.asarray(obj, dtype=dtype, copy=True if copy else None)


def _creation(fn):
    def create(*args, dtype, device=None):
        _check_device(device)
        return fn(*args, dtype=dtype)

    return create


zeros, ones, empty = _creation(xp.zeros), _creation(xp.ones), _creation(xp.empty)
arange, linspace, eye = _creation(xp.arange), _creation(xp.linspace), _creation(xp.eye)


def full(shape, value, dtype, device=None):
    _check_device(device)
    return xp.full(shape, value, dtype=dtype)


def zeros_like(x, dtype=None):
    return xp.zeros_like(x, dtype=dtype)


def ones_like(x, dtype=None):
    return xp.ones_like(x, dtype=dtype)


def empty_like(x, dtype=None):
    return xp.empty_like(x, dtype=dtype)


def full_like(x, value, dtype=None):
    return xp.full_like(x, value, dtype=dtype)


def astype(x, dtype):
    return xp.astype(x, dtype)


def is_floating(x):
    return xp.isdtype(x.dtype, "real floating")


def finfo(dtype):
    return xp.finfo(dtype)


def detach(x):
    return x


def requires_grad(x):
    return False


def grad_enabled():
    return False


def tracing():
    return False


compiling = tracing


def abstract(x):
    return False


def as_parameter(x):
    return x


def select():
    """Nothing to set up."""


def devices():
    return ["cpu"]


def device_available(device):
    return device == "cpu"


no_grad = enable_grad = contextlib.nullcontext


def quiet_float_errors():
    return contextlib.nullcontext()  # the strict library raises no floating-point warnings


def to_numpy(x):
    return np.asarray(x)


def scatter(base, mask, values):
    """``base`` with its ``mask`` positions set to ``values`` (one per True, in order)."""
    flat_mask = xp.reshape(xp.broadcast_to(mask, base.shape), (-1,))
    values = xp.reshape(values, (-1,))
    if values.shape[0] == 1:
        filled = xp.broadcast_to(values, flat_mask.shape)
    else:
        index = xp.cumulative_sum(xp.astype(flat_mask, xp.int64)) - 1
        filled = xp.take(values, xp.clip(index, 0, None))
    return xp.where(mask, xp.reshape(filled, base.shape), base)


def device_of(x):
    return "cpu"


def item(x):
    return np.asarray(x).item()


def graph_free_loop(body, state, steps, active=None):
    for _ in range(steps):
        state = body(state)
    return state


def owns_dtype(dtype):
    return dtype in (xp.float64, xp.float32, xp.int64, xp.bool)


def mark_trace_constant(fn):
    """Nothing is compiled."""


def reset_compiled():
    """Nothing is compiled."""


def detach_all(obj):
    return obj
