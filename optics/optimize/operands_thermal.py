"""The thermal merit operand: paraxial focus shift against the image surface over temperature.

``thermal_focus_shift`` (mm) is :func:`optics.thermal.focus_shift_at`: the optic expanded
to ``temperature`` (°C; glass CTE from the catalog, air gaps by the mount) with its
indices there (Schott's dn/dT formula, air at the optic's pressure), its paraxial focus
measured from the image surface, minus the same at ``reference`` (default the optic's
own temperature).  Target 0 for an athermal design; a pair of operands at the two ends
of a temperature range keeps the whole range in focus.  Registered with
:func:`optics.optimize.register_operand` when :mod:`optics.optimize` is imported.
"""

from __future__ import annotations

from ..thermal import focus_shift_at
from .operands_user import register_operand

__all__ = ["thermal_focus_shift"]


def thermal_focus_shift(ctx, temperature, reference=None, pressure=None, wavelength=None):
    """Paraxial focus shift (mm) from ``reference`` to ``temperature`` (°C).

    Parameters
    ----------
    ctx : MeritContext
    temperature : float
        °C.
    reference : float, optional
        °C; default the optic's own temperature (20 without an ``[environment]``).
    pressure : float, optional
        atm at both temperatures; default the optic's.
    wavelength : int, optional
        0-based wavelength index; default the primary.

    Returns
    -------
    0-d array
        Differentiable in the optic's parameters (radii, thicknesses, ...).
    """
    return focus_shift_at(
        ctx.optic,
        float(temperature),
        reference=None if reference is None else float(reference),
        pressure=None if pressure is None else float(pressure),
        wavelength=ctx.wavelength(wavelength),
    )


register_operand("thermal_focus_shift", thermal_focus_shift, replace=True)
