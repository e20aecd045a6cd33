"""Array creation on the configured backend, precision queries and conversion."""

from __future__ import annotations

import numpy as np

from . import _config, _registry
from ._dispatch import configured, impl_of, resolve

__all__ = (
    "asarray array zeros ones empty full arange linspace eye zeros_like ones_like empty_like "
    "full_like astype float_dtype finfo machine_eps is_array to_numpy item size backend_of "
    "device_of"
).split()


def _target(device):
    """(implementation, device argument) for new arrays of the configured backend."""
    impl = configured()
    if _registry.info(impl.name).device_kinds == ("cpu",):
        return impl, device  # a CPU-only library ignores the configured device
    return impl, device if device is not None else _config.get_device()


def float_dtype():
    """The configured backend's float dtype for the configured precision."""
    return configured().float_dtype(_config.get_precision())


def _default_dtype(impl, dtype):
    return impl.float_dtype(_config.get_precision()) if dtype is None else dtype


def is_array(x) -> bool:
    """True for a NumPy array, a torch tensor, a JAX array (or any Array API array)."""
    if isinstance(x, np.ndarray):
        return True
    try:
        impl = resolve(x)
    except TypeError:
        return False
    return not isinstance(x, (int, float, complex, list, tuple)) and hasattr(impl, "name")


def asarray(obj, dtype=None, device=None):
    """Convert ``obj`` to an array of the configured backend (no copy when possible).

    Arrays keep their dtype; Python floats (and lists of them) take the configured
    precision.  A list of grad-carrying tensors is stacked without detaching.
    """
    return _convert(obj, dtype, device)


def array(obj, dtype=None, device=None):
    """Like :func:`asarray`, but always a new array."""
    return _convert(obj, dtype, device, copy=True)


def _convert(obj, dtype, device, **copy):
    impl, device = _target(device)
    if dtype is None:
        dtype = _float_dtype_of(impl, obj)
    return impl.asarray(obj, dtype=dtype, device=device, **copy)


def _float_dtype_of(impl, obj):
    """The configured float dtype for Python floats (and lists of them), else None (kept)."""
    # A float first, without the NumPy probe: TorchDynamo cannot trace one.
    if isinstance(obj, float) or (not _holds_array(obj) and np.asarray(obj).dtype.kind == "f"):
        return _default_dtype(impl, None)
    return None


def _holds_array(obj):
    if isinstance(obj, (list, tuple)):
        return any(_holds_array(o) for o in obj)
    return hasattr(obj, "dtype") and not isinstance(obj, np.generic)


def zeros(shape, dtype=None, device=None):
    """Array of zeros; float of the configured precision unless ``dtype`` says otherwise."""
    impl, device = _target(device)
    return impl.zeros(shape, dtype=_default_dtype(impl, dtype), device=device)


def ones(shape, dtype=None, device=None):
    """Array of ones (configured float precision by default)."""
    impl, device = _target(device)
    return impl.ones(shape, dtype=_default_dtype(impl, dtype), device=device)


def empty(shape, dtype=None, device=None):
    """Uninitialised array (configured float precision by default)."""
    impl, device = _target(device)
    return impl.empty(shape, dtype=_default_dtype(impl, dtype), device=device)


def full(shape, value, dtype=None, device=None):
    """Array filled with ``value``; a grad-carrying tensor value stays attached."""
    impl, device = _target(device)
    return impl.full(shape, value, dtype=_default_dtype(impl, dtype), device=device)


def arange(start, stop=None, step=1, dtype=None, device=None):
    """Evenly spaced values in [start, stop); integer dtype for integer arguments."""
    impl, device = _target(device)
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        floats = any(isinstance(v, float) for v in (start, stop, step))
        dtype = impl.float_dtype(_config.get_precision()) if floats else impl.INT64
    return impl.arange(start, stop, step, dtype=dtype, device=device)


def linspace(start, stop, num, dtype=None, device=None):
    """``num`` evenly spaced values from start to stop inclusive."""
    impl, device = _target(device)
    return impl.linspace(start, stop, num, dtype=_default_dtype(impl, dtype), device=device)


def eye(n, dtype=None, device=None):
    """n x n identity matrix."""
    impl, device = _target(device)
    return impl.eye(n, dtype=_default_dtype(impl, dtype), device=device)


def zeros_like(x, dtype=None):
    """Zeros with the shape, dtype and device of x."""
    return impl_of(x).zeros_like(x, dtype=dtype)


def ones_like(x, dtype=None):
    """Ones with the shape, dtype and device of x."""
    return impl_of(x).ones_like(x, dtype=dtype)


def empty_like(x, dtype=None):
    """Uninitialised array with the shape, dtype and device of x."""
    return impl_of(x).empty_like(x, dtype=dtype)


def full_like(x, value, dtype=None):
    """Array shaped like x filled with ``value`` (a grad-carrying tensor value stays attached)."""
    return impl_of(x).full_like(x, value, dtype=dtype)


def astype(x, dtype):
    """x converted to ``dtype`` (no copy when it already has it)."""
    return impl_of(x).astype(x, dtype)


_EPS_CACHE: dict = {}


def finfo(x):
    """The library's finfo (``eps``, ``max``, ``tiny``) of an array's dtype or of a dtype.

    ``x`` may also be a dtype class (``np.float32``) or a Python float (float64).
    """
    if isinstance(x, (float, int)) or x is float or x is int:
        return np.finfo(np.float64)
    if isinstance(x, (type, np.dtype)):  # np.float32, np.dtype("float32")
        return np.finfo(x)
    dtype = getattr(x, "dtype", x)
    for impl in _registry.loaded():
        if impl.owns_dtype(dtype):
            return impl.finfo(dtype)
    if isinstance(dtype, np.dtype) or dtype is x:
        return np.finfo(dtype)
    return impl_of(x).finfo(dtype)  # any other Array API array


def machine_eps(x) -> float:
    """Machine epsilon of x's float dtype (2**-52 float64 and Python floats, 2**-23 float32)."""
    if isinstance(x, (float, int)):
        x = float
    dtype = x if isinstance(x, type) else getattr(x, "dtype", x)
    key = (type(dtype), dtype)  # never compares dtypes of two libraries with each other
    eps = _EPS_CACHE.get(key)
    if eps is None:
        eps = _EPS_CACHE[key] = float(finfo(x).eps)
    return eps


def to_numpy(x):
    """A NumPy copy/view of x, detached from any graph (for I/O and plots only)."""
    if isinstance(x, np.ndarray):
        return x
    if isinstance(x, (int, float, list, tuple, np.generic)):
        return np.asarray(x)
    return impl_of(x).to_numpy(x)


def item(x) -> float:
    """The value of a one-element array as a Python number (a host sync on GPUs)."""
    if isinstance(x, (int, float)):
        return x
    return impl_of(x).item(x)


def size(x) -> int:
    """Number of elements of x."""
    n = 1
    for d in x.shape:
        n *= int(d)
    return n


def backend_of(x) -> str:
    """Name of the backend whose arrays x is ("numpy", "torch", "jax"; tracers included)."""
    return impl_of(x).name


def device_of(x) -> str:
    """Device of an array as a string ("cpu" for NumPy)."""
    return impl_of(x).device_of(x)
