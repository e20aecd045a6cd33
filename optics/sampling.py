"""Pupil sampling patterns in normalized pupil coordinates (unit circle).

Every sampler returns arrays of the configured backend in the working float
dtype (``be.float_dtype()``: float32 under ``precision="float32"``); the
points are computed in float64 on the host and rounded once.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from . import backend as be


def _working(values):
    """A host float64 array as a backend array of the working dtype (rounded on the host)."""
    host = np.asarray(values, dtype=np.dtype(be.get_precision()))
    return be.asarray(host, dtype=be.float_dtype())


def hexapolar(rings: int = 6):
    """The centre plus ring i = 1..R of 6i points at radius i/R, angles 2πj/(6i).

    Parameters
    ----------
    rings : int
        R >= 0; 0 gives the centre only.

    Returns
    -------
    px, py : array, shape (1 + 3R(R+1),)
        Working dtype of the configured backend.
    """
    return hexapolar_range(rings, 0, hexapolar_count(rings))


def hexapolar_count(rings: int) -> int:
    """Number of points of :func:`hexapolar` with ``rings`` rings: 1 + 3R(R+1)."""
    if isinstance(rings, bool) or not isinstance(rings, numbers.Integral) or rings < 0:
        raise ValueError(f"rings must be an integer >= 0, not {rings!r}")
    rings = int(rings)
    return 1 + 3 * rings * (rings + 1)


def hexapolar_range(rings: int, start: int, stop: int):
    """Points ``start:stop`` of :func:`hexapolar` (the same values), without the others.

    Lets a chunked trace generate its pupil chunk by chunk: memory grows with
    ``stop - start``, not with the whole pattern.

    Returns
    -------
    px, py : array, shape (stop - start,)
        Working dtype of the configured backend.
    """
    count = hexapolar_count(rings)
    rings = int(rings)
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
    return _working(px), _working(py)


def grid(n: int = 32):
    """Points of an n × n square grid over [−1, 1]² that lie inside the unit circle.

    Returns
    -------
    px, py : array, shape (k,)
        Working dtype of the configured backend.
    """
    axis = np.linspace(-1.0, 1.0, n)
    gx, gy = np.meshgrid(axis, axis)
    inside = gx**2 + gy**2 <= 1.0 + 4 * np.finfo(np.float64).eps
    return _working(gx[inside]), _working(gy[inside])


def random(n: int = 1000, seed: int | None = 0):
    """n points uniform over the unit disk (reproducible for a given seed).

    Returns
    -------
    px, py : array, shape (n,)
        Working dtype of the configured backend.
    """
    rng = np.random.default_rng(seed)
    radius = np.sqrt(rng.random(n))
    angle = 2 * math.pi * rng.random(n)
    return _working(radius * np.cos(angle)), _working(radius * np.sin(angle))


def fan(n: int = 21, axis: str = "y"):
    """n points from −1 to 1 along the pupil's x or y axis.

    Returns
    -------
    px, py : array, shape (n,)
        Working dtype of the configured backend.
    """
    values = np.linspace(-1.0, 1.0, n)
    zero = np.zeros(n)
    if axis not in ("x", "y"):
        raise ValueError(f"fan axis must be 'x' or 'y', not {axis!r}")
    px, py = (values, zero) if axis == "x" else (zero, values)
    return _working(px), _working(py)


DISTRIBUTIONS = {"hexapolar": hexapolar, "grid": grid, "random": random}


def gauss_pupil(rings: int = 16, arms: int | None = None):
    """A pupil-area quadrature: Gauss–Legendre in s = ρ² times uniform angles.

    Node (i, j) sits at ρ_i = sqrt(s_i) and θ_j = 2π (j + 1/2) / arms, where
    s_i are the Gauss–Legendre nodes on [0, 1]; its weight is w_i / arms with
    the Legendre weights w_i scaled to sum to 1, so ``sum(weights * f)`` is the
    mean of f over the unit disk.  Because dA ∝ ds dθ, the rule is exact for
    every polynomial of degree <= 4·rings − 2 in (x, y) whose angular harmonics
    are below ``arms`` — a product of two Zernike terms up to radial degree
    2·rings − 1, for instance — and converges fast for smooth wavefronts (no
    rim-heavy ring count).

    Parameters
    ----------
    rings : int
        Radial Gauss–Legendre nodes (>= 1).
    arms : int, optional
        Angles per ring; ``4 * rings`` by default.

    Returns
    -------
    px, py, weights : arrays, shape (rings * arms,)
        Normalized pupil coordinates and area weights summing to 1.
    """
    if rings < 1:
        raise ValueError(f"rings must be >= 1, not {rings}")
    arms = 4 * rings if arms is None else arms
    if arms < 1:
        raise ValueError(f"arms must be >= 1, not {arms}")
    nodes, legendre_weights = np.polynomial.legendre.leggauss(rings)
    s = 0.5 * (nodes + 1.0)
    radius = np.sqrt(s)[:, None]
    angle = 2 * np.pi * (np.arange(arms) + 0.5) / arms
    weights = np.repeat(0.5 * legendre_weights / arms, arms)
    px = (radius * np.cos(angle)).ravel()
    py = (radius * np.sin(angle)).ravel()
    return be.asarray(px), be.asarray(py), be.asarray(weights)


def square_grid(n: int):
    """Cell centres of an n × n grid over [−1, 1]² (row-major, y slowest).

    Returns
    -------
    px, py : arrays, shape (n * n,)
        Reshape to (n, n) for a pupil image: axis 0 is y, axis 1 is x.
    inside : bool array, shape (n * n,)
        True for the centres inside the unit circle.
    """
    gx, gy, inside = _cell_centres(n)
    return be.asarray(gx.ravel()), be.asarray(gy.ravel()), be.asarray(inside.ravel())


def square_grid_inside(n: int):
    """The cell centres of :func:`square_grid` that lie inside the unit circle.

    Parameters
    ----------
    n : int
        Grid size (n × n cells over [−1, 1]²), at least 2.

    Returns
    -------
    px, py : arrays, shape (k,)
        Normalized pupil coordinates of the k ≈ π n² / 4 centres inside, row-major.
    """
    gx, gy, inside = _cell_centres(n)
    return be.asarray(gx[inside]), be.asarray(gy[inside])


def _cell_centres(n):
    """NumPy (gx, gy, inside) of the n × n cell centres over [−1, 1]², each (n, n)."""
    if n < 2:
        raise ValueError(f"grid size must be >= 2, not {n}")
    axis = -1.0 + (2.0 * np.arange(n) + 1.0) / n
    gx, gy = np.meshgrid(axis, axis)
    return gx, gy, gx**2 + gy**2 <= 1.0
