"""Multilayer thin films by the characteristic-matrix (Abelès) method.

For one polarization a film j of index n_j and physical thickness d_j has
the tilted admittance η_j (s: n_j cos θ_j; p: n_j / cos θ_j, in units of the
vacuum admittance) and the phase thickness δ_j = 2π n_j d_j cos θ_j / λ, and
relates the tangential fields at its two faces by (Macleod, *Thin-Film
Optical Filters*, ch. 2, written for exp(−iωt))::

    M_j = [[cos δ_j,          −i sin δ_j / η_j],
           [−i η_j sin δ_j,    cos δ_j        ]]

    [B, C] = M_1 M_2 … M_N [1, η_sub]
    r = (η_0 B − C) / (η_0 B + C),   t_tangential = 2 η_0 / (η_0 B + C)

The p results are brought to the convention of :mod:`optics.coatings.fresnel`
(rp = −r, and the full field tp = t_tangential cos θ_0 / cos θ_sub), so that a
coating of no layers is the bare interface.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass

from .. import backend as be
from ..errors import OpticsError
from ..materials import material_from_spec
from ._media import film_index
from ._response import Response
from .fresnel import as_complex, fresnel_amplitudes, normal_components, normal_wavenumber

__all__ = ["Coating", "Layer"]

UNITS = ("nm", "qw")
"""Layer thickness units: nanometres, or quarter waves of optical thickness at the reference."""
ORDERS = ("low_index_first", "as_listed")
"""How the layers face the two media (see :class:`Coating`)."""


@dataclass
class Layer:
    """One film of a coating.

    Attributes
    ----------
    material : Material, str or number
        An optics material (``CatalogGlass("MgF2")``, ``ConstantIndex``..., or
        a lens-file material value such as ``"MgF2"``), a
        :class:`~optics.coatings.ComplexIndex`, or a (complex) number.
    thickness : float or 0-d array
        In ``unit``; a 0-d tensor that requires grad keeps the coating's
        amplitudes differentiable in it.
    unit : str
        ``"nm"`` (physical thickness) or ``"qw"`` (quarter waves of optical
        thickness n d at the coating's reference wavelength, normal incidence:
        1 is a quarter-wave layer).
    """

    material: object
    thickness: object
    unit: str = "nm"

    def __post_init__(self):
        if isinstance(self.material, (str, Mapping)):  # a lens-file value: "MgF2", {index = 1.38}
            self.material = material_from_spec(self.material, where="coating layer")
        if self.unit not in UNITS:
            raise OpticsError(f"layer unit must be one of {', '.join(UNITS)}, not {self.unit!r}")
        value = self.thickness
        if isinstance(value, numbers.Real) and not (math.isfinite(value) and value >= 0):
            raise OpticsError(f"layer thickness must be finite and >= 0, got {value!r}")

    def to_spec(self):
        """``{"material": ..., "thickness": ..., "unit": ...}`` (unit left out when "nm")."""
        material = self.material
        if isinstance(material, numbers.Number) or be.is_array(material):
            value = as_complex(material)
            n, kappa = float(be.item(be.fft.real(value))), float(be.item(be.fft.imag(value)))
            spec = {"material": {"index": n, "k": kappa} if kappa else {"index": n}}
        else:
            spec = {"material": material.to_spec()}
        spec["thickness"] = float(be.item(self.thickness))
        if self.unit != "nm":
            spec["unit"] = self.unit
        return spec

    def thickness_um(self, reference_wavelength):
        """Physical thickness in µm (a quarter-wave count converted at the reference)."""
        if self.unit == "nm":
            return self.thickness * 1e-3
        if reference_wavelength is None:
            raise OpticsError(
                "a layer in quarter waves ('qw') needs the coating's reference_wavelength"
            )
        n_ref = be.fft.real(film_index(self.material, reference_wavelength))
        return self.thickness * reference_wavelength / (4.0 * n_ref)


class Coating(Response):
    """A stack of thin films on an interface.

    Parameters
    ----------
    layers : sequence of Layer
        The films, listed from the low-index side (the air side of an
        air–glass surface) toward the substrate, as in a Zemax coating file.
    reference_wavelength : float, optional
        µm; required when a layer is given in quarter waves.
    name : str, optional
        The name a lens file's ``[coatings]`` table knows it by.
    order : {"low_index_first", "as_listed"}
        ``"low_index_first"`` (default, Zemax's rule): where Re n1 > Re n2 (a
        ray leaving the glass) the stack is applied in reverse, so that one
        coating serves both faces of a lens.  ``"as_listed"``: the first layer
        always faces medium 1.
    """

    def __init__(self, layers=(), reference_wavelength=None, *, name=None, order=ORDERS[0]):
        self.layers = list(layers)
        for i, layer in enumerate(self.layers):
            if not isinstance(layer, Layer):
                raise OpticsError(f"coating layer {i} must be a Layer, not {type(layer).__name__}")
        if order not in ORDERS:
            raise OpticsError(f"coating order must be one of {', '.join(ORDERS)}, not {order!r}")
        if reference_wavelength is not None and not (
            isinstance(reference_wavelength, numbers.Real) and reference_wavelength > 0
        ):
            raise OpticsError(
                "reference_wavelength must be a positive wavelength in µm, not "
                f"{reference_wavelength!r}"
            )
        self.reference_wavelength = reference_wavelength
        self.name = name
        self.order = order

    def __repr__(self):
        return (
            f"Coating({self.layers!r}, reference_wavelength={self.reference_wavelength!r}, "
            f"name={self.name!r})"
        )

    def amplitudes(self, n1, n2, cos_i, wavelength):
        """Field amplitudes (rs, rp, ts, tp) of the coated interface from medium 1 to 2.

        Parameters
        ----------
        n1, n2 : array or number, broadcastable
            Indices of the incident medium and the substrate (complex allowed).
        cos_i : array or number, broadcastable
            Cosine of the angle of incidence in medium 1.
        wavelength : array or number, broadcastable
            Vacuum wavelength, µm.

        Returns
        -------
        rs, rp, ts, tp : complex arrays, the broadcast shape
            Same convention as :func:`optics.coatings.fresnel_amplitudes`, which
            a coating of no layers returns exactly.
        """
        if not self.layers:
            return fresnel_amplitudes(n1, n2, cos_i)
        # Which face meets medium 1, known without a device read when the indices are numbers.
        known = None if be.is_array(n1) or be.is_array(n2) else complex(n1).real > complex(n2).real
        n1, n2, q1, q2, invariant = normal_components(n1, n2, cos_i)
        films = [self._film(layer, wavelength, invariant) for layer in self.layers]
        if self.order == "as_listed" or len(films) == 1 or known is False:
            return _stack(films, n1, n2, q1, q2)
        backward = _stack(films[::-1], n1, n2, q1, q2)
        if known:
            return backward
        forward = _stack(films, n1, n2, q1, q2)
        leaving = be.fft.real(n1) > be.fft.real(n2)
        return tuple(be.where(leaving, b, f) for f, b in zip(forward, backward))

    def _film(self, layer, wavelength, invariant):
        """(n_j², q_j = n_j cos θ_j, δ_j) of one layer."""
        n = film_index(layer.material, wavelength)
        q = normal_wavenumber(n, invariant)
        delta = (2.0 * math.pi) * q * layer.thickness_um(self.reference_wavelength) / wavelength
        return n * n, q, delta

    def to_spec(self):
        """The ``[coatings.NAME]`` table of a lens file (docs/coatings.md)."""
        spec = {"layers": [layer.to_spec() for layer in self.layers]}
        if self.reference_wavelength is not None:
            spec["reference_wavelength"] = float(self.reference_wavelength)
        if self.order != ORDERS[0]:
            spec["order"] = self.order
        return spec


def _stack(films, n1, n2, q1, q2):
    """(rs, rp, ts, tp) of ``films`` between media 1 and 2, the first film facing medium 1."""
    out = []
    for polarization in ("s", "p"):
        if polarization == "s":
            eta_0, eta_sub = q1, q2
        else:
            eta_0, eta_sub = n1 * n1 / q1, n2 * n2 / q2
        b, c = 1.0, eta_sub
        for n_sq, q, delta in reversed(films):
            eta = q if polarization == "s" else n_sq / q
            cos_d, sin_d = be.cos(delta), be.sin(delta)
            b, c = cos_d * b - 1j * sin_d / eta * c, -1j * eta * sin_d * b + cos_d * c
        denominator = eta_0 * b + c
        r = (eta_0 * b - c) / denominator
        t = 2.0 * eta_0 / denominator
        if polarization == "p":  # Macleod's p amplitudes -> the fresnel.py convention
            r = -r
            t = t * (q1 / n1) * (n2 / q2)
        out.append((r, t))
    (rs, ts), (rp, tp) = out
    return rs, rp, ts, tp
