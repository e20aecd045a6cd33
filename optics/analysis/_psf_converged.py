"""The PSF and Strehl ratio as :func:`optics.analysis.psf` computes them: polychromatic, converged.

One field; every wavelength of the lens with its weight (polychromatic, the
default when the lens has several) or one wavelength.  The pupil sampling N
comes from :func:`optics.analysis._converge.converge` (the Strehl ratio to
0.005), the Strehl ratio is the true peak (:func:`~optics.analysis._fourier.true_peak`)
and the image is computed on one image-space grid for every wavelength,
centred on the primary wavelength's chief-ray image point (index (M // 2,
M // 2)), wide enough for the geometric spot (1.25 × its radius, at least 20
Airy radii) with pixels of a quarter Airy radius at the shortest wavelength
unless ``grid`` or ``image_sampling`` say otherwise.
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend as be
from ..limits import MAX_GRID
from ..trace.prepared import prepare
from ._checks import check_field, check_sizes, require_focus, wavelength_of
from ._converge import STREHL_TOLERANCE, converge
from ._fourier import intensity_at, psf_weights, pupil_field, true_peak, true_peaks
from ._psf_core import PSFResult, check_sampling, choose_samples
from ._pupil_set import every_other, pupil_functions, trace_pupils

__all__ = ["converged_psf", "display_size", "peak_strehl", "spectrum", "window"]

_DEFAULT_IMAGE_PIXELS = 512
_COARSE_PIXELS = 96
_MAX_COARSE_PIXELS = 401
_CANDIDATES = 3
_RIVAL = 0.5
_AIRY = 1.22 / 2.0  # Airy radius × |σ| (the cutoff is 2|σ|)


def spectrum(optic, wavelength=None, polychromatic=None):
    """(wavelengths, weights, reference index, polychromatic) of an analysis.

    ``wavelength`` given: that wavelength alone.  Otherwise every wavelength
    of the lens with its weight when it has several (unless ``polychromatic``
    is False), the primary wavelength the reference.
    """
    if wavelength is not None:
        return (wavelength_of(optic, wavelength),), (1.0,), 0, False
    values = tuple(float(v) for v in optic.wavelengths.values)
    if polychromatic is False or len(values) == 1:
        return (float(optic.primary_wavelength),), (1.0,), 0, False
    weights = tuple(optic.wavelengths.weight_values())
    return values, weights, int(optic.wavelengths.primary), True


def shifts(pf, reference):
    """Chief-ray image points of every wavelength relative to the reference one's (W, F)."""
    return pf.chief_x - pf.chief_x[reference][None], pf.chief_y - pf.chief_y[reference][None]


def window(traced, pf, reference):
    """(half-width of the PSF window, quarter Airy radius) in mm for field 0.

    The window holds the geometric spot (1.25 × its radius about the
    reference chief ray) or 20 Airy radii, whichever is wider, but stays
    inside half the period N / (2|σ|) of every wavelength's sampled PSF (about
    that wavelength's chief ray), so no replica of the pattern shows.
    """
    sigma = [be.to_numpy(be.detach(s)).ravel() for s in (pf.sigma_x, pf.sigma_y)]
    sigma = np.abs(np.concatenate(sigma))
    sigma = sigma[np.isfinite(sigma) & (sigma > 0)]
    if sigma.size == 0:
        return 1.0, 0.01
    airy_small, airy_large = _AIRY / sigma.max(), _AIRY / sigma.min()
    rays = traced.rays
    x = be.to_numpy(be.detach(rays.x[:, 0]))
    y = be.to_numpy(be.detach(rays.y[:, 0]))
    valid = be.to_numpy(be.detach(rays.valid[:, 0]))
    cx = float(be.to_numpy(be.detach(pf.chief_x[reference, 0])))
    cy = float(be.to_numpy(be.detach(pf.chief_y[reference, 0])))
    radius = np.hypot(x - cx, y - cy)[valid & np.isfinite(x) & np.isfinite(y)]
    spot = float(radius.max()) if radius.size else 0.0
    half_width = max(20.0 * airy_large, 1.25 * spot)
    sx, sy = shifts(pf, reference)
    for sigma_w, shift in ((pf.sigma_x, sx), (pf.sigma_y, sy)):
        sigma_w = np.abs(be.to_numpy(be.detach(sigma_w))[:, 0])
        shift = np.abs(be.to_numpy(be.detach(shift))[:, 0])
        ok = np.isfinite(sigma_w) & (sigma_w > 0) & np.isfinite(shift)
        if ok.any():
            limit = np.min(0.5 * pf.samples / (2.0 * sigma_w[ok]) - shift[ok])
            half_width = min(half_width, max(float(limit), 2.0 * airy_large))
    return half_width, 0.25 * airy_small


