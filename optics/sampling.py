"""Pupil sampling patterns in normalized pupil coordinates (unit circle)."""

from __future__ import annotations

import math

import numpy as np

from . import backend as be


def hexapolar(rings: int = 6):
    """The centre plus ring i = 1..R of 6i points at radius i/R, angles 2πj/(6i).

    Returns
    -------
    px, py : array, shape (1 + 3R(R+1),)
    """
    return hexapolar_range(rings, 0, hexapolar_count(rings))


def hexapolar_count(rings: int) -> int:
    """Number of points of :func:`hexapolar` with ``rings`` rings: 1 + 3R(R+1)."""
    if rings < 0:
        raise ValueError(f"rings must be >= 0, not {rings}")
    return 1 + 3 * rings * (rings + 1)


def hexapolar_range(rings: int, start: int, stop: int):
    """Points ``start:stop`` of :func:`hexapolar` (the same values), without the others.

    Lets a chunked trace generate its pupil chunk by chunk: memory grows with
    ``stop - start``, not with the whole pattern.

    Returns
    -------
    px, py : array, shape (stop - start,)
    """
    count = hexapolar_count(rings)
    start, stop = max(0, start), min(stop, count)
    k = np.arange(start, max(start, stop), dtype=np.int64)
    # Ring i (>= 1) holds the points 1 + 3i(i - 1) .. 3i(i + 1) of the pattern.
    i = np.floor((3.0 + np.sqrt(9.0 + 12.0 * np.maximum(k - 1, 0))) / 6.0).astype(np.int64)
    i += 1 + 3 * (i + 1) * i <= k  # exact integer corrections of the float guess
    i -= (1 + 3 * i * (i - 1) > k) & (i > 1)
    i[k == 0] = 0
    j = k - (1 + 3 * i * (i - 1))
    ring = np.maximum(i, 1)
    angles = 2 * np.pi * j.astype(float) / (6 * ring)
    px = np.where(i == 0, 0.0, np.cos(angles) * i / max(rings, 1))
    py = np.where(i == 0, 0.0, np.sin(angles) * i / max(rings, 1))
    return be.asarray(px), be.asarray(py)


def grid(n: int = 32):
    """Points of an n × n square grid over [−1, 1]² that lie inside the unit circle."""
    axis = np.linspace(-1.0, 1.0, n)
    gx, gy = np.meshgrid(axis, axis)
    inside = gx**2 + gy**2 <= 1.0 + 4 * np.finfo(float).eps
    return be.asarray(gx[inside]), be.asarray(gy[inside])


def random(n: int = 1000, seed: int | None = 0):
    """n points uniform over the unit disk (reproducible for a given seed)."""
    rng = np.random.default_rng(seed)
    radius = np.sqrt(rng.random(n))
    angle = 2 * math.pi * rng.random(n)
    return be.asarray(radius * np.cos(angle)), be.asarray(radius * np.sin(angle))


def fan(n: int = 21, axis: str = "y"):
    """n points from −1 to 1 along the pupil's x or y axis."""
    values = np.linspace(-1.0, 1.0, n)
    zero = np.zeros(n)
    if axis not in ("x", "y"):
        raise ValueError(f"fan axis must be 'x' or 'y', not {axis!r}")
    px, py = (values, zero) if axis == "x" else (zero, values)
    return be.asarray(px), be.asarray(py)


DISTRIBUTIONS = {"hexapolar": hexapolar, "grid": grid, "random": random}
