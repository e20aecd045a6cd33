"""Perturbations: how each tolerance item changes an optic, one or two components each.

A perturbation is bound to the optic it was checked against and applies a
vector of component values (floats, or 0-d arrays that keep gradients) to a
copy of it, reading the copy's current state, so items stack in list order:

- ``parameter``: the value at ``path`` plus δ (units of the parameter);
- ``decenter``: every surface of the element moved by (δx, δy) mm;
- ``tilt``: the element rotated rigidly by Ry(δy) Rx(δx) (degrees) about its
  first vertex: each surface's vertex moves to P + R (V − P) and its
  orientation becomes R R₀; the (second-order) axial vertex shifts go into
  the thicknesses inside the element and after it, so later surfaces stay put;
- ``index`` / ``abbe``: the glass after the surface shifted by Δn / Δv
  (:class:`~optics.tolerance._material.ShiftedGlass`);
- ``power``: N fringes of power at test wavelength λ over semi-aperture a.
  One fringe is λ/2 of sag departure at the edge (a double-pass test plate),
  and sag ≈ c r²/2, so the curvature changes by Δc = N λ / a²;
- ``irregularity``: N fringes of astigmatism on a ``zernike`` surface: the
  cos 2θ term (Noll Z6 = √6 ρ² cos 2θ, Fringe Z5 = ρ² cos 2θ) gets the
  coefficient whose peak-to-valley sag over the semi-aperture a is N λ/2.
"""

from __future__ import annotations

import math

from .. import backend as be
from ..errors import LensFileError, OpticsError
from ..frames import rotation_matrix, vertex_z
from ..geometry.freeforms import Zernike
from ..materials import Air, Mirror
from ..params import get_param, set_param
from ._material import ShiftedGlass, d_line, dispersion

_DEG = 180.0 / math.pi
#: Zernike ordering -> (0-based coefficient index of the cos 2θ astigmatism, its PV on the disk).
_ASTIGMATISM = {"noll": (5, 2.0 * math.sqrt(6.0)), "fringe": (4, 2.0)}


def bind(item, optic, where):
    """The perturbation of checked ``item`` on ``optic`` (raises LensFileError naming the key)."""
    if item.kind == "parameter":
        return _Parameter(item, optic, where)
    _check_surfaces(item.surfaces or (item.surface,), optic, where)
    return _KINDS[item.kind](item, optic, where)


def _is_zero(value):
    return isinstance(value, (int, float)) and value == 0


def _check_surfaces(numbers, optic, where):
    last = len(optic.surfaces) - 2
    for number in numbers:
        if not 1 <= number <= last:
            key = "surfaces" if len(numbers) > 1 else "surface"
            raise LensFileError(
                f"{where}: key '{key}': surface {number} is not a lens surface (1 to {last})"
            )


def _half_width(item, nominal, where):
    if item.plus_minus is not None:
        return item.plus_minus
    if not math.isfinite(nominal) or nominal == 0:
        raise LensFileError(
            f"{where}: key 'relative' needs a finite nonzero nominal value, not {nominal}"
        )
    return item.relative * abs(nominal)


class _Perturbation:
    """Components: ``labels`` (one per component) and ``half_widths`` in the item's units."""

    labels: tuple
    half_widths: tuple

    def apply(self, optic, values):
        """Change ``optic`` in place by the component values (sequence, one per component)."""
        raise NotImplementedError


class _Parameter(_Perturbation):
    def __init__(self, item, optic, where):
        try:
            nominal = float(be.item(get_param(optic, item.path)))
        except OpticsError as exc:
            raise LensFileError(f"{where}: key 'path': {exc}") from exc
        self.path = item.path
        self.labels = (item.path,)
        self.half_widths = (_half_width(item, nominal, where),)

    def apply(self, optic, values):
        if not _is_zero(values[0]):
            set_param(optic, self.path, get_param(optic, self.path) + values[0])


class _Decenter(_Perturbation):
    def __init__(self, item, optic, where):
        self.surfaces = item.surfaces
        name = _element(item.surfaces)
        self.labels = (f"decenter x {name}", f"decenter y {name}")
        self.half_widths = (item.plus_minus, item.plus_minus)

    def apply(self, optic, values):
        if all(_is_zero(v) for v in values):
            return
        for number in self.surfaces:
            surface = optic.surfaces[number]
            dx, dy = surface.decenter if surface.decenter is not None else (0.0, 0.0)
            surface.decenter = (dx + values[0], dy + values[1])


class _Tilt(_Perturbation):
    def __init__(self, item, optic, where):
        self.surfaces = item.surfaces
        name = _element(item.surfaces)
        self.labels = (f"tilt x {name}", f"tilt y {name}")
        self.half_widths = (item.plus_minus, item.plus_minus)

    def apply(self, optic, values):
        if all(_is_zero(v) for v in values):
            return
        rotation = rotation_matrix(values[0], values[1], 0.0)
        z = vertex_z(optic.surfaces)
        first = self.surfaces[0]
        px, py = _decenter(optic.surfaces[first])
        shifts = []
        for number in self.surfaces:
            surface = optic.surfaces[number]
            dx, dy = _decenter(surface)
            v = (dx - px, dy - py, z[number] - z[first])
            moved = [sum(rotation[i][j] * v[j] for j in range(3)) for i in range(3)]
            surface.decenter = (px + moved[0], py + moved[1])
            surface.tilt = _composed(rotation, surface.tilt, values)
            shifts.append(moved[2] - v[2])
        for k in range(1, len(self.surfaces)):
            before = optic.surfaces[self.surfaces[k] - 1]
            before.thickness = before.thickness + (shifts[k] - shifts[k - 1])
        last = optic.surfaces[self.surfaces[-1]]
        last.thickness = last.thickness - shifts[-1]


