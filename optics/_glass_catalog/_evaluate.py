"""n(λ) of a material's data on any backend, with the once-per-material out-of-range warning."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import accel
from .. import backend as be
from .._dispersion_formulas import FORMULAS
from ._database import Dispersion

_RANGE_SLACK_EPS = 8  # relative slack, in machine epsilons, of the valid-range test

_WARNED: set = set()


def evaluate(dispersion: Dispersion, wavelength):
    """Refractive index of a material from its data.

    Parameters
    ----------
    dispersion : Dispersion
        The data (:func:`glass_dispersion` or :func:`read_dispersion`).
    wavelength : array, any shape
        Vacuum wavelength in µm (the database's convention).

    Returns
    -------
    array
        n, same shape, dtype, backend and device as ``wavelength``.

    Warns
    -----
    RuntimeWarning
        Once per material, the first time a wavelength lies outside the data's
        valid range; the value there is extrapolated (the formula evaluated
        as is, a table continued along its end segments).
    """
    if dispersion.wavelength_range is not None and dispersion.source not in _WARNED:
        _warn_outside(dispersion, wavelength)
    if dispersion.formula is None:
        return _interpolate(dispersion, wavelength)
    return FORMULAS[dispersion.formula](wavelength, dispersion.coefficients)


def _warn_outside(dispersion, wavelength):
    """Issue the one RuntimeWarning of a material whose valid range ``wavelength`` leaves.

    The test reads three values on the host; inside a trace it is deferred
    (:func:`optics.backend.deferred_reads`) and read with the trace's other
    checks, once, after the trace.
    """
    if be.is_array(wavelength) and be.is_compiling(wavelength):
        return  # inside a compiled graph (jax.jit) nothing can be read on the host
    low, high = dispersion.wavelength_range
    slack = _RANGE_SLACK_EPS * be.machine_eps(wavelength)
    outside = be.logical_or(wavelength < low * (1 - slack), wavelength > high * (1 + slack))

    def warn(values):
        if not values[0] or dispersion.source in _WARNED:
            return
        _WARNED.add(dispersion.source)
        # the wavelengths outside, never NaN (a NaN is neither below nor above the range)
        shortest, longest = values[1], values[2]
        span = f"{shortest:g}" if shortest == longest else f"{shortest:g}-{longest:g}"
        warnings.warn(
            f"{dispersion.source}: wavelengths ({span} µm) reach outside the valid range "
            f"{low:g}-{high:g} µm of its data; the index there is extrapolated "
            "(this warning is given once per material)",
            RuntimeWarning,
            stacklevel=5,
        )

    # The shortest and longest wavelengths outside the range (inf/-inf when none).
    beyond_low = be.min(be.where(outside, wavelength, math.inf))
    beyond_high = be.max(be.where(outside, wavelength, -math.inf))
    accel.read_later((be.any(outside), beyond_low, beyond_high), warn)


def _interpolate(dispersion, wavelength):
    """Piecewise-linear n(λ) of a table, continued linearly past its ends."""
    table_wl, table_n = dispersion.wavelengths, dispersion.indices
    if table_wl.size == 1:
        return be.full_like(wavelength, float(table_n[0]))
    # Finding the segment is a host-side search (tables are constants); the
    # line through it is then evaluated on the wavelength's own array.
    segment = np.searchsorted(table_wl, be.to_numpy(wavelength), side="right") - 1
    segment = np.clip(segment, 0, table_wl.size - 2)
    slopes = np.diff(table_n) / np.diff(table_wl)
    like = {"dtype": wavelength.dtype, "device": be.device_of(wavelength)}
    start_wl = be.asarray(table_wl[segment], **like)
    start_n = be.asarray(table_n[segment], **like)
    slope = be.asarray(slopes[segment], **like)
    return start_n + slope * (wavelength - start_wl)
