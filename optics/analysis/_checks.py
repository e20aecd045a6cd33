"""Entry checks of the diffraction analyses (PSF, MTF, wavefront): inputs refused with the reason.

Each public analysis calls these before it traces: the wavelength is a
finite, positive number of micrometres; the fields are finite; the sizes
stay inside the budget of :mod:`optics.limits`; the system has a focus (an
afocal system has no image-space reference sphere, so its PSF pixels and
MTF frequencies would be those of an image at infinity); and a field
whose every pupil ray is vignetted gets NaN figures (null in JSON), as in
the PSF and the wavefront, not an MTF of 0.
"""

from __future__ import annotations

import math

from .. import backend as be
from ..errors import ConfigurationError
from ..limits import check_size, check_wavelength

MAX_FREQUENCY = 1e6
"""cycles/mm: the highest spatial frequency an MTF is asked for (above it the products of the
frequency and the pupil coordinates lose every digit, then overflow to NaN)."""


def wavelength_of(optic, wavelength):
    """The analysis wavelength (µm): ``optic``'s primary for None, else a checked float."""
    if wavelength is None:
        return optic.primary_wavelength
    return check_wavelength(wavelength, "wavelength")


def check_field(field):
    """A normalized field (hx, hy) of two finite numbers, as a tuple of floats."""
    try:
        values = tuple(float(v) for v in field)
    except (TypeError, ValueError):
        raise ConfigurationError(f"a field is (hx, hy), two numbers, not {field!r}") from None
    if len(values) != 2 or not all(math.isfinite(v) for v in values):
        raise ConfigurationError(f"a field is (hx, hy), two finite numbers, not {field!r}")
    return values


def check_sizes(*, samples=None, grid=None, rings=None):
    """Refuse pupil samples, an FFT grid or rings beyond :mod:`optics.limits` (None: unchecked)."""
    from ..limits import MAX_GRID, MAX_PUPIL_SAMPLES, MAX_RINGS

    if samples is not None:
        check_size(samples, MAX_PUPIL_SAMPLES, "pupil samples", lowest=2)
    if grid is not None:
        check_size(grid, MAX_GRID, "the FFT grid", lowest=2)
    if rings is not None:
        check_size(rings, MAX_RINGS, "rings", lowest=1)


def check_frequencies(frequencies):
    """Spatial frequencies (cycles/mm) as a list of finite, non-negative floats."""
    from ..limits import MAX_FREQUENCIES

    if frequencies is None:
        return None
    try:
        values = [float(f) for f in frequencies]
    except (TypeError, ValueError):
        raise ConfigurationError(
            f"frequencies must be numbers of cycles/mm, not {frequencies!r}"
        ) from None
    bad = [f for f in values if not (math.isfinite(f) and f >= 0)]
    if bad:
        raise ConfigurationError(
            f"frequencies must be finite, non-negative cycles/mm, not {bad[0]!r}"
        )
    high = [f for f in values if f > MAX_FREQUENCY]
    if high:
        raise ConfigurationError(
            f"frequencies must be at most {MAX_FREQUENCY:g} cycles/mm (a period of 1 nm, beyond "
            f"the cutoff 2 NA/λ of every lens), not {high[0]!r}"
        )
    check_size(len(values), MAX_FREQUENCIES, "the number of frequencies")
    return values


def require_focus(optic, what, wavelength=None):
    """Raise ConfigurationError when ``optic`` is afocal (no finite effective focal length).

    The one guard of every analysis that measures something at a focus (PSF, MTF,
    wavefront, field curvature, relative illumination, chromatic focal shift, thermal
    focus shift): an afocal system's image is at infinity, so those figures would be
    inf or NaN.  Under ``jax.jit`` (abstract values) nothing can be read and nothing
    is checked.

    Parameters
    ----------
    optic : Optic or PreparedSystem
        A PreparedSystem's first-order data is reused (at its primary wavelength).
    what : str
        The analysis, for the message (``"the MTF"``).
    wavelength : float, optional
        µm; the primary wavelength by default.

    Returns
    -------
    None
        When the effective focal length is finite (or cannot be read).

    Raises
    ------
    ConfigurationError
        Naming ``what`` and the infinite focal length.
    """
    from .._paraxial import paraxial

    first_order = getattr(optic, "first_order", None)  # a PreparedSystem has it computed
    if first_order is None or wavelength is not None:
        first_order = paraxial(getattr(optic, "optic", optic), wavelength)
    efl = be.detach(first_order.efl)
    if be.is_abstract(efl):
        return  # under jax.jit nothing can be read: an afocal system's figures are inf/NaN
    efl = float(be.item(efl))  # inf when afocal (optics.paraxial)
    if not math.isfinite(efl):
        at = "" if wavelength is None else f" at {float(wavelength):g} µm"
        raise ConfigurationError(
            f"{what} needs a focus, but the system is afocal{at} (effective focal length "
            f"{efl:g} mm): its image is at infinity; add a focusing lens (an ideal "
            "'paraxial' surface) to analyse the beam it sends out"
        )


def lit_fields(amplitude, count):
    """Boolean array (F,): True where field f's pupil passes at least one ray.

    ``amplitude`` is the (F, ...) pupil amplitude (0 where no ray passes).
    A fully vignetted field has no PSF or MTF: the analyses give it NaN
    (null in JSON), never a number such as an MTF of 0.
    """
    return be.sum(be.reshape(amplitude, (count, -1)), axis=-1) > 0


def check_defocus(defocus) -> list:
    """The defocus positions as a list of finite floats (mm), else ConfigurationError."""
    try:
        shifts = [float(d) for d in defocus]
    except (TypeError, ValueError):
        raise ConfigurationError(f"defocus must be numbers of mm, not {defocus!r}") from None
    if not shifts or not all(math.isfinite(d) for d in shifts):
        raise ConfigurationError(f"defocus must be finite numbers of mm, not {defocus!r}")
    return shifts