def _strehl(pf, q, sx, sy, half_width, airy, image=None, field=None):
    """True-peak Strehl ratio of field 0: the best of the coarse image's brightest local maxima.

    The coarse image has pixels of at most half an Airy radius, so no lobe
    of the PSF falls between its samples; the few brightest local maxima are
    refined (:func:`true_peaks`) and the highest wins.  ``image``: (intensity
    (Y, X) of field 0, its pixel coordinates, its pixel) to search instead —
    the display image, when its pixels are that fine.
    """
    field = pupil_field(pf) if field is None else field
    if image is None:
        pixel = min(2.0 * half_width / _COARSE_PIXELS, 0.5 * airy)
        count = min(_MAX_COARSE_PIXELS, 2 * math.ceil(half_width / pixel) + 1)
        pixel = 2.0 * half_width / count
        coordinates = (np.arange(count) - count // 2) * pixel
        grid = be.asarray(coordinates)
        image = (intensity_at(pf, q, grid, grid, sx, sy, field)[0], coordinates, pixel)
    values, coordinates, pixel = image
    count = len(coordinates)
    coarse = be.to_numpy(be.detach(values))
    if not np.isfinite(coarse).any():
        return be.asarray(math.nan), (math.nan, math.nan)
    image = np.where(np.isfinite(coarse), coarse, -np.inf)
    padded = np.pad(image, 1, constant_values=-np.inf)
    neighbours = np.max(
        [
            padded[1 + a : 1 + a + count, 1 + b : 1 + b + count]
            for a in (-1, 0, 1)
            for b in (-1, 0, 1)
            if a or b
        ],
        axis=0,
    )
    maxima = np.flatnonzero((image >= neighbours).ravel())
    best = maxima[np.argsort(image.ravel()[maxima])[::-1][:_CANDIDATES]]
    # A maximum whose brightest coarse pixel is under half the brightest is no rival: the
    # pixels (at most half an Airy radius) sample any lobe within 0.36 Airy radii of its
    # top, where an Airy-wide lobe keeps 62 % of its peak (0.5 / 0.62 < 1).
    best = best[image.ravel()[best] >= _RIVAL * image.ravel()[best[0]]]
    starts = []
    for index in best:
        i, j = np.unravel_index(int(index), image.shape)
        starts.append((coordinates[j], coordinates[i]))
    value, x, y = true_peaks(pf, q, sx, sy, starts, pixel, field=field)
    return value, (x, y)


def display_size(half_width, pixel, grid=None, image_sampling=None):
    """(pixels across, pixel in mm) of the PSF image over the window ``half_width``.

    ``pixel`` is the default (a quarter Airy radius); ``grid`` fixes the pixel
    count, ``image_sampling`` the largest pixel (mm).
    """
    if image_sampling is not None:
        pixel = min(pixel, float(image_sampling))
    if grid is None:
        cap = _DEFAULT_IMAGE_PIXELS if image_sampling is None else MAX_GRID
        size = min(cap, max(64, 2 * math.ceil(half_width / pixel)))
        return size, max(pixel, 2.0 * half_width / size)
    return int(grid), 2.0 * half_width / int(grid)


def peak_strehl(traced, pf, weights, reference, grid=None, image_sampling=None):
    """The PSF image of field 0 and its true-peak Strehl ratio at one pupil sampling.

    Returns
    -------
    strehl : 0-d array (differentiable in the pupil)
    peak : (x, y) in mm from the reference chief ray
    image : array (Y, X), the display image (:func:`display_size`)
    size, pixel : its pixels across and pixel (mm)
    quarter_airy : float
        A quarter of the smallest Airy radius (mm).
    """
    sx, sy = shifts(pf, reference)
    q = psf_weights(pf, weights)
    half_width, quarter_airy = window(traced, pf, reference)
    size, pixel = display_size(half_width, quarter_airy, grid, image_sampling)
    coordinates = (np.arange(size) - size // 2) * pixel
    at = be.asarray(coordinates)
    field = pupil_field(pf)
    image = intensity_at(pf, q, at, at, sx, sy, field)[0]
    fine = (image, coordinates, pixel) if pixel <= 2.0 * quarter_airy else None
    strehl, peak = _strehl(pf, q, sx, sy, half_width, 4.0 * quarter_airy, fine, field)
    return strehl, peak, image, size, pixel, quarter_airy


def converged_psf(
    optic,
    field,
    wavelength=None,
    *,
    samples=None,
    grid=None,
    image_sampling=None,
    polychromatic=None,
    method=None,
):
    """See :func:`optics.analysis.psf` (this is its implementation)."""
    field = check_field(field)
    check_sizes(samples=samples, grid=grid)
    system = prepare(optic)  # first-order data computed once for the focus check and traces
    optic = system.optic
    require_focus(system, "the PSF")
    wavelengths, weights, reference, poly = spectrum(optic, wavelength, polychromatic)
    trace_options = {"method": method}

    def evaluate(n):
        traced = trace_pupils(system, [field], wavelengths, n, **trace_options)
        pf = pupil_functions(traced)
        found = peak_strehl(traced, pf, weights, reference, grid, image_sampling)
        strehl, peak, _, _, _, quarter_airy = found
        coarse = math.nan
        if all(math.isfinite(v) for v in peak):  # the N/2 sampling's peak, refined from N's
            half = every_other(pf)
            sx, sy = shifts(pf, reference)
            value, *_ = true_peak(
                half, psf_weights(half, weights), sx, sy, *peak, quarter_airy, rounds=3
            )
            coarse = be.to_numpy(be.detach(value))
        return (pf, *found[:5]), be.to_numpy(be.detach(strehl)), coarse

    start = 0
    if samples is None:
        start = max(choose_samples(system, field, w) for w in wavelengths)
    (pf, strehl, peak, image, size, pixel), accuracy = converge(
        evaluate, start, STREHL_TOLERANCE, requested=samples, what=f"PSF of field {field}"
    )
    check_sampling(pf.max_step_waves, field, pf.samples)
    return PSFResult(
        image=image,
        dx=pixel,
        dy=pixel,
        strehl=strehl,
        samples=pf.samples,
        grid=size,
        field=tuple(float(v) for v in field),
        wavelength=float(wavelengths[reference]),
        max_step_waves=pf.max_step_waves,
        wavelengths=tuple(wavelengths),
        weights=tuple(float(w) for w in weights),
        polychromatic=poly,
        accuracy=float(accuracy),
        peak=peak,
    )
