"""Small vector algebra on component tuples (x, y, z) of ray-shaped arrays."""

from __future__ import annotations

from .. import accel
from .. import backend as be


def dot(a, b):
    """a · b of two component tuples."""
    return accel.add_product(accel.add_product(a[0] * b[0], a[1], b[1]), a[2], b[2])


def cross(a, b):
    """a × b of two component tuples."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def unit_normal_to(a, b, fallback=None):
    """The unit vector along a × b; where a ∥ b (|a × b|² <= eps), a unit vector ⊥ a.

    ``a`` is a unit vector.  The fallback is ``fallback`` when given (a unit vector ⊥ a,
    e.g. the previous interface's s), else a × x̂ (a × ŷ where a is near x̂), so that the
    result is defined, finite and differentiable for every ray.
    """
    c = cross(a, b)
    norm2 = dot(c, c)
    parallel = norm2 <= be.machine_eps(norm2)
    if fallback is None:
        near_x = be.abs(a[0]) > 0.9
        ex = be.where(near_x, 0.0, 1.0)
        ey = 1.0 - ex
        other = (-a[2] * ey, a[2] * ex, a[0] * ey - a[1] * ex)  # a × (ex, ey, 0)
        inv_other = 1.0 / be.sqrt(dot(other, other))
        fallback = tuple(v * inv_other for v in other)
    inv = 1.0 / be.sqrt(be.where(parallel, 1.0, norm2))
    return tuple(be.where(parallel, f, v * inv) for f, v in zip(fallback, c))
