"""PyTorch implementation of the backend operations, its derivatives and fused forms.

Each name means what its NumPy namesake in _numpy_impl does; where torch differs
(scalar operands, reductions, ``max`` returning tuples) it is adapted here only.
"""

from __future__ import annotations

import builtins
import contextlib
import functools

import numpy as np
import torch
from torch.utils.checkpoint import checkpoint

# NumPy's loop, identity and no-op select serve torch too (the callers hold no_grad).
from ._numpy_impl import detach_all, graph_free_loop, select  # noqa: F401
from ._torch_compile import (  # noqa: F401  (the torch backend's compile names)
    abstract,
    compile_function,
    compiling,
    explain_compile,
    mark_trace_constant,
    reset_compiled,
    tracing,
)

name = "torch"
array_types = (torch.Tensor,)

FLOAT_DTYPES = {"float64": torch.float64, "float32": torch.float32}
INT64 = torch.int64
BOOL = torch.bool
_NUMPY_TO_TORCH = {
    np.dtype(n): getattr(torch, n) for n in ("float64", "float32", "int64", "int32", "bool")
}


def _operand(value, like):
    """A scalar as a tensor with ``like``'s dtype and device."""
    if isinstance(value, torch.Tensor):
        return value
    # A float next to an int or bool tensor is float64 as in NumPy (torch alone: float32).
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
isnan, logical_not, matmul = torch.isnan, torch.logical_not, torch.matmul
is_floating, detach = torch.is_floating_point, torch.detach


def item(x):
    return x.item()  # looked up per call: be.count_host_reads patches Tensor.item


grad_enabled, no_grad, enable_grad = torch.is_grad_enabled, torch.no_grad, torch.enable_grad
quiet_float_errors = contextlib.nullcontext  # torch never warns on inf/nan arithmetic
_INF = float("inf")


def isfinite(x):
    # |x| < inf is False only for ±inf and NaN; torch.isfinite is ~60x slower (CPU, torch 2.13).
    if x.is_floating_point():
        return x.abs() < _INF
    return torch.isfinite(x)


def _binary(fn):
    def binary(a, b):
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            return fn(a, b)
        return fn(*_pair(a, b))

    return binary


arctan2, hypot = _binary(torch.atan2), _binary(torch.hypot)


def _copysign(a, b):
    # Autograd keeps a bool mask, not copysign's input and output: 15 bytes less per element.
    if a.requires_grad and torch.is_grad_enabled() and not torch.compiler.is_compiling():
        magnitude = torch.abs(a)
        return torch.where(torch.signbit(b), -magnitude, magnitude)
    return torch.copysign(a, b)


copysign = _binary(_copysign)
maximum, minimum = _binary(torch.maximum), _binary(torch.minimum)
logical_and, logical_or = _binary(torch.logical_and), _binary(torch.logical_or)


def where(cond, a, b):
    if not isinstance(cond, torch.Tensor):
        cond = torch.as_tensor(cond)
    a_tensor, b_tensor = isinstance(a, torch.Tensor), isinstance(b, torch.Tensor)
    # Fast path: torch keeps a floating tensor's dtype for a Python float/int operand.
    if a_tensor and (b_tensor or (type(b) in (float, int) and a.is_floating_point())):
        return torch.where(cond, a, b)
    if b_tensor and type(a) in (float, int) and b.is_floating_point():
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


def _reduction(fn):
    # amax/amin, not max/min (which return values and indices); torch.all/any take no dim=().
    def reduce(x, axis=None, keepdims=False):
        if axis is None and not keepdims:
            return fn(x)
        return fn(x, dim=tuple(range(x.ndim)) if axis is None else axis, keepdim=keepdims)

    return reduce


sum, max, min = _reduction(torch.sum), _reduction(torch.amax), _reduction(torch.amin)
all, any, _mean = _reduction(torch.all), _reduction(torch.any), _reduction(torch.mean)


def mean(x, axis=None, keepdims=False):
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(torch.float64)  # NumPy's mean of integers is float64; torch's refuses
    return _mean(x, axis, keepdims)


def stack(arrays, axis=0):
    return torch.stack(list(arrays), dim=axis)


def concatenate(arrays, axis=0):
    return torch.cat(list(arrays), dim=axis)


def solve(a, b):
    # A b of shape a.shape[:-1] is a matrix (NumPy 2), not torch's batch of vectors: add an axis.
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
    if isinstance(obj, (list, tuple)) and next(_tensors(obj), None) is not None:
        # Stacked, not copied out (gradients kept); numbers beside take the tensors' float dtype.
        if dtype is None:
            floats = [t.dtype for t in _tensors(obj) if t.is_floating_point()]
            dtype = functools.reduce(torch.promote_types, floats) if floats else torch.float64
        obj = torch.stack([asarray(o, dtype=dtype, device=device) for o in obj])
    if isinstance(obj, torch.Tensor):
        out = obj.to(dtype=dtype or obj.dtype, device=device or obj.device)
        return out.clone() if copy and out is obj else out
    if isinstance(obj, np.ndarray) and obj.dtype.byteorder not in "=|":
        obj = obj.astype(obj.dtype.newbyteorder("="))
    out = torch.as_tensor(obj, dtype=dtype, device=device)
    return out.clone() if copy else out


