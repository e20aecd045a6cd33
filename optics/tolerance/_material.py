"""A glass with its d-line index and Abbe number shifted: the material of index and Abbe tolerances.

Any base material (catalog glass, Abbe model, constant index) keeps its own
dispersion curve; the shift adds Δn to the index and scales the dispersion
about the d line so that the new glass has exactly nd + Δn and vd + Δv::

    n'(λ) = n(λ) + Δn + (n(λ) − nd) (ρ − 1),
    ρ = (nd + Δn − 1) / ((nd − 1) + Δv (nF − nC))

Then n'(λd) = nd + Δn and (n'(λd) − 1) / (n'(λF) − n'(λC)) = vd + Δv; on an
Abbe-model glass the result is the Abbe model with (nd + Δn, vd + Δv).  The
form has no 1/vd, so a non-dispersive medium (nF = nC) takes an index shift.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import backend as be
from ..materials import WAVELENGTH_C, WAVELENGTH_D, WAVELENGTH_F, Abbe, Material


@dataclass
class ShiftedGlass(Material):
    """``base`` with its d-line index shifted by ``delta_index``, its Abbe number by ``delta_abbe``.

    Attributes
    ----------
    base : Material
    delta_index : float or 0-d array
        Δn (unitless).
    delta_abbe : float or 0-d array
        Δv (unitless).
    """

    base: Material
    delta_index: object = 0.0
    delta_abbe: object = 0.0

    def index(self, wavelength):
        """n'(λ) for ``wavelength`` in µm (any shape); see the module notes."""
        n = self.base.index(wavelength)
        nd = self.base.index(be.full_like(wavelength, WAVELENGTH_D))
        nf = self.base.index(be.full_like(wavelength, WAVELENGTH_F))
        nc = self.base.index(be.full_like(wavelength, WAVELENGTH_C))
        ratio = (nd + self.delta_index - 1.0) / ((nd - 1.0) + self.delta_abbe * (nf - nc))
        return n + self.delta_index + (n - nd) * (ratio - 1.0)

    def to_spec(self):
        """An Abbe table ``{nd, vd}`` of the shifted glass (its dispersion curve simplified)."""
        wavelengths = be.asarray([WAVELENGTH_D, WAVELENGTH_F, WAVELENGTH_C])
        nd, nf, nc = (float(v) for v in be.to_numpy(self.index(wavelengths)))
        return Abbe(nd, (nd - 1.0) / (nf - nc)).to_spec()


def dispersion(material) -> float:
    """nF − nC of ``material`` (0 for a non-dispersive medium)."""
    values = be.to_numpy(material.index(be.asarray([WAVELENGTH_F, WAVELENGTH_C])))
    return float(values[0] - values[1])


def d_line(material):
    """(nd, vd) of ``material`` as floats (vd is inf without dispersion)."""
    nd = float(be.to_numpy(material.index(be.asarray([WAVELENGTH_D])))[0])
    spread = dispersion(material)
    return nd, (nd - 1.0) / spread if spread else float("inf")
