"""The fibre-coupling merit operand: a Gaussian beam through the lens into a fibre's mode.

``fibre_coupling`` is :func:`optics.beams.fibre_coupling`: the overlap efficiency η of the
image-side Gaussian beam (input waist ``waist`` mm, at ``waist_position`` mm from surface 1,
default on the object) with a fibre mode of ``mode_field_radius`` mm at the image surface.
Target 1 (a weight on 1 − η).  Registered with :func:`optics.optimize.register_operand`
when :mod:`optics.optimize` is imported; in a lens file:
``{ type = "fibre_coupling", waist = 0.005, mode_field_radius = 0.0052, target = 1.0 }``.
"""

from __future__ import annotations

from ..errors import ConfigurationError
from .operands_user import register_operand

__all__ = ["fibre_coupling"]


def fibre_coupling(ctx, waist, mode_field_radius, waist_position=None, wavelength=None):
    """Coupling efficiency η (0 .. 1) of a Gaussian beam through the lens into a fibre.

    Parameters
    ----------
    ctx : MeritContext
    waist : float
        Input beam waist radius (1/e² intensity), mm.
    mode_field_radius : float
        The fibre mode's 1/e² intensity radius at the image surface, mm.
    waist_position : float, optional
        z(input waist) − z(surface 1), mm; default the object (surface 1 at infinity).
    wavelength : int, optional
        0-based wavelength index; default the primary.

    Returns
    -------
    0-d array
        Differentiable in the optic's parameters (radii, thicknesses, indices ...).
    """
    for name, value in (("waist", waist), ("mode_field_radius", mode_field_radius)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise ConfigurationError(
                f"operand 'fibre_coupling': key {name!r} must be a positive number of mm, "
                f"not {value!r}"
            )
    from ..beams import fibre_coupling as coupling  # imported when the operand runs

    return coupling(
        ctx.optic,
        float(waist),
        float(mode_field_radius),
        wavelength=ctx.wavelength(wavelength),
        waist_position=None if waist_position is None else float(waist_position),
    )


register_operand("fibre_coupling", fibre_coupling, replace=True)
