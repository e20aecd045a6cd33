"""Spot statistics accumulated over the pupil slices of a chunked trace.

Exact, not approximate: every statistic of :func:`~optics.analysis.spot.spot_statistics`
follows from running sums and a small set of candidate points.

- Count, Σdx, Σdy and Σ(dx² + dy²) per (wavelength, field), with d the image
  coordinates relative to a fixed shift (the reference chief ray): centroid
  = shift + Σd / n, mean square about the reference = Σ(dx² + dy²) / n, and
  about the centroid the same minus |Σd / n|² (no cancellation worth the
  name, since d is measured from a point inside or near the spot).
- The geometric radius (the largest distance from the centroid, which is
  known only after the last slice): the farthest point of a set from any
  point is a vertex of the set's convex hull, so it suffices to keep every
  point that is not strictly inside a polygon whose corners are points of the
  set.  Each slice's points outside the largest disk about their centroid
  inside the octagon of their extremes, with the candidates kept so far, are
  filtered by the polygons of their extreme points in 8, 64 and 512
  directions; what survives is a few hundred points per (wavelength, field),
  however many rays.

The accumulation runs without gradients (a streamed analysis; merit functions
use the unchunked statistics).
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend as be

_DIRECTIONS = (4, 32, 256)  # half the corners of the three filtering polygons
_BLOCK = 1 << 15  # points per block of the (points × directions) products


class SpotAccumulator:
    """Running spot sums of rays shaped (W, F, p), p varying from slice to slice.

    Parameters
    ----------
    shift_x, shift_y : array, shape (F,)
        The reference point of each field (mm; the primary wavelength's chief
        ray); non-finite entries (no reference) are replaced by 0.
    n_waves : int
        W, the number of traced wavelengths.
    """

    def __init__(self, shift_x, shift_y, n_waves):
        shift = [be.to_numpy(be.detach(v)).astype(float) for v in (shift_x, shift_y)]
        self.shift_x, self.shift_y = (np.where(np.isfinite(v), v, 0.0) for v in shift)
        shape = (n_waves, self.shift_x.size)
        self.count = np.zeros(shape)
        self.sum_x, self.sum_y, self.sum_sq = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        self.candidates = [[np.zeros((2, 0)) for _ in range(shape[1])] for _ in range(shape[0])]
        self.n_rays = 0

    def add(self, rays):
        """Accumulate the rays of one slice (components shaped (W, F, p))."""
        valid = be.to_numpy(be.detach(rays.valid))
        dx = be.to_numpy(be.detach(rays.x)) - self.shift_x[None, :, None]
        dy = be.to_numpy(be.detach(rays.y)) - self.shift_y[None, :, None]
        dx = np.where(valid, dx, 0.0)
        dy = np.where(valid, dy, 0.0)
        self.count += valid.sum(axis=-1)
        self.sum_x += dx.sum(axis=-1)
        self.sum_y += dy.sum(axis=-1)
        self.sum_sq += (dx * dx + dy * dy).sum(axis=-1)
        self.n_rays += valid.shape[-1]
        keep = _outside_inscribed_disk(dx, dy, valid)
        for w in range(valid.shape[0]):
            for f in range(valid.shape[1]):
                mask = keep[w, f]
                points = np.stack([dx[w, f][mask], dy[w, f][mask]])
                merged = np.concatenate([self.candidates[w][f], points], axis=1)
                for directions in _DIRECTIONS:
                    merged = np.ascontiguousarray(merged[:, hull_candidates(merged, directions)])
                self.candidates[w][f] = merged

    def statistics(self):
        """The statistics of :func:`spot_statistics` (axis=-1), each shaped (W, F).

        Returns
        -------
        dict of array
            rms_radius_chief (about the shift), rms_radius_centroid,
            centroid_x, centroid_y, geo_radius (mm; NaN where no ray is valid).
        """
        safe = np.maximum(self.count, 1.0)
        mx, my = self.sum_x / safe, self.sum_y / safe
        ms_ref = self.sum_sq / safe
        ms_cen = np.maximum(ms_ref - (mx * mx + my * my), 0.0)
        geo = np.zeros_like(ms_ref)
        for w, row in enumerate(self.candidates):
            for f, points in enumerate(row):
                if points.shape[1]:
                    d2 = (points[0] - mx[w, f]) ** 2 + (points[1] - my[w, f]) ** 2
                    geo[w, f] = math.sqrt(d2.max())
        none = np.where(self.count > 0, 0.0, np.nan)
        stats = {
            "rms_radius_chief": np.sqrt(ms_ref) + none,
            "rms_radius_centroid": np.sqrt(ms_cen) + none,
            "centroid_x": self.shift_x[None, :] + mx + none,
            "centroid_y": self.shift_y[None, :] + my + none,
            "geo_radius": geo + none,
        }
        return {name: be.asarray(value) for name, value in stats.items()}


def _outside_inscribed_disk(dx, dy, valid):
    """Mask of the valid points not strictly inside a disk inside their convex hull.

    The first, cheap filter of a slice, over every (wavelength, field) at
    once: the octagon of the extreme points along x, y and the diagonals, the
    largest disk about the slice's centroid inside it, and the points outside
    that disk.  Arrays shaped (W, F, p), invalid entries 0.
    """
    count = np.maximum(valid.sum(axis=-1, keepdims=True), 1)
    mx, my = dx.sum(axis=-1, keepdims=True) / count, dy.sum(axis=-1, keepdims=True) / count
    # Invalid entries at the centroid: inside the hull, so no extreme and no candidate.
    px, py = np.where(valid, dx, mx), np.where(valid, dy, my)
    corners = []
    for u in (px, px + py, py, py - px):
        corners += [np.argmax(u, axis=-1), np.argmin(u, axis=-1)]
    # Counter-clockwise: max along 0, π/4, π/2, 3π/4, then the minima.
    order = [corners[i] for i in (0, 2, 4, 6, 1, 3, 5, 7)]
    index = np.stack(order, axis=-1)  # (W, F, 8)
    vx, vy = np.take_along_axis(px, index, -1), np.take_along_axis(py, index, -1)
    ex, ey = np.roll(vx, -1, axis=-1) - vx, np.roll(vy, -1, axis=-1) - vy
    length = np.hypot(ex, ey)
    # Signed distance of the centroid from each edge line (positive inside).
    inside = (ex * (my - vy) - ey * (mx - vx)) / np.where(length > 0, length, 1.0)
    radius = np.maximum(np.min(np.where(length > 0, inside, np.inf), axis=-1), 0.0)
    radius = np.where(np.isfinite(radius), radius, 0.0)[..., None]
    distance2 = (px - mx) ** 2 + (py - my) ** 2
    return valid & (distance2 >= radius * radius)


def hull_candidates(points, directions):
    """Mask of the points not strictly inside the polygon of their extremes.

    The polygon's corners are the points extreme along ``2 * directions``
    evenly spaced directions, in counter-clockwise order; a point strictly
    inside it is no vertex of the convex hull.  The corners themselves are
    always kept (rounding never drops one).

    Parameters
    ----------
    points : ndarray, shape (2, n)
    directions : int

    Returns
    -------
    ndarray of bool, shape (n,)
    """
    n = points.shape[1]
    if n <= 2 * directions:
        return np.ones(n, dtype=bool)
    angles = np.pi * np.arange(directions) / directions
    axes = np.stack([np.cos(angles), np.sin(angles)], axis=1)  # (D, 2)
    high, low = np.full(directions, -np.inf), np.full(directions, np.inf)
    i_high, i_low = np.zeros(directions, int), np.zeros(directions, int)
    rows = np.arange(directions)
    for start in range(0, n, _BLOCK):
        proj = _times(axes, points[:, start : start + _BLOCK])  # (D, block)
        for best, index, pick, better in (
            (high, i_high, np.argmax, np.greater),
            (low, i_low, np.argmin, np.less),
        ):
            at = pick(proj, axis=1)
            value = proj[rows, at]
            take = better(value, best)
            best[take], index[take] = value[take], at[take] + start
    # Extremes along angles 0..π (maxima) then π..2π (minima): counter-clockwise.
    corners = np.concatenate([i_high, i_low])
    vertex = points[:, corners].T  # (2D, 2)
    edge = np.roll(vertex, -1, axis=0) - vertex
    normal = np.stack([-edge[:, 1], edge[:, 0]], axis=1)  # (2D, 2): inward for CCW
    offset = np.einsum("ij,ij->i", vertex, normal)
    degenerate = ~np.any(edge != 0, axis=1)
    offset[degenerate] = -1.0  # a repeated corner constrains nothing
    keep = np.empty(n, dtype=bool)
    for start in range(0, n, _BLOCK):
        cross = _times(normal, points[:, start : start + _BLOCK])  # (2D, block)
        keep[start : start + _BLOCK] = ~np.all(cross > offset[:, None], axis=0)
    keep[corners] = True
    return keep


def _times(matrix, points):
    """``matrix @ points`` for a (k, 2) matrix, by broadcasting.

    A BLAS product with an inner dimension of 2 ran 25× slower here (thread
    start-up on a loaded machine, and strided operands).
    """
    return matrix[:, 0:1] * points[0] + matrix[:, 1:2] * points[1]
