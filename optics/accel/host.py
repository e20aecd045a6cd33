"""Scalar work on constants evaluated with NumPy, its results handed to the configured backend.

On JAX each scalar operation is a dispatch of tens of µs; first-order data of a plain-number
system, a few dozen of them, cost microseconds on NumPy instead (docs/backend.md).
"""

from __future__ import annotations

import numpy as np

from .. import backend as be


def on_host(fn, *args):
    """``fn(*args)``, on NumPy in float64 when the backend dispatches slowly and nothing is lost.

    Parameters
    ----------
    fn : callable
        Backend-neutral code (written against ``be``).
    *args
        Its arguments.  The host path needs the ``slow_dispatch`` capability (jax), no graph
        compiling and no backend array (a parameter, a tracer) in ``args`` (lists, tuples,
        dicts, dataclasses and optics objects are searched); the NumPy arrays of the result
        then become arrays of the configured backend and precision.
    """
    if not be.capabilities().slow_dispatch:
        return fn(*args)  # NumPy itself, or dispatch too cheap to repay the search (torch)
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
    return obj if fields is None else be.with_fields(obj, {k: _to_backend(v) for k, v in fields})