class _Glass(_Perturbation):
    def __init__(self, item, optic, where):
        material = optic.surfaces[item.surface].material
        if isinstance(material, (Air, Mirror)):
            raise LensFileError(
                f"{where}: key 'surface': surface {item.surface} is followed by "
                f"{material.to_spec()}, not a glass"
            )
        nd, vd = d_line(material)
        if item.kind == "abbe" and dispersion(material) == 0:
            raise LensFileError(
                f"{where}: key 'surface': the material after surface {item.surface} has no "
                "dispersion, so no Abbe number to tolerance"
            )
        self.surface, self.kind = item.surface, item.kind
        self.labels = (f"surfaces[{item.surface}] {item.kind}",)
        self.half_widths = (_half_width(item, nd if item.kind == "index" else vd, where),)

    def apply(self, optic, values):
        if _is_zero(values[0]):
            return
        surface = optic.surfaces[self.surface]
        glass = surface.material
        if not isinstance(glass, ShiftedGlass):
            glass = ShiftedGlass(glass)
        name = "delta_index" if self.kind == "index" else "delta_abbe"
        shifted = {name: getattr(glass, name) + values[0]}
        surface.material = ShiftedGlass(glass.base, **{**_deltas(glass), **shifted})


class _Fringes(_Perturbation):
    """Power (any surface with a curvature) or astigmatism (a ``zernike`` surface) in fringes."""

    def __init__(self, item, optic, where):
        surface = optic.surfaces[item.surface]
        geometry = surface.geometry
        aperture = item.aperture
        if aperture is None and surface.semi_diameter is not None:
            aperture = float(be.item(surface.semi_diameter))
        if item.kind == "power":
            try:
                get_param(optic, f"surfaces[{item.surface}].curvature")
            except OpticsError as exc:
                raise LensFileError(f"{where}: key 'surface': {exc}") from exc
            self.path = f"surfaces[{item.surface}].curvature"
        else:
            if not isinstance(geometry, Zernike):
                raise LensFileError(
                    f"{where}: key 'surface': irregularity needs a 'zernike' surface; surface "
                    f"{item.surface} is '{geometry.type_name}' (use kind = \"power\")"
                )
            if aperture is None:
                aperture = float(be.item(geometry.norm_radius))
            self.coefficient, pv = _ASTIGMATISM[geometry.ordering]
            self.path = f"surfaces[{item.surface}].coefficients[{self.coefficient}]"
            pv_over_aperture = pv * (aperture / float(be.item(geometry.norm_radius))) ** 2
        if aperture is None:
            raise LensFileError(
                f"{where}: key 'aperture' is needed: surface {item.surface} has no semi_diameter "
                "to count fringes over"
            )
        wavelength_mm = item.wavelength * 1e-3
        if item.kind == "power":  # Δc = N λ / a²
            self.per_fringe = wavelength_mm / aperture**2
        else:  # coefficient = (N λ / 2) / (PV of the unit term over the semi-aperture)
            self.per_fringe = 0.5 * wavelength_mm / pv_over_aperture
        self.surface, self.kind = item.surface, item.kind
        what = "power" if item.kind == "power" else "astigmatism"
        self.labels = (f"surfaces[{item.surface}] {what} fringes",)
        self.half_widths = (item.plus_minus,)

    def apply(self, optic, values):
        if _is_zero(values[0]):
            return
        if self.kind == "irregularity":
            geometry = optic.surfaces[self.surface].geometry
            missing = self.coefficient + 1 - len(geometry.coefficients)
            if missing > 0:
                geometry.coefficients = list(geometry.coefficients) + [0.0] * missing
        set_param(optic, self.path, get_param(optic, self.path) + values[0] * self.per_fringe)


def _deltas(glass):
    return {"delta_index": glass.delta_index, "delta_abbe": glass.delta_abbe}


def _decenter(surface):
    return surface.decenter if surface.decenter is not None else (0.0, 0.0)


def _element(surfaces):
    first, last = surfaces[0], surfaces[-1]
    return f"surfaces[{first}]" if first == last else f"surfaces[{first}-{last}]"


def _composed(rotation, tilt, values):
    """(rx, ry, rz) in degrees of ``rotation`` @ Rz Ry Rx(tilt); ``rotation`` is Ry Rx(values)."""
    if tilt is None:  # the surface's own orientation was the identity
        return (values[0], values[1], 0.0)
    own = rotation_matrix(*tilt)
    m = [[sum(rotation[i][k] * own[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
    return (
        be.arctan2(m[2][1], m[2][2]) * _DEG,
        -be.arcsin(m[2][0]) * _DEG,
        be.arctan2(m[1][0], m[0][0]) * _DEG,
    )


_KINDS = {
    "decenter": _Decenter,
    "tilt": _Tilt,
    "index": _Glass,
    "abbe": _Glass,
    "power": _Fringes,
    "irregularity": _Fringes,
}
