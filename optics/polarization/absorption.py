"""Bulk absorption of a medium: an optional ``absorption`` attribute of a material.

No catalog material carries transmittance data yet, so absorption is opt-in: any
material with an attribute ``absorption`` (the intensity absorption coefficient α in
1/mm, a number or a function of the wavelength in µm) attenuates a ray's field by
exp(−α d / 2) over a geometric path of d mm (its power by the internal transmittance
exp(−α d)).  :class:`Absorbing` gives any material one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import ConfigurationError
from ..materials import Material

__all__ = ["Absorbing", "absorption_of"]


@dataclass(frozen=True, eq=False)
class Absorbing(Material):
    """``material`` with an absorption coefficient ``absorption`` (1/mm, or a callable of µm).

    The index is the wrapped material's; :meth:`to_spec` writes the wrapped material
    (lens files do not carry absorption).
    """

    material: Material
    absorption: object

    def __post_init__(self):
        value = self.absorption
        if not callable(value) and not (isinstance(value, (int, float)) and value >= 0):
            raise ConfigurationError(
                f"absorption must be a coefficient >= 0 in 1/mm or a function of the "
                f"wavelength, not {value!r}"
            )

    @classmethod
    def from_transmittance(cls, material, transmittance, thickness_mm):
        """The coefficient of an internal transmittance τ (0 < τ <= 1) over ``thickness_mm``."""
        if not (0.0 < transmittance <= 1.0) or not thickness_mm > 0:
            raise ConfigurationError(
                f"internal transmittance {transmittance!r} over {thickness_mm!r} mm: need "
                "0 < transmittance <= 1 and a positive thickness"
            )
        return cls(material, -math.log(transmittance) / thickness_mm)

    def index(self, wavelength):
        """The wrapped material's index at ``wavelength`` (µm)."""
        return self.material.index(wavelength)

    def to_spec(self):
        """The wrapped material's spec."""
        return self.material.to_spec()


def absorption_of(material, wavelength):
    """α (1/mm) of ``material`` at ``wavelength`` (µm), or None when it does not absorb.

    Parameters
    ----------
    material : Material
        Any material; it absorbs when it has an ``absorption`` attribute that is not None
        (:class:`Absorbing` gives one).
    wavelength : float
        Vacuum wavelength in µm (passed to a callable ``absorption``).

    Returns
    -------
    float or None
        The intensity absorption coefficient α in 1/mm (whatever a callable ``absorption``
        returns for ``wavelength``); None for a material without one.
    """
    value = getattr(material, "absorption", None)
    if value is None:
        return None
    return value(wavelength) if callable(value) else value
