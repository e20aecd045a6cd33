"""Diffractive surfaces: a linear grating (``grating``) and a radial phase (``radial_phase``).

Each is a surface shape (a sphere or conic, ``radius = inf`` a plane, or an
even asphere) that carries a phase φ(x, y) in radians, a function of the local x and y (so the
grating lines are evenly spaced in projection onto the vertex plane, as in
Zemax).  At a hit point with unit normal n̂, incoming unit direction k in a
medium of index n, and vacuum wavelength λ (mm), the ray leaves along k′ in
the medium of index n′ (n′ = n on a mirror) with

    n′ k′ₜ = n kₜ + (λ / 2π) ∇ₜφ,        n′ k′ · n̂ = ± √(n′² − |n′ k′ₜ|²),

ₜ the component in the tangent plane (the surface gradient of φ is the
projection of (∂φ/∂x, ∂φ/∂y, 0) on it), the sign that of k · n̂ through the
surface and the opposite on a mirror.  Where the root is imaginary the order
is evanescent and the ray invalid.  The optical path gains λ φ / 2π: by
Fermat's principle this is the path that goes with the deflection along +∇φ
(a plane grating turns a plane wave into the tilted plane wave; a phase
φ = (2π/λ)(f − √(r² + f²)) focuses a collimated beam at f with equal paths).
Order 0 (or φ = 0) is plain refraction or reflection.

grating
    φ = 2π m T y, T the line density in lines per µm, m the diffraction order;
    the lines are parallel to the local x axis, so n′M′ = nM + m λ T on a plane.
radial_phase, even_asphere_phase (Zemax BINARY_2)
    φ = m Σᵢ Aᵢ ρ^(2i), ρ = r / R (R the normalization radius, mm), on a
    standard surface or on an even asphere; its paraxial power is
    −m A₁ λ / (π R²) (1/mm, λ in mm): a diffractive lens with A₁ < 0 converges
    for m = 1.
"""

from __future__ import annotations

import math

from .. import accel
from .. import backend as be
from ..errors import LensFileError
from .aspheres import EvenAsphere
from .base import number, register
from .conic import Standard, raise_zero_radius

#: mm per µm: the rays' wavelengths are in µm, lengths in mm.
_MM_PER_UM = 1e-3


class _Phase:
    """The trace hook of a phase, mixed into a shape; subclasses give :meth:`phase_and_gradient`."""

    def phase_and_gradient(self, x, y):
        """Phase φ (radians) and ∂φ/∂x, ∂φ/∂y (radians per mm) at local (x, y)."""
        raise NotImplementedError

    def paraxial_power(self, wavelength):
        """The power (1/mm) the paraxial trace adds at ``wavelength`` (µm); 0 by default."""
        return 0.0

    def redirect(self, x, y, z, L, M, N, normal, n_before, n_after, wavelength, mirror):
        """Direction after the surface, the optical path added (mm) and the non-evanescent mask.

        ``normal(x, y, z)`` gives the unit normal at the hit points; see the
        module docstring for the equations.
        """
        phase, phase_x, phase_y = self.phase_and_gradient(x, y)
        scale = wavelength * (_MM_PER_UM / (2.0 * math.pi))
        nx, ny, nz = normal(x, y, z)
        ax = accel.add_product(n_before * L, scale, phase_x)
        ay = accel.add_product(n_before * M, scale, phase_y)
        az = n_before * N
        along = ax * nx + ay * ny + az * nz
        tx, ty, tz = ax - along * nx, ay - along * ny, az - along * nz
        n_out = n_before if mirror else n_after
        left = n_out * n_out - (tx * tx + ty * ty + tz * tz)
        propagates = left >= 0
        root = be.sqrt(be.where(propagates, left, 1.0))
        cos_in = L * nx + M * ny + N * nz
        normal_part = be.copysign(root, -cos_in if mirror else cos_in)
        inv = 1.0 / n_out
        L = (tx + normal_part * nx) * inv
        M = (ty + normal_part * ny) * inv
        N = (tz + normal_part * nz) * inv
        return L, M, N, scale * phase, propagates


def _base_from_spec(spec, where):
    radius = number(spec, "radius", where, math.inf)
    if radius == 0:
        raise_zero_radius(where)
    return radius, number(spec, "conic", where, 0.0)


def _order(spec, where):
    order = number(spec, "order", where, 1)
    if isinstance(order, (int, float)) and not float(order).is_integer():
        raise LensFileError(f"{where}: key 'order' must be a whole number, not {order!r}")
    return order


@register
class Grating(_Phase, Standard):
    """A linear diffraction grating (Zemax DGRATING) on a sphere, conic or plane.

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        The base surface (mm, unitless).
    lines_per_um : float or 0-d tensor
        Line density T in lines per µm; the lines are parallel to the local x
        axis, evenly spaced in projection onto the vertex plane.
    order : int or float
        Diffraction order m (0: a plain refracting or reflecting surface).
    """

    type_name = "grating"
    spec_keys = ("radius", "conic", "lines_per_um", "order")

    def __init__(self, radius=math.inf, conic=0.0, lines_per_um=1.0, order=1):
        super().__init__(radius, conic)
        self.lines_per_um = lines_per_um
        self.order = order

    def phase_and_gradient(self, x, y):
        per_mm = 2.0 * math.pi * 1e3 * (self.order * self.lines_per_um)  # radians per mm
        zero = 0.0 * x
        return per_mm * y, zero, zero + per_mm

    @classmethod
    def from_spec(cls, spec, where):
        radius, conic = _base_from_spec(spec, where)
        density = number(spec, "lines_per_um", where, positive=True)
        return cls(radius, conic, density, _order(spec, where))

    def to_spec(self):
        return {
            **Standard.to_spec(self),
            "lines_per_um": be.item(self.lines_per_um),
            "order": _plain_order(self.order),
        }


