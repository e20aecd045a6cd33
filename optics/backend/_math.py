"""Math on arrays, dispatched on the arrays received (one meaning per name)."""

from __future__ import annotations

from ._dispatch import _BY_TYPE, impl_of, impl_of_all, resolve, scalar_array

_UNARY_DOCS = {
    "sqrt": "Square root.",
    "sin": "Sine of angles in radians.",
    "cos": "Cosine of angles in radians.",
    "tan": "Tangent of angles in radians.",
    "arcsin": "Inverse sine, radians.",
    "arccos": "Inverse cosine, radians.",
    "arctan": "Inverse tangent, radians.",
    "exp": "Exponential.",
    "log": "Natural logarithm.",
    "abs": "Absolute value.",
    "sign": "Sign (-1, 0 or 1).",
    "square": "Elementwise square.",
    "floor": "Largest integer not above x (as the input dtype).",
    "isfinite": "True where x is neither infinite nor NaN.",
    "isnan": "True where x is NaN.",
    "logical_not": "Elementwise logical not.",
}
_BINARY_DOCS = {
    "arctan2": "Quadrant-aware arctan(y / x), radians.",
    "copysign": "Magnitude of a with the sign of b.",
    "hypot": "sqrt(a**2 + b**2) without overflow.",
    "maximum": "Elementwise maximum (propagates NaN).",
    "minimum": "Elementwise minimum (propagates NaN).",
    "logical_and": "Elementwise logical and.",
    "logical_or": "Elementwise logical or.",
}
_REDUCTION_DOCS = {
    "sum": "Sum over ``axis`` (all axes when None); returns an array (of a bool array: a count).",
    "mean": "Mean over ``axis``; NaN propagates on every backend.",
    "max": "Maximum over ``axis``; keeps the gradient on torch.",
    "min": "Minimum over ``axis``; keeps the gradient on torch.",
    "all": "True when every element along ``axis`` is true.",
    "any": "True when any element along ``axis`` is true.",
}
__all__ = [*_UNARY_DOCS, *_BINARY_DOCS, *_REDUCTION_DOCS]
__all__ += "where clip stack concatenate reshape broadcast_to matmul solve scatter".split()


def _unary(name):
    def op(x):
        impl = _BY_TYPE.get(type(x))
        if impl is None:
            impl = resolve(x)
        return getattr(impl, name)(x)

    return op


def _binary(name):
    def op(a, b):
        impl = _BY_TYPE.get(type(a))
        if impl is None or impl is not _BY_TYPE.get(type(b)):
            impl = impl_of_all(a, b)
        return getattr(impl, name)(a, b)

    return op


def _reduction(name):
    def op(x, axis=None, keepdims=False):
        impl = impl_of(x)
        if name == "sum" and getattr(x, "dtype", None) == impl.BOOL:
            x = impl.astype(x, impl.INT64)  # a count (the Array API sums numbers only)
        return getattr(impl, name)(x, axis=axis, keepdims=keepdims)

    return op


for _make, _docs in ((_unary, _UNARY_DOCS), (_binary, _BINARY_DOCS), (_reduction, _REDUCTION_DOCS)):
    for _name, _doc in _docs.items():
        _op = globals()[_name] = _make(_name)
        _op.__name__ = _op.__qualname__ = _name
        _op.__doc__ = _doc


_PY_SCALARS = frozenset((float, int, bool))


def where(cond, a, b):
    """``a`` where ``cond`` else ``b``; a Python scalar takes the array operand's dtype and device.

    Two Python floats give the configured precision (an array is never downcast).
    """
    impl = _BY_TYPE.get(type(cond))
    a_scalar, b_scalar = type(a) in _PY_SCALARS, type(b) in _PY_SCALARS
    if (
        impl is None
        or not (a_scalar or _BY_TYPE.get(type(a)) is impl)
        or not (b_scalar or _BY_TYPE.get(type(b)) is impl)
    ):
        impl = impl_of_all(cond, a, b)
    if a_scalar and b_scalar:
        device = impl.device_of(cond)  # the contract's device string, not a library's object
        a, b = scalar_array(impl, a, device), scalar_array(impl, b, device)
    return impl.where(cond, a, b)


def clip(x, lo=None, hi=None):
    """Limit x to [lo, hi]; either bound may be None."""
    return impl_of_all(x, lo, hi).clip(x, lo, hi)


def stack(arrays, axis=0):
    """Join same-shaped arrays along a new axis."""
    arrays = list(arrays)
    return impl_of_all(*arrays).stack(arrays, axis=axis)


def concatenate(arrays, axis=0):
    """Join arrays along an existing axis."""
    arrays = list(arrays)
    return impl_of_all(*arrays).concatenate(arrays, axis=axis)


def reshape(x, shape):
    """Array with the same data and a new shape."""
    return impl_of(x).reshape(x, shape)


def broadcast_to(x, shape):
    """Read-only view of x broadcast to ``shape``."""
    return impl_of(x).broadcast_to(x, shape)


def matmul(a, b):
    """Matrix product with NumPy broadcasting rules."""
    return impl_of_all(a, b).matmul(a, b)


def solve(a, b):
    """x solving the batched dense system a @ x = b, ``a`` of shape (..., M, M).

    ``b`` is a vector only when 1-D, (M,); otherwise matrices (..., M, K), as in NumPy 2
    and the Array API (a batch of vectors (..., M): pass ``b[..., None]``).
    """
    return impl_of_all(a, b).solve(a, b)


def scatter(base, mask, values):
    """Copy of ``base`` with ``values`` written, in order, where ``mask`` is true.

    How work on a gathered subset ``x[mask]`` is put back; gradients reach both ``base``
    (outside the mask) and ``values``.
    """
    return impl_of_all(base, values).scatter(base, mask, values)
