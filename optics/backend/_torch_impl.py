"""PyTorch implementation of the backend operations.

Each name has the meaning of its NumPy namesake in _numpy_impl; where torch
differs (scalar operands, reductions, ``max`` returning tuples) it is adapted
here and nowhere else.
"""

from __future__ import annotations

import builtins
import contextlib

import numpy as np
import torch

from ._torch_autodiff import (  # noqa: F401  (the torch backend's derivative helpers)
    as_parameter,
    detach_all,
    graph_free_loop,
    jacobian,
    recompute,
    value_and_grad,
)
from ._torch_compile import (  # noqa: F401  (the torch backend's compile names)
    abstract,
    compile_function,
    compiling,
    explain_compile,
    mark_trace_constant,
    reset_compiled,
    tracing,
)
from ._torch_fused import accumulate, add_product  # noqa: F401  (in-place fused forms)

name = "torch"
array_types = (torch.Tensor,)

FLOAT_DTYPES = {"float64": torch.float64, "float32": torch.float32}
INT64 = torch.int64
BOOL = torch.bool
_NUMPY_TO_TORCH = {
    np.dtype(np.float64): torch.float64,
    np.dtype(np.float32): torch.float32,
    np.dtype(np.int64): torch.int64,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.bool_): torch.bool,
}


def _operand(value, like):
    """A scalar operand as a tensor with the dtype and device of the tensor ``like``.

    A Python float next to an integer or bool tensor becomes float64, as NumPy
    promotes it (torch alone would give its default dtype, float32).
    """
    if isinstance(value, torch.Tensor):
        return value
    keep_dtype = like.is_floating_point() or not isinstance(value, float)
    dtype = like.dtype if keep_dtype else torch.float64
    return torch.as_tensor(value, dtype=dtype, device=like.device)


def _pair(a, b):
    if isinstance(a, torch.Tensor):
        return a, _operand(b, a)
    return _operand(a, b), b


sqrt, sin, cos, tan = torch.sqrt, torch.sin, torch.cos, torch.tan
arcsin, arccos, arctan = torch.asin, torch.acos, torch.atan
exp, log, abs, sign = torch.exp, torch.log, torch.abs, torch.sign
square, floor = torch.square, torch.floor
isnan, logical_not = torch.isnan, torch.logical_not


def isfinite(x):
    # |x| < inf is False exactly for ±inf and NaN.  torch.isfinite gives the same
    # answer but is ~60x slower on CPU float64 (1.6 ms vs 0.03 ms at 1e5 elements,
    # torch 2.13), and the solvers call it several times per Newton iteration.
    if x.is_floating_point():
        return x.abs() < _INF
    return torch.isfinite(x)


_INF = float("inf")
matmul = torch.matmul


def _binary(fn):
    def binary(a, b):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            return fn(a, b)
        return fn(*_pair(a, b))

    return binary


arctan2, hypot = _binary(torch.atan2), _binary(torch.hypot)


def _copysign(a, b):
    # Autograd of torch.copysign keeps its input and its output for the backward
    # pass; this form keeps a bool mask (and |a|'s input, which callers such as
    # sqrt(...) keep anyway): 15 bytes less per element, the same values.
    if a.requires_grad and torch.is_grad_enabled() and not torch.compiler.is_compiling():
        magnitude = torch.abs(a)
        return torch.where(torch.signbit(b), -magnitude, magnitude)
    return torch.copysign(a, b)


copysign = _binary(_copysign)
maximum, minimum = _binary(torch.maximum), _binary(torch.minimum)
logical_and, logical_or = _binary(torch.logical_and), _binary(torch.logical_or)


_WEAK_SCALARS = (float, int)


