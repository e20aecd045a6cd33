"""Find the implementation module for the arrays an operation receives."""

from __future__ import annotations

import functools
import numbers

import numpy as np

from . import _config, _registry
from . import _numpy_impl as numpy_impl

#: The fast path, one lookup per call; resolve() adds each new array type once.
_BY_TYPE: dict[type, object] = {np.ndarray: numpy_impl}


def _forget(impl):
    for kind in [k for k, v in _BY_TYPE.items() if v is impl]:
        del _BY_TYPE[kind]


_registry.FORGET_HOOKS.append(_forget)


def configured():
    """Implementation of the configured backend (used for creation)."""
    return _registry.load(_config.get_backend())


def _is_scalar(x):
    return isinstance(x, numbers.Number) and not isinstance(x, np.generic)


def resolve(x):
    """Implementation for one operand (slow path of :func:`impl_of`)."""
    if _is_scalar(x):
        return _scalar_wrapper(configured())
    if isinstance(x, (np.ndarray, np.generic)):
        _BY_TYPE[type(x)] = numpy_impl
        return numpy_impl
    for impl in _registry.loaded():
        if isinstance(x, impl.array_types):
            _BY_TYPE[type(x)] = impl
            return impl
    if isinstance(x, (list, tuple)):
        return configured()
    try:
        from . import _xp_impl

        impl = _xp_impl.impl_for(x)
    except TypeError as exc:
        raise TypeError(f"optics.backend cannot operate on {type(x).__name__} objects") from exc
    _BY_TYPE[type(x)] = impl
    return impl


def impl_of(x):
    """Implementation for a single array argument."""
    impl = _BY_TYPE.get(type(x))
    return impl if impl is not None else resolve(x)


def impl_of_all(*xs):
    """Implementation shared by several operands (scalars adapt); TypeError when they mix."""
    found, found_type = None, None
    for x in xs:
        if x is None or _is_scalar(x):
            continue
        impl = impl_of(x)
        if found is None:
            found, found_type = impl, type(x)
        elif impl is not found and getattr(impl, "name", None) != getattr(found, "name", None):
            raise TypeError(
                f"cannot mix array types {found_type.__module__}.{found_type.__name__} and "
                f"{type(x).__module__}.{type(x).__name__} in one operation; convert one with "
                "optics.backend.asarray"
            )
    return found if found is not None else _scalar_wrapper(configured())


def impls_of(xs):
    """The distinct implementations of the arrays among ``xs`` (scalars and None skipped)."""
    out = []
    for x in xs:
        if x is None or _is_scalar(x):
            continue
        impl = impl_of(x)
        if impl not in out:
            out.append(impl)
    return out


class _ScalarOps:
    """Wraps an implementation so Python-scalar arguments become arrays first."""

    def __init__(self, impl):
        self._impl = impl
        self.name = impl.name

    def __getattr__(self, attr):
        fn, impl = getattr(self._impl, attr), self._impl

        def call(*args, **kwargs):
            return fn(*[scalar_array(impl, a) if _is_scalar(a) else a for a in args], **kwargs)

        return call


def scalar_array(impl, value, device=None):
    """A Python scalar as an array of ``impl``; a float takes the configured precision."""
    dtype = impl.float_dtype(_config.get_precision()) if isinstance(value, float) else None
    return impl.asarray(value, dtype=dtype, device=device)


@functools.cache
def _scalar_wrapper(impl):
    return _ScalarOps(impl)
