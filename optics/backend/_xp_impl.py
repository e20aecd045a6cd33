"""The dispatched operations on any other Array API array (array-api-strict, CuPy...)."""

from __future__ import annotations

import contextlib
from types import SimpleNamespace

import numpy as np
from array_api_compat import array_namespace

# Contract name -> Array API name, where they differ.
_RENAMED = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2"}
# The names whose Array API function already has the contract's meaning and signature.
_DIRECT = (
    "sqrt sin cos tan arcsin arccos arctan arctan2 exp log abs sign square floor copysign "
    "hypot maximum minimum isfinite isnan logical_and logical_or logical_not where matmul "
    "zeros_like ones_like empty_like full_like astype finfo"
).split()


def _to_numpy(x):
    """A NumPy array with x's values (DLPack where the array lives on the CPU)."""
    try:
        return np.from_dlpack(x)
    except (TypeError, RuntimeError, BufferError, AttributeError):
        return np.asarray(x)


def _device(xp, device):
    """The library's device object for a contract device string (``device_of``'s)."""
    if device is None or not isinstance(device, str):
        return device
    info = getattr(xp, "__array_namespace_info__", None)
    named = {str(d): d for d in info().devices()} if info is not None else {}
    return named.get(device, device)


def impl_for(x):
    """A namespace with the contract's names for the array type of ``x``."""
    xp = array_namespace(x)
    ops = {n: getattr(xp, _RENAMED.get(n, n)) for n in _DIRECT}

    def binary(fn):
        def call(a, b):
            like = a if hasattr(a, "dtype") else b
            a = a if hasattr(a, "dtype") else xp.asarray(a, dtype=like.dtype, device=like.device)
            b = b if hasattr(b, "dtype") else xp.asarray(b, dtype=like.dtype, device=like.device)
            return fn(a, b)

        return call

    for n in ("arctan2", "copysign", "hypot", "maximum", "minimum"):
        ops[n] = binary(ops[n])

    def reduce(fn):
        return lambda x, axis=None, keepdims=False: fn(x, axis=axis, keepdims=keepdims)

    for n in ("sum", "mean", "max", "min", "all", "any"):
        ops[n] = reduce(getattr(xp, n))
    ops.update(
        name=xp.__name__,
        clip=lambda x, lo=None, hi=None: xp.clip(x, min=lo, max=hi),
        stack=lambda arrays, axis=0: xp.stack(list(arrays), axis=axis),
        concatenate=lambda arrays, axis=0: xp.concat(list(arrays), axis=axis),
        reshape=lambda x, shape: xp.reshape(
            x, (shape,) if isinstance(shape, int) else tuple(shape)
        ),
        broadcast_to=lambda x, shape: xp.broadcast_to(x, tuple(shape)),
        solve=lambda a, b: xp.linalg.solve(a, b),
        is_floating=lambda x: xp.isdtype(x.dtype, "real floating"),
        detach=lambda x: x,
        requires_grad=lambda x: False,
        no_grad=contextlib.nullcontext,
        enable_grad=contextlib.nullcontext,
        device_of=lambda x: str(x.device),
        asarray=lambda obj, dtype=None, device=None, copy=False: xp.asarray(
            obj, dtype=dtype, device=_device(xp, device), copy=True if copy else None
        ),
        BOOL=xp.bool,
        INT64=xp.int64,
        float_dtype=lambda precision: getattr(xp, precision),
        to_numpy=_to_numpy,
        item=lambda x: _to_numpy(x).item(),
    )
    return SimpleNamespace(**ops)