def _tensors(seq):
    for o in seq:
        if isinstance(o, torch.Tensor):
            yield o
        elif isinstance(o, (list, tuple)):
            yield from _tensors(o)


def creation(fn_name):
    fn = getattr(torch, fn_name)

    def create(*args, dtype=None, device=None):
        return fn(*args, dtype=_torch_dtype(dtype), device=device)

    return create


zeros, ones, empty = creation("zeros"), creation("ones"), creation("empty")
arange, linspace, eye = creation("arange"), creation("linspace"), creation("eye")
zeros_like, ones_like, empty_like = map(creation, ("zeros_like", "ones_like", "empty_like"))


def full(shape, value, dtype, device=None):
    dtype = _torch_dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else shape
    if isinstance(value, torch.Tensor):
        # Keep the result attached to ``value``: its gradient must reach it.
        zeros = torch.zeros(shape, dtype=dtype, device=device)
        return zeros + value.to(dtype=dtype, device=zeros.device)
    return torch.full(shape, value, dtype=dtype, device=device)


def full_like(x, value, dtype=None):
    return full(x.shape, value, _torch_dtype(dtype) or x.dtype, x.device)


def astype(x, dtype):
    return x.to(_torch_dtype(dtype))


def finfo(dtype):
    return torch.finfo(_torch_dtype(dtype))


def requires_grad(x):
    return x.requires_grad


def devices():
    found = ["cpu"]
    if torch.cuda.is_available():
        found += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        found.append("mps")
    return found


def device_available(device):
    kind, _, index = device.partition(":")
    if kind == "cuda":
        return torch.cuda.is_available() and int(index or 0) < torch.cuda.device_count()
    return kind in ("cpu", "meta") or device in devices()


@contextlib.contextmanager
def intra_op_threads(count=None):
    """The intra-op thread count set to ``count`` in the block (None: unchanged); yields the old."""
    # With OpenMP (torch's Linux CPU builds) the count is per thread: other threads keep theirs.
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


def owns_dtype(dtype):
    return isinstance(dtype, torch.dtype)


def _leaves(arrays):
    return [a.detach().clone().requires_grad_(True) for a in arrays]


def _zero_filled(leaves, grads):
    return [torch.zeros_like(a) if g is None else g for a, g in zip(leaves, grads)]


def value_and_grad(fn, arrays):
    """fn(*arrays) (a 0-d tensor) and its gradient with respect to each array."""
    leaves = _leaves(arrays)
    with torch.enable_grad():
        out = fn(*leaves)
        if not out.requires_grad:  # no array reaches the output: zero gradient
            return out.detach(), [torch.zeros_like(a) for a in leaves]
        grads = torch.autograd.grad(out, leaves, allow_unused=True)
    return out.detach(), _zero_filled(leaves, grads)


def jacobian(fn, arrays):
    """fn(*arrays) (1-D, length m) and d out_i / d array_j as a list over j of (m, *shape_j)."""
    leaves, rows = _leaves(arrays), []
    with torch.enable_grad():
        out = fn(*leaves)
        m = out.shape[0]
        for i in range(m if out.requires_grad else 0):  # else: zero columns
            grads = torch.autograd.grad(out[i], leaves, retain_graph=i < m - 1, allow_unused=True)
            rows.append(_zero_filled(leaves, grads))
    columns = [
        torch.stack([row[j] for row in rows]) if rows else a.new_zeros((m, *a.shape))
        for j, a in enumerate(leaves)
    ]
    return out.detach(), columns


def as_parameter(x):
    return x.detach().requires_grad_(True)


def recompute(fn, *arrays):
    """``fn(*arrays)``, keeping only ``arrays`` for the backward pass, which runs ``fn`` again."""
    # Non-reentrant: closed-over tensors get gradients too; compiled graphs choose what to keep.
    if not torch.is_grad_enabled() or torch.compiler.is_compiling():
        return fn(*arrays)
    return checkpoint(fn, *arrays, use_reentrant=False, preserve_rng_state=False)


def accumulate(total, term, weight):
    """``total + weight * term``, in place outside autograd and compiled graphs."""
    weight_grad = getattr(weight, "requires_grad", False)
    if (
        torch.compiler.is_compiling()
        or not isinstance(term, torch.Tensor)
        or term.shape != total.shape
        or term.dtype != total.dtype
        or not total.is_floating_point()
        or (torch.is_grad_enabled() and (total.requires_grad or term.requires_grad or weight_grad))
    ):
        return total + weight * term
    if isinstance(weight, (int, float)):
        return total.add_(term, alpha=weight) if weight != 1 else total.add_(term)
    return total.add_(term * weight)


def add_product(a, t, b):
    """``a + t * b``: one fused ``addcmul`` outside autograd and compiled graphs."""
    tensors = [v for v in (a, t, b) if isinstance(v, torch.Tensor)]
    if (
        torch.compiler.is_compiling()
        or (torch.is_grad_enabled() and builtins.any(v.requires_grad for v in tensors))
        or not isinstance(a, torch.Tensor)
        or len({v.dtype for v in tensors}) != 1
        or len({v.device for v in tensors}) != 1
    ):
        return a + t * b
    if not isinstance(t, torch.Tensor):
        return torch.add(a, b, alpha=t) if isinstance(b, torch.Tensor) else a + t * b
    if not isinstance(b, torch.Tensor):
        return torch.add(a, t, alpha=b)
    return torch.addcmul(a, t, b)
