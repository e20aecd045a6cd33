"""Merit operand ``through_focus_mtf``: the polychromatic MTF of one field at a defocus.

Registered with :func:`optics.optimize.register_operand` when
:mod:`optics.optimize` is imported.  The value is what
:func:`optics.analysis.through_focus_mtf` computes (at ``defocus=0`` the
polychromatic MTF at focus), at a fixed pupil sampling so that the merit is a
smooth function of the variables: the trace, the OPD against each
wavelength's reference sphere, the rays carried on to the shifted image plane,
the FFT autocorrelation and the weighted sum of the complex OTFs are all
backend arithmetic, so Torch and JAX gradients are exact.
"""

from __future__ import annotations

from .. import backend as be
from ..analysis._mtf_converged import mtf_of_pupils
from ..analysis._psf_converged import spectrum
from ..analysis._psf_core import check_sampling, fast_size
from ..analysis._pupil_set import pupil_functions, trace_pupils
from ..errors import ConfigurationError
from .operands_user import register_operand

__all__ = ["through_focus_mtf"]

_DIRECTIONS = ("tangential", "sagittal", "mean")


def through_focus_mtf(
    ctx, frequency, defocus=0.0, field=0, direction="mean", wavelength=None, samples=32, grid=None
):
    """MTF of one field at ``frequency`` with the image surface moved by ``defocus``.

    Parameters
    ----------
    frequency : float
        Cycles/mm on the image surface.
    defocus : float
        Image-surface shift along z in mm (positive away from the lens).
    field : int
        Index into the optic's fields.
    direction : {"tangential", "sagittal", "mean"}
    wavelength : int, optional
        Index into the optic's wavelengths: that wavelength alone.  By default
        every wavelength with its weight (polychromatic) when the lens has
        several.
    samples : int
        Pupil samples N across the diameter (fixed: no convergence loop).
    grid : int, optional
        FFT size G (default 2N rounded up to a fast size).
    """
    if direction not in _DIRECTIONS:
        raise ConfigurationError(
            f"through_focus_mtf direction must be one of {_DIRECTIONS}, not {direction!r}"
        )
    point = ctx.field(field)
    ctx.chief([point], "through_focus_mtf")
    chosen = None if wavelength is None else ctx.wavelength(wavelength)
    wavelengths, weights, reference, _ = spectrum(ctx.optic, chosen)
    samples = int(samples)
    traced = trace_pupils(ctx.optic, [point], wavelengths, samples)
    pupil = pupil_functions(traced, float(defocus))
    check_sampling(pupil.max_step_waves, point, samples)
    size = fast_size(2 * samples) if grid is None else int(grid)
    frequencies = be.asarray([float(frequency)])
    tangential, sagittal, _, _ = mtf_of_pupils(pupil, weights, reference, frequencies, size)
    if direction == "tangential":
        return tangential[0, 0]
    if direction == "sagittal":
        return sagittal[0, 0]
    return 0.5 * (tangential[0, 0] + sagittal[0, 0])


register_operand("through_focus_mtf", through_focus_mtf, replace=True)
