"""Tiled processing: a large sensor image in bounded memory, with a progress bar.

The sensor is cut into tiles of at most ``tile`` × ``tile`` output pixels.
Each tile is rendered from the scene region it can receive light from (the
tile grown by the kernel radius), so the temporaries of the warp and the
patch FFTs scale with the tile, not the image; the tiles' results are exactly
those of one pass (the same grid PSFs, the same global tent weights).
Without gradients the tiles are written into one NumPy array (the only
image-sized buffer); while a gradient records they are joined with
``be.concatenate`` so the image stays differentiable.
"""

from __future__ import annotations

import sys

import numpy as np

from .. import backend as be

__all__ = ["tile_ranges", "progress_bar", "render_tiled"]


def tile_ranges(height, width, tile):
    """[(r0, r1, c0, c1)] covering an H × W image with tiles of at most ``tile`` pixels a side."""
    if tile is None:
        return [(0, height, 0, width)]
    tile = max(int(tile), 1)
    return [
        (r, min(r + tile, height), c, min(c + tile, width))
        for r in range(0, height, tile)
        for c in range(0, width, tile)
    ]


def progress_bar(total, enabled=None, desc="simulate"):
    """A tqdm bar over ``total`` tiles, or None.

    ``enabled`` None: only when tqdm is installed and stderr is a terminal;
    True: whenever tqdm is installed; False: never.
    """
    if enabled is False or (enabled is None and not sys.stderr.isatty()):
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="tile", desc=desc, file=sys.stderr)


def render_tiled(render, shape, tile=None, progress=None):
    """Run ``render(r0, r1, c0, c1) -> (C, h, w)`` over the tiles and join the results.

    Parameters
    ----------
    render : callable
        Renders output rows [r0, r1) and columns [c0, c1).
    shape : (int, int)
        (H, W) of the output.
    tile : int, optional
        Tile size; None renders the whole image at once.
    progress : bool, optional
        See :func:`progress_bar`.

    Returns
    -------
    array, shape (C, H, W)
        A ``be`` array (one tile, or while gradients record), else NumPy.
    """
    height, width = shape
    ranges = tile_ranges(height, width, tile)
    if len(ranges) == 1:
        return render(*ranges[0])
    bar = progress_bar(len(ranges), progress)
    joined = be.grad_active()
    rows, row, current, out = [], [], None, None
    try:
        for r0, r1, c0, c1 in ranges:
            piece = render(r0, r1, c0, c1)
            if joined:
                if current is not None and r0 != current:
                    rows.append(be.concatenate(row, axis=2))
                    row = []
                current = r0
                row.append(piece)
            else:
                host = be.to_numpy(piece)
                if out is None:
                    out = np.empty((host.shape[0], height, width), dtype=host.dtype)
                out[:, r0:r1, c0:c1] = host
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    if joined:
        rows.append(be.concatenate(row, axis=2))
        return be.concatenate(rows, axis=1)
    return out