def where(cond, a, b):
    if not isinstance(cond, torch.Tensor):
        cond = torch.as_tensor(cond)
    a_tensor, b_tensor = isinstance(a, torch.Tensor), isinstance(b, torch.Tensor)
    if a_tensor and b_tensor:
        return torch.where(cond, a, b)
    # Fast path: torch keeps a floating tensor's dtype for a Python float/int operand.
    if a_tensor and type(b) in _WEAK_SCALARS and a.is_floating_point():
        return torch.where(cond, a, b)
    if b_tensor and type(a) in _WEAK_SCALARS and b.is_floating_point():
        return torch.where(cond, a, b)
    if a_tensor or b_tensor:
        return torch.where(cond, *_pair(a, b))
    a = torch.as_tensor(a, device=cond.device)
    return torch.where(cond, a, torch.as_tensor(b, device=cond.device))


def clip(x, lo=None, hi=None):
    if lo is None and hi is None:
        return x.clone()  # np.clip(x, None, None) is a copy; torch.clamp refuses it
    if isinstance(lo, torch.Tensor) is not isinstance(hi, torch.Tensor):
        # torch.clamp takes two tensor bounds or two numbers, not one of each.
        lo = lo if lo is None else _operand(lo, x)
        hi = hi if hi is None else _operand(hi, x)
    return torch.clamp(x, lo, hi)


def reshape(x, shape):
    return torch.reshape(x, (shape,) if isinstance(shape, int) else tuple(shape))


def broadcast_to(x, shape):
    return torch.broadcast_to(x, (shape,) if isinstance(shape, int) else tuple(shape))


def _dims(axis):
    return () if axis is None else axis


def sum(x, axis=None, keepdims=False):
    if axis is None and not keepdims:
        return torch.sum(x)
    return torch.sum(x, dim=_dims(axis), keepdim=keepdims)


def mean(x, axis=None, keepdims=False):
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(torch.float64)  # NumPy's mean of integers is float64; torch's refuses
    if axis is None and not keepdims:
        return torch.mean(x)
    return torch.mean(x, dim=_dims(axis), keepdim=keepdims)


def max(x, axis=None, keepdims=False):
    return torch.amax(x, dim=_dims(axis), keepdim=keepdims)


def min(x, axis=None, keepdims=False):
    return torch.amin(x, dim=_dims(axis), keepdim=keepdims)


def _all_dims(x, axis):
    return tuple(range(x.ndim)) if axis is None else axis


def all(x, axis=None, keepdims=False):
    if axis is None and not keepdims:
        return torch.all(x)
    return torch.all(x, dim=_all_dims(x, axis), keepdim=keepdims)


def any(x, axis=None, keepdims=False):
    if axis is None and not keepdims:
        return torch.any(x)
    return torch.any(x, dim=_all_dims(x, axis), keepdim=keepdims)


def stack(arrays, axis=0):
    return torch.stack(list(arrays), dim=axis)


def concatenate(arrays, axis=0):
    return torch.cat(list(arrays), dim=axis)


def solve(a, b):
    # NumPy 2 / Array API meaning: ``b`` is a vector only when it is 1-D.  torch
    # would also read a ``b`` of shape a.shape[:-1] as a batch of vectors; a
    # leading broadcast axis makes it a matrix again.
    if b.ndim >= 2 and b.ndim == a.ndim - 1 and b.shape == a.shape[:-1]:
        b = b.unsqueeze(0)
    return torch.linalg.solve(a, b)


def float_dtype(precision):
    return FLOAT_DTYPES[precision]


def _torch_dtype(dtype):
    if dtype is None or isinstance(dtype, torch.dtype):
        return dtype
    return _NUMPY_TO_TORCH[np.dtype(dtype)]


def asarray(obj, dtype=None, device=None, copy=False):
    dtype = _torch_dtype(dtype)
    if isinstance(obj, (list, tuple)) and _holds_tensor(obj):
        # Stack grad-carrying scalars instead of copying their values out; plain
        # numbers beside them take the tensors' float dtype (never torch's float32 default).
        dtype = dtype or _common_float_dtype(obj)
        obj = torch.stack([asarray(o, dtype=dtype, device=device) for o in obj])
    if isinstance(obj, torch.Tensor):
        out = obj.to(dtype=dtype or obj.dtype, device=device or obj.device)
        return out.clone() if copy and out is obj else out
    if isinstance(obj, np.ndarray) and obj.dtype.byteorder not in "=|":
        obj = obj.astype(obj.dtype.newbyteorder("="))
    out = torch.as_tensor(obj, dtype=dtype, device=device)
    return out.clone() if copy else out


