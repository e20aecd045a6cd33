"""Small vector algebra on component tuples (x, y, z) of ray-shaped arrays."""

from __future__ import annotations

from .. import accel
from .. import backend as be


def dot(a, b):
    """a · b of two component tuples (plain products: cheaper here than a fused update)."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    """a × b of two component tuples."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def none_true(mask) -> bool:
    """True when ``mask`` is known to hold no True element from a read that waits for nothing.

    False where the read would wait for an accelerator or cannot happen (a graph compiler
    tracing): the caller then keeps its masked (``be.where``) path, which gives the same
    values.
    """
    if be.is_compiling(mask) or not accel.host_reads_cheap(mask):
        return False
    return not bool(be.item(be.any(mask)))


def unit_normal_to(a, b, fallback=None):
    """The unit vector along a × b; where a ∥ b (|a × b|² <= eps), a unit vector ⊥ a.

    ``a`` is a unit vector.  The fallback is ``fallback`` when given (a unit vector ⊥ a,
    e.g. the previous interface's s), else a × x̂ (a × ŷ where a is near x̂), so that the
    result is defined, finite and differentiable for every ray.
    """
    return unit_normal_and_scale(a, b, fallback)[0]


def unit_normal_and_scale(a, b, fallback=None):
    """(:func:`unit_normal_to`, 1/|a × b|, 0 where a ∥ b) of two component tuples.

    The scale turns a component along a × b into one along the unit normal without a
    second square root (``polarization_trace`` reads the rotation between planes of
    incidence from it).
    """
    c = cross(a, b)
    norm2 = dot(c, c)
    parallel = norm2 <= be.machine_eps(norm2)
    if none_true(parallel):  # the common case on the CPU: no mask to apply
        inv = 1.0 / be.sqrt(norm2)
        return tuple(v * inv for v in c), inv
    if fallback is None:
        near_x = be.abs(a[0]) > 0.9
        ex = be.where(near_x, 0.0, 1.0)
        ey = 1.0 - ex
        other = (-a[2] * ey, a[2] * ex, a[0] * ey - a[1] * ex)  # a × (ex, ey, 0)
        inv_other = 1.0 / be.sqrt(dot(other, other))
        fallback = tuple(v * inv_other for v in other)
    inv = 1.0 / be.sqrt(be.where(parallel, 1.0, norm2))
    unit = tuple(be.where(parallel, f, v * inv) for f, v in zip(fallback, c))
    return unit, be.where(parallel, 0.0, inv)
