"""Merit operands on the aberration analyses: Seidel sums, field curvature, distortion, colour.

Each is a function of the merit context (``ctx.optic``, ``ctx.wavelength(i)``,
``ctx.first_order``) and its lens-file keys, returning a 0-d array that keeps
gradients: the Seidel sums and the focal shift are paraxial backend
arithmetic, field curvature, distortion and lateral colour differentiate
through real rays (:func:`optics.trace_rays`).  Fields are normalized heights
``hy`` (0..1, hx = 0); wavelengths are indices into the lens's list.
"""

from __future__ import annotations

from .. import backend as be
from ..analysis._colour import back_focus
from ..analysis._distortion import chief_heights
from ..analysis._field_curvature import focus_shifts
from ..analysis._seidel import SEIDEL_TERMS
from ..analysis._seidel import seidel as seidel_sums
from ..errors import ConfigurationError
from ..trace.real_image_height import field_parameters

__all__ = ["ANALYSIS_OPERANDS"]

_DIRECTIONS = ("tangential", "sagittal")


def seidel(ctx, term="S1", surface=None):
    """A Seidel sum (mm, Welford's convention): the total, or of one surface.

    Parameters
    ----------
    term : {"S1", "S2", "S3", "S4", "S5", "CL", "CT"}
    surface : int, optional
        Surface number (1 .. image); default the sum over the surfaces.
    """
    if term not in SEIDEL_TERMS:
        raise ConfigurationError(f"seidel term must be one of {SEIDEL_TERMS}, not {term!r}")
    result = seidel_sums(ctx.optic)
    if surface is None:
        return be.asarray(result.sums[term]) + 0.0
    count = len(result.surfaces)
    if isinstance(surface, bool) or not isinstance(surface, int) or not 1 <= surface <= count:
        raise ConfigurationError(f"seidel surface must be 1 to {count}, not {surface!r}")
    return be.asarray(result.surfaces[surface - 1][term]) + 0.0


def field_curvature(ctx, hy=1.0, direction="tangential", wavelength=None):
    """Tangential or sagittal focus minus the image surface z (mm) at field ``hy``."""
    if direction not in _DIRECTIONS:
        raise ConfigurationError(
            f"field_curvature direction must be one of {_DIRECTIONS}, not {direction!r}"
        )
    t, s = focus_shifts(ctx.optic, be.asarray([float(hy)]), ctx.wavelength(wavelength))
    return (t if direction == "tangential" else s)[0]


def distortion_percent(ctx, hy=1.0, wavelength=None, reference="f-tan"):
    """Distortion (percent) at field ``hy`` against f tan θ (or f θ), as ``optics distortion``."""
    if float(hy) == 0.0:
        raise ConfigurationError("distortion_percent is undefined on axis: give hy nonzero")
    fields = be.asarray([float(hy)])
    _, q = field_parameters(ctx.system, be.zeros_like(fields), fields)
    real, ideal = chief_heights(ctx.system, fields, q, ctx.wavelength(wavelength), reference)
    return (100.0 * (real - ideal) / ideal)[0]


def focal_shift(ctx, wavelength=0):
    """Paraxial back focus at wavelength index ``wavelength`` minus the primary's (mm)."""
    reference = back_focus(ctx.optic, ctx.wavelength(None))
    shift = back_focus(ctx.optic, ctx.wavelength(wavelength)) - reference
    return be.where(be.asarray(reference) < 0, -1.0, 1.0) * shift


#: Operand name -> function, merged into ``optics.optimize.operands.OPERANDS``.
ANALYSIS_OPERANDS = {
    "seidel": seidel,
    "field_curvature": field_curvature,
    "distortion_percent": distortion_percent,
    "focal_shift": focal_shift,
}