def _common_float_dtype(seq):
    dtypes = [t.dtype for t in _tensors(seq) if t.is_floating_point()]
    result = dtypes[0] if dtypes else torch.float64
    for d in dtypes[1:]:
        result = torch.promote_types(result, d)
    return result


def _tensors(seq):
    for o in seq:
        if isinstance(o, torch.Tensor):
            yield o
        elif isinstance(o, (list, tuple)):
            yield from _tensors(o)


def _holds_tensor(seq):
    return builtins.any(
        isinstance(o, torch.Tensor) or (isinstance(o, (list, tuple)) and _holds_tensor(o))
        for o in seq
    )


def creation(fn_name):
    fn = getattr(torch, fn_name)

    def create(*args, dtype, device=None):
        return fn(*args, dtype=_torch_dtype(dtype), device=device)

    return create


zeros, ones, empty = creation("zeros"), creation("ones"), creation("empty")
arange, linspace, eye = creation("arange"), creation("linspace"), creation("eye")


def full(shape, value, dtype, device=None):
    dtype = _torch_dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else shape
    if isinstance(value, torch.Tensor):
        # Keep the result attached to ``value``: its gradient must reach it.
        zeros = torch.zeros(shape, dtype=dtype, device=device)
        return zeros + value.to(dtype=dtype, device=zeros.device)
    return torch.full(shape, value, dtype=dtype, device=device)


def like(fn_name):
    fn = getattr(torch, fn_name)

    def create(x, dtype=None):
        return fn(x, dtype=_torch_dtype(dtype))

    return create


zeros_like, ones_like, empty_like = like("zeros_like"), like("ones_like"), like("empty_like")


def full_like(x, value, dtype=None):
    dtype = _torch_dtype(dtype) or x.dtype
    if isinstance(value, torch.Tensor):
        # Keep the result attached to ``value``: its gradient must reach it.
        return torch.zeros_like(x, dtype=dtype) + value.to(dtype=dtype, device=x.device)
    return torch.full_like(x, value, dtype=dtype)


def astype(x, dtype):
    return x.to(_torch_dtype(dtype))


def is_floating(x):
    return x.is_floating_point()


def finfo(dtype):
    return torch.finfo(_torch_dtype(dtype))


def detach(x):
    return x.detach()


def requires_grad(x):
    return x.requires_grad


grad_enabled = torch.is_grad_enabled
no_grad = torch.no_grad
enable_grad = torch.enable_grad


def select():
    """Nothing to set up when torch is chosen (float64 is asked for per array)."""


def devices():
    found = ["cpu"]
    if torch.cuda.is_available():
        found += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        found.append("mps")
    return found


def device_available(device):
    kind, _, index = device.partition(":")
    if kind in ("cpu", "meta"):
        return True
    if kind == "cuda":
        return torch.cuda.is_available() and int(index or 0) < torch.cuda.device_count()
    return device in devices()


def quiet_float_errors():
    return contextlib.nullcontext()  # torch never warns on inf/nan arithmetic


@contextlib.contextmanager
def intra_op_threads(count=None):
    """The calling thread's intra-op thread count set to ``count`` in the block; yields the
    count before it (``count=None``: unchanged).

    With torch's OpenMP parallel backend (the Linux CPU builds) the setting
    belongs to the calling thread alone (OpenMP's per-thread ``nthreads-var``):
    other threads keep theirs.
    """
    before = torch.get_num_threads()
    if count is None or count == before:
        yield before
        return
    torch.set_num_threads(count)
    try:
        yield before
    finally:
        torch.set_num_threads(before)


def to_numpy(x):
    return x.detach().cpu().numpy()


def scatter(base, mask, values):
    # masked_scatter keeps the gradient paths to both ``base`` and ``values``.
    return base.masked_scatter(mask, values.to(base.dtype))


def device_of(x):
    return str(x.device)


def item(x):
    return x.item()


def owns_dtype(dtype):
    return isinstance(dtype, torch.dtype)
