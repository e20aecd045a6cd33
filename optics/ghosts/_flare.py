"""Ghost flare on a simulated sensor image: each ghost's image of the scene added to it.

A ghost images the scene with its own magnification (its paraxial chief ray's image height
over the primary's) and blurs it with its own spot (the on-axis ghost rays on the image,
binned into pixels).  The light it carries is the ghost's ``energy`` of the primary
image's (:class:`optics.ghosts.Ghost`; lost rays count 0 in it), spread over the spot of
the rays that arrive.  Geometric and noise-free: a ghost spot is many pixels wide, so the
primary image's own PSF does not matter beside it.
"""

from __future__ import annotations

import numpy as np

from .. import backend as be
from .._paraxial import basis_rays, chief_ray_start, paraxial
from ._analysis import trace_ghost
from ._unfold import ghost_optic

FLARE_RINGS = 20
"""Hexapolar rings of the rays that draw each ghost's spot (1261 rays)."""


def ghost_magnification(optic, i, j, wavelength=None) -> float:
    """Ghost (i, j)'s paraxial chief-ray image height over the primary image's (a float).

    Parameters
    ----------
    optic : Optic
    i, j : int
        The ghost: reflected back at surface i, forward again at surface j (object 0;
        1 <= j < i <= image - 1).
    wavelength : float, optional
        Vacuum wavelength in µm; the primary by default.

    Returns
    -------
    float
        The ghost's image height over the primary's (negative: inverted relative to it).

    Raises
    ------
    ConfigurationError
        When (i, j) is not one of :func:`ghost_pairs`.
    """
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    first = paraxial(optic, wavelength)
    y1, u0 = chief_ray_start(optic, basis_rays(optic, wavelength), first.ep_position)
    ghost = ghost_optic(optic, i, j)
    height = basis_rays(ghost, wavelength).ray(y1, u0, ghost.image_index)[0]
    return float(be.item(height)) / float(be.item(first.image_height))


def spot_kernel(optic, i, j, pitch, size_limit, wavelength=None):
    """The ghost's on-axis spot binned into pixels of ``pitch`` mm, summing to ``passed``.

    Returns an odd square array no wider than ``size_limit`` pixels (rays outside are
    dropped), centred on the spot's centroid; None when fewer than 2 rays arrive.

    Parameters
    ----------
    optic : Optic
    i, j : int
        The ghost: reflected back at surface i, forward again at surface j (object 0;
        1 <= j < i <= image - 1).
    pitch : float
        Pixel pitch, mm.
    size_limit : int
        The kernel's largest width K in pixels.
    wavelength : float, optional
        Vacuum wavelength in µm; the primary by default.

    Returns
    -------
    ndarray or None
        NumPy float64 of shape (K', K'), K' = 2 h + 1 <= max(K, 1) odd (h pixels each side of
        the centroid), rows running toward −y; each ray of the on-axis ghost (1261 traced)
        adds 1 / 1261 to its pixel.  None when fewer than 2 rays arrive.
    """
    rays = trace_ghost(optic, i, j, (0.0, 0.0), FLARE_RINGS, wavelength)
    valid = be.to_numpy(rays.valid).ravel()
    x, y = be.to_numpy(rays.x).ravel()[valid], be.to_numpy(rays.y).ravel()[valid]
    if x.size < 2:
        return None
    x, y = x - x.mean(), y - y.mean()
    reach = int(np.ceil(max(np.abs(x).max(), np.abs(y).max()) / pitch)) + 1
    half = min(reach, max((size_limit - 1) // 2, 0))
    edges = (np.arange(-half, half + 2) - 0.5) * pitch
    kernel, _, _ = np.histogram2d(-y, x, bins=(edges, edges))  # rows run down: −y
    return kernel / valid.size


def _magnified(image, magnification):
    """``image`` (H, W, ...) scaled about its centre by ``magnification``, light conserved.

    Each pixel's value moves to the pixel nearest its scaled position (a forward splat: no
    light is lost or made, except what lands outside the frame).
    """
    rows, cols = image.shape[:2]
    r = (np.arange(rows) - (rows - 1) / 2) * magnification + (rows - 1) / 2
    c = (np.arange(cols) - (cols - 1) / 2) * magnification + (cols - 1) / 2
    ri, ci = np.rint(r).astype(int), np.rint(c).astype(int)
    keep_r, keep_c = (ri >= 0) & (ri < rows), (ci >= 0) & (ci < cols)
    out = np.zeros_like(image)
    rr, cc = np.meshgrid(np.flatnonzero(keep_r), np.flatnonzero(keep_c), indexing="ij")
    np.add.at(out, (ri[rr], ci[cc]), image[rr, cc])
    return out


def _convolved(image, kernel):
    """Linear (zero-padded) convolution of each channel of ``image`` with ``kernel``."""
    rows, cols = image.shape[:2]
    k = kernel.shape[0]
    shape = (rows + k - 1, cols + k - 1)
    spectrum = np.fft.rfft2(kernel, shape)
    channels = image.reshape(rows, cols, -1)
    out = np.empty_like(channels)
    for c in range(channels.shape[2]):
        full = np.fft.irfft2(np.fft.rfft2(channels[:, :, c], shape) * spectrum, shape)
        out[:, :, c] = full[k // 2 : k // 2 + rows, k // 2 : k // 2 + cols]
    return out.reshape(image.shape)


def add_ghost_flare(optic, image, pitch, report, count=5):
    """``image`` plus the images of the ``count`` brightest ghosts of ``report``.

    Parameters
    ----------
    optic : Optic
    image : array, shape (H, W) or (H, W, C)
        Linear sensor values, the optical axis at the centre.
    pitch : float
        Pixel pitch, mm.
    report : GhostReport
        From :func:`optics.ghosts.ghosts` (on axis: its ghosts' energies and order).
    count : int
        How many of the brightest ghosts to add.

    Returns
    -------
    ndarray
        Same shape as ``image`` (NumPy, float64).
    """
    base = np.asarray(be.to_numpy(image), dtype=float)
    total = base.copy()
    size_limit = 2 * max(base.shape[:2]) + 1
    for ghost in report.top(count):
        if not ghost.energy > 0:
            continue
        kernel = spot_kernel(optic, *ghost.surfaces, pitch, size_limit, report.wavelength)
        if kernel is None:
            continue
        magnification = ghost_magnification(optic, *ghost.surfaces, report.wavelength)
        # The kernel sums to ``passed``; ``energy`` counts the vignetted rays as 0 already.
        scale = ghost.energy / ghost.passed if ghost.passed > 0 else 0.0
        total += scale * _convolved(_magnified(base, magnification), kernel)
    return total
