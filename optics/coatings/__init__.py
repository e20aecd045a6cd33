"""Thin-film coatings: Fresnel coefficients, multilayer stacks, ideal coatings (docs/coatings.md).

Every coating has ``amplitudes(n1, n2, cos_i, wavelength) -> (rs, rp, ts, tp)`` in the
convention of :mod:`optics.coatings.fresnel`; a surface without a coating (``None``) is
the bare interface, :func:`interface_amplitudes` says both in one call.  Written against
``be`` alone: differentiable on Torch and JAX in thicknesses, indices and angles.
"""

from __future__ import annotations

from .. import backend as _be
from ._films import ORDERS, UNITS, Coating, Layer
from ._ideal import IdealCoating
from ._media import ComplexIndex, TabulatedIndex
from ._response import POLARIZATIONS
from ._spec import coating_from_spec, coatings_from_table, coatings_to_table, surface_coating
from .fresnel import fresnel_amplitudes, fresnel_power, power_from_amplitudes

__all__ = [
    "ORDERS",
    "POLARIZATIONS",
    "UNITS",
    "Coating",
    "ComplexIndex",
    "IdealCoating",
    "Layer",
    "TabulatedIndex",
    "coating_from_spec",
    "coatings_from_table",
    "coatings_to_table",
    "fresnel_amplitudes",
    "fresnel_power",
    "interface_amplitudes",
    "power_from_amplitudes",
    "surface_coating",
]


def interface_amplitudes(coating, n1, n2, cos_i, wavelength):
    """(rs, rp, ts, tp) of an interface with ``coating`` (None: the bare Fresnel interface).

    Parameters
    ----------
    coating : Coating, IdealCoating, any object with ``amplitudes``, or None
    n1, n2, cos_i, wavelength : array or number, broadcastable
        Indices before and after, cosine of incidence in medium 1, vacuum
        wavelength in µm; any shapes that broadcast together (to shape S).

    Returns
    -------
    rs, rp, ts, tp : complex arrays, the broadcast shape
        Amplitude coefficients, each of shape S.
    """
    if coating is None:
        return fresnel_amplitudes(n1, n2, cos_i)
    return coating.amplitudes(n1, n2, cos_i, wavelength)


_be.pin_public(globals(), __all__)  # one configuration per call, whatever other threads set
