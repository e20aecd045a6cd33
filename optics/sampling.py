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
    if rings < 0:
        raise ValueError(f"rings must be >= 0, not {rings}")
    px, py = [0.0], [0.0]
    for i in range(1, rings + 1):
        angles = 2 * np.pi * np.arange(6 * i) / (6 * i)
        px.extend(np.cos(angles) * i / rings)
        py.extend(np.sin(angles) * i / rings)
    return be.asarray(np.array(px)), be.asarray(np.array(py))


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
