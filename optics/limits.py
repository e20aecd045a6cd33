"""The size budget: the largest sizes any input may ask for, checked before allocation.

One table for the command line, the lens-file readers and the Python API
(docs/cli.md, "Size budget").  Each limit sits well above what any real
design uses and well below what would exhaust memory on a workstation, so a
typo (``--samples 20000``) or a hostile file (a .zmx asking for 1e9 fields)
is refused at once, with the number and the limit, instead of being
attempted until the memory runs out.
"""

from __future__ import annotations

import math
import operator

from .errors import ConfigurationError

#: Pupil samples N across the diameter of an FFT PSF/MTF (N² rays).
MAX_PUPIL_SAMPLES = 1024
#: FFT grid G of a PSF (G² complex values, 256 MiB at the limit).
MAX_GRID = 4096
#: Rings of a hexapolar bundle (3R(R+1) + 1 rays) or Gauss-Legendre radial nodes.
MAX_RINGS = 500
#: Field points of one system.
MAX_FIELDS = 1000
#: Wavelengths of one system.
MAX_WAVELENGTHS = 1000
#: Terms of one polynomial or Zernike surface (extra-data terms of a .zmx surface).
MAX_POLYNOMIAL_TERMS = 1000
#: Surfaces of one system.
MAX_SURFACES = 10000
#: Monte Carlo trials of one run (its seeds and draws are held in memory).
MAX_TRIALS = 1_000_000
#: Spatial frequencies of one MTF request.
MAX_FREQUENCIES = 10000
#: Worker processes of an embedded Dask cluster.
MAX_WORKERS = 256
#: Pixels of a picture read by ``optics simulate`` (read_image): 25 Mpx, 600 MB as float RGB.
MAX_IMAGE_PIXELS = 25_000_000
#: Configurations of one system (each is built when the lens is read).
MAX_CONFIGURATIONS = 1000

BUDGET = {
    "pupil samples": MAX_PUPIL_SAMPLES,
    "FFT grid": MAX_GRID,
    "rings": MAX_RINGS,
    "fields": MAX_FIELDS,
    "wavelengths": MAX_WAVELENGTHS,
    "polynomial terms": MAX_POLYNOMIAL_TERMS,
    "surfaces": MAX_SURFACES,
    "Monte Carlo trials": MAX_TRIALS,
    "frequencies": MAX_FREQUENCIES,
    "embedded Dask workers": MAX_WORKERS,
    "image pixels": MAX_IMAGE_PIXELS,
    "configurations": MAX_CONFIGURATIONS,
}
"""What each limit bounds -> the limit (the table of docs/cli.md)."""


class BudgetError(ConfigurationError):
    """A size beyond the budget of :mod:`optics.limits` (refused before any allocation)."""


def check_size(value, limit, what, *, lowest=0):
    """``value`` as an int when ``lowest <= value <= limit``; BudgetError naming ``what`` otherwise.

    Parameters
    ----------
    value : int
        The size asked for (a bool or a non-integer is refused too).
    limit : int
        The budget's limit for it.
    what : str
        What it counts, for the message (e.g. ``"--samples"``).
    lowest : int
        The smallest size that makes sense.
    """
    if isinstance(value, bool):
        raise BudgetError(f"{what} must be an integer, not {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        if isinstance(value, float) and math.isfinite(value) and value == int(value):
            number = int(value)
        else:
            raise BudgetError(f"{what} must be an integer, not {value!r}") from None
    if number < lowest:
        raise BudgetError(f"{what} must be at least {lowest}, not {number}")
    if number > limit:
        raise BudgetError(f"{what} is {number}, more than the limit of {limit} (optics.limits)")
    return number


def check_wavelength(value, what="wavelength"):
    """``value`` (µm) as a float when finite and positive; ConfigurationError otherwise."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{what} must be a number of micrometres, not {value!r}") from None
    if not (math.isfinite(number) and number > 0):
        raise ConfigurationError(
            f"{what} must be a finite, positive number of micrometres, not {value!r}"
        )
    return number