class _RadialPhaseTerms(_Phase):
    """φ = m Σᵢ Aᵢ ρ^(2i), ρ = r / R: the phase of ``radial_phase`` and ``even_asphere_phase``."""

    phase_keys = ("phase_coefficients", "norm_radius", "order")

    def _set_phase(self, phase_coefficients, norm_radius, order):
        self.phase_coefficients = list(phase_coefficients)
        self.norm_radius = norm_radius
        self.order = order

    def phase_and_gradient(self, x, y):
        inv_r2 = 1.0 / (self.norm_radius * self.norm_radius)
        u = (x * x + y * y) * inv_r2  # ρ²
        value, slope = 0.0 * u, 0.0 * u  # Σ Aᵢ uⁱ⁻¹ and Σ i Aᵢ uⁱ⁻¹, by Horner's rule
        for i in range(len(self.phase_coefficients), 0, -1):
            a = self.phase_coefficients[i - 1]
            value = value * u + a
            slope = slope * u + i * a
        m = self.order
        twice = 2.0 * m * inv_r2 * slope  # ∂φ/∂x = twice · x
        return m * (value * u), twice * x, twice * y

    def paraxial_power(self, wavelength):
        """−m A₁ λ / (π R²) in 1/mm at ``wavelength`` (µm)."""
        if not self.phase_coefficients:
            return 0.0
        lam = wavelength * _MM_PER_UM
        a1 = self.phase_coefficients[0]
        return -self.order * a1 * lam / (math.pi * self.norm_radius * self.norm_radius)

    @staticmethod
    def _phase_from_spec(spec, where):
        from .newton_spec import number_list

        return (
            number_list(spec, "phase_coefficients", where, default=[]),
            number(spec, "norm_radius", where, 1.0, positive=True),
            _order(spec, where),
        )

    def _phase_spec(self):
        return {
            "phase_coefficients": [be.item(a) for a in self.phase_coefficients],
            "norm_radius": be.item(self.norm_radius),
            "order": _plain_order(self.order),
        }


@register
class RadialPhase(_RadialPhaseTerms, Standard):
    """A rotationally symmetric phase surface (Zemax BINARY_2) on a sphere, conic or plane.

    Parameters
    ----------
    radius, conic : float or 0-d tensor
        The base surface (mm, unitless).
    phase_coefficients : list of float or 0-d tensor
        Aᵢ (radians), the ρ², ρ⁴, ρ⁶ ... terms of φ = m Σᵢ Aᵢ ρ^(2i).
    norm_radius : float or 0-d tensor
        Normalization radius R (mm), ρ = r / R.
    order : int or float
        Diffraction order m.
    """

    type_name = "radial_phase"
    spec_keys = ("radius", "conic") + _RadialPhaseTerms.phase_keys

    def __init__(self, radius=math.inf, conic=0.0, phase_coefficients=(), norm_radius=1.0, order=1):
        super().__init__(radius, conic)
        self._set_phase(phase_coefficients, norm_radius, order)

    @classmethod
    def from_spec(cls, spec, where):
        radius, conic = _base_from_spec(spec, where)
        return cls(radius, conic, *cls._phase_from_spec(spec, where))

    def to_spec(self):
        return {**Standard.to_spec(self), **self._phase_spec()}


@register
class EvenAspherePhase(_RadialPhaseTerms, EvenAsphere):
    """An even asphere carrying a radial phase: the whole of Zemax BINARY_2.

    Parameters
    ----------
    radius, conic, coefficients, tol, max_iter
        The even asphere (:class:`optics.geometry.aspheres.EvenAsphere`): its
        ``coefficients`` are the sag's r², r⁴ ... terms.
    phase_coefficients, norm_radius, order
        The phase, as for :class:`RadialPhase`.
    """

    type_name = "even_asphere_phase"
    spec_keys = EvenAsphere.spec_keys + _RadialPhaseTerms.phase_keys

    def __init__(
        self,
        radius,
        conic=0.0,
        coefficients=(),
        phase_coefficients=(),
        norm_radius=1.0,
        order=1,
        **solver,
    ):
        super().__init__(radius, conic, coefficients, **solver)
        self._set_phase(phase_coefficients, norm_radius, order)

    @classmethod
    def from_spec(cls, spec, where):
        from .newton_spec import common_from_spec, number_list

        common = common_from_spec(spec, where)
        sag = number_list(spec, "coefficients", where, default=[])
        phase, norm, order = cls._phase_from_spec(spec, where)
        return cls(
            coefficients=sag, phase_coefficients=phase, norm_radius=norm, order=order, **common
        )

    def to_spec(self):
        return {**EvenAsphere.to_spec(self), **self._phase_spec()}


def _plain_order(order):
    value = be.item(order)
    return int(value) if float(value).is_integer() else value


__all__ = ["EvenAspherePhase", "Grating", "RadialPhase"]
