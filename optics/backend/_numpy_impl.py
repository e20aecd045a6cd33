"""NumPy implementation of the backend operations (one meaning per name, see _torch_impl)."""

from __future__ import annotations

import contextlib

import numpy as np

name = "numpy"
array_types = (np.ndarray, np.generic)

FLOAT_DTYPES = {"float64": np.float64, "float32": np.float32}
INT64 = np.int64
BOOL = np.bool_

# NumPy's own functions already have the contract's meanings.
sqrt, sin, cos, tan = np.sqrt, np.sin, np.cos, np.tan
arcsin, arccos, arctan, arctan2 = np.arcsin, np.arccos, np.arctan, np.arctan2
exp, log, abs, sign, square, floor = np.exp, np.log, np.abs, np.sign, np.square, np.floor
copysign, hypot, maximum, minimum = np.copysign, np.hypot, np.maximum, np.minimum
isfinite, isnan = np.isfinite, np.isnan
logical_and, logical_or, logical_not = np.logical_and, np.logical_or, np.logical_not
where, matmul, clip = np.where, np.matmul, np.clip
reshape, broadcast_to = np.reshape, np.broadcast_to
stack, concatenate, solve = np.stack, np.concatenate, np.linalg.solve
zeros_like, ones_like, empty_like = np.zeros_like, np.ones_like, np.empty_like
full_like, finfo, to_numpy = np.full_like, np.finfo, np.asarray


def _reduce(fn):
    def reduce(x, axis=None, keepdims=False):
        return np.asarray(fn(x, axis=axis, keepdims=keepdims))

    return reduce


sum, mean, max, min, all, any = map(_reduce, (np.sum, np.mean, np.max, np.min, np.all, np.any))


def float_dtype(precision):
    return np.dtype(FLOAT_DTYPES[precision])


def _check_device(device):
    if device not in (None, "cpu"):
        raise ValueError(f"NumPy arrays live on the CPU; device {device!r} needs the torch backend")


def asarray(obj, dtype=None, device=None, copy=False):
    _check_device(device)
    return np.array(obj, dtype=dtype, copy=True) if copy else np.asarray(obj, dtype=dtype)


def creation(fn_name):
    fn = getattr(np, fn_name)

    def create(*args, dtype, device=None):
        _check_device(device)
        return fn(*args, dtype=dtype)

    return create


zeros, ones, empty, full = creation("zeros"), creation("ones"), creation("empty"), creation("full")
arange, linspace, eye = creation("arange"), creation("linspace"), creation("eye")


def astype(x, dtype):
    return np.asarray(x).astype(dtype, copy=False)


def is_floating(x):
    return np.issubdtype(np.asarray(x).dtype, np.floating)


def _same(x):
    return x


def _false(*args):
    return False


def _nothing(*args):
    """Nothing to set up or compile on NumPy."""


detach = detach_all = as_parameter = _same
requires_grad = grad_enabled = tracing = compiling = abstract = _false
select = mark_trace_constant = reset_compiled = _nothing
no_grad = enable_grad = contextlib.nullcontext


def devices():
    return ["cpu"]


def device_available(device):
    return device == "cpu"


def quiet_float_errors():
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


def scatter(base, mask, values):
    out = np.array(base, copy=True)
    out[mask] = values
    return out


def device_of(x):
    return "cpu"


def item(x):
    return np.asarray(x).item()


def graph_free_loop(body, state, steps, active=None):
    """``steps`` applications of ``body``: a Python loop (torch's too; callers hold no_grad)."""
    for _ in range(steps):
        state = body(state)
    return state


def owns_dtype(dtype):
    return isinstance(dtype, np.dtype)


def accumulate(total, term, weight):
    """``total + weight * term`` written into ``total`` when shape and dtype allow."""
    if (
        isinstance(total, np.ndarray)
        and total.flags.writeable
        and total.dtype.kind == "f"
        and np.shape(term) == total.shape
        and np.result_type(total, term, weight) == total.dtype
    ):
        if isinstance(weight, (int, float)) and weight == 1:
            return np.add(total, term, out=total)
        return np.add(total, np.multiply(term, weight), out=total)
    return total + weight * term


def add_product(a, t, b):
    """``a + t * b``, the sum written into the product's fresh array when shapes allow."""
    product = np.multiply(t, b)
    if isinstance(product, np.ndarray) and product.ndim:
        # Common cases first: broadcast_shapes / result_type cost microseconds on small blocks.
        fits = (type(a) is float and product.dtype.kind == "f") or (
            isinstance(a, np.ndarray) and a.dtype == product.dtype and a.shape == product.shape
        )
        if fits or (
            product.shape == np.broadcast_shapes(np.shape(a), product.shape)
            and np.result_type(a, product) == product.dtype
        ):
            return np.add(a, product, out=product)
    return a + product
