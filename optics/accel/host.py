"""Scalar work on constants evaluated with NumPy, its results handed to the configured backend.

First-order data of a system whose parameters are plain numbers are a few
dozen scalar operations.  On JAX each is a dispatch of tens of µs (a jitted
trace at 10^6 rays spent 2-3 ms of its 35 ms there); with NumPy the same
arithmetic costs microseconds.  :func:`on_host` runs such a function with the
NumPy backend when the configured backend dispatches slowly (the
``slow_dispatch`` capability: jax; on torch, a few µs per operation, the
search of the inputs costs more than it saves) and its inputs hold no array
of another backend (nothing to differentiate, nothing on a device), then
converts the array results once.  Inputs holding backend arrays (trainable
parameters, tracers) run on their backend as before, with derivatives."""

from __future__ import annotations

import numpy as np

from .. import backend as be


def on_host(fn, *args):
    """``fn(*args)``, with NumPy in float64 when ``args`` hold only numbers and NumPy arrays
    and the configured backend dispatches slowly (the ``slow_dispatch`` registry
    capability: jax).

    Parameters
    ----------
    fn : callable
        Backend-neutral code (written against ``be``).
    *args
        Its arguments; lists, tuples, dicts, dataclasses and optics objects
        are searched for backend arrays.

    Returns
    -------
    object
        ``fn``'s result; on the host path every NumPy array inside it (in
        lists, tuples, dicts and dataclasses) becomes an array of the
        configured backend, floats in its configured precision.
    """
    if not be.capabilities().slow_dispatch:
        return fn(*args)  # NumPy itself, or dispatch too cheap to repay the detour
    if be.is_compiling() or _holds_backend_arrays(args, set()):
        return fn(*args)
    with be.using("numpy", precision="float64", device="cpu"):
        result = fn(*args)
    return _to_backend(result)


def _holds_backend_arrays(obj, seen):
    if isinstance(obj, (np.ndarray, np.generic, int, float, complex, str, bytes, type(None))):
        return False
    if be.is_array(obj):
        return True
    if id(obj) in seen:
        return False
    seen.add(id(obj))
    if isinstance(obj, (list, tuple, set, frozenset)):
        return any(_holds_backend_arrays(o, seen) for o in obj)
    if isinstance(obj, dict):
        return any(_holds_backend_arrays(o, seen) for o in obj.values())
    fields = be.fields_of(obj)
    return fields is not None and any(_holds_backend_arrays(v, seen) for _, v in fields)


def _to_backend(obj):
    if isinstance(obj, (np.ndarray, np.generic)):
        # Through Python numbers: they take the configured precision directly, so a
        # float32 configuration never sees a float64 array (small data only).
        return be.asarray(obj.tolist() if obj.ndim else obj.item())
    if type(obj) in (list, tuple):
        return type(obj)(_to_backend(o) for o in obj)
    if type(obj) is dict:
        return {k: _to_backend(v) for k, v in obj.items()}
    fields = be.fields_of(obj)
    if fields is None:
        return obj
    return be.with_fields(obj, {k: _to_backend(v) for k, v in fields})
