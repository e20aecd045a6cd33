"""Small vector algebra on component tuples (x, y, z) of ray-shaped arrays."""

from __future__ import annotations

from .. import backend as be


def dot(a, b):
    """a · b of two component tuples."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a, b):
    """a × b of two component tuples."""
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def unit_normal_to(a, b):
    """The unit vector along a × b; where a ∥ b (|a × b|² <= eps), a unit vector ⊥ a.

    ``a`` is a unit vector; the fallback is a × x̂ (a × ŷ where a is near x̂), so that the
    result is defined, finite and differentiable for every ray.
    """
    c = cross(a, b)
    norm2 = dot(c, c)
    parallel = norm2 <= be.machine_eps(norm2)
    near_x = be.abs(a[0]) > 0.9
    ex = be.where(near_x, 0.0, 1.0)
    ey = 1.0 - ex
    fallback = (-a[2] * ey, a[2] * ex, a[0] * ey - a[1] * ex)  # a × (ex, ey, 0)
    c = tuple(be.where(parallel, f, v) for f, v in zip(fallback, c))
    inv = 1.0 / be.sqrt(be.where(parallel, dot(fallback, fallback), norm2))
    return tuple(v * inv for v in c)


def apply_dyads(terms, A=None):
    """``sum_j w_j u_j v_jᵀ @ A`` as a nested 3x3 tuple; ``terms``: (w, u, v) triples.

    ``A`` is a nested 3x3 tuple of arrays (None: the identity); ``w`` scalars or arrays.
    """
    rows = []
    for w, u, v in terms:
        if A is None:
            row = v
        else:
            row = tuple(v[0] * A[0][c] + v[1] * A[1][c] + v[2] * A[2][c] for c in range(3))
        wu = tuple(w * x for x in u)
        rows.append((wu, row))
    return tuple(
        tuple(sum(wu[r] * row[c] for wu, row in rows[1:]) + rows[0][0][r] * rows[0][1][c]
              for c in range(3))
        for r in range(3)
    )
