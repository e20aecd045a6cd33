"""Solves and pickups: lens parameters computed from the rest of the lens, in closed form.

A solve sets one surface parameter (its ``curvature`` or ``thickness``) so
that a paraxial ray does something: the marginal ray leaves at a given slope
(which holds the F/#), meets the next surface at a given height (0: the next
surface is at paraxial focus), or the chief ray does the same.  A pickup sets
it to ``scale · (the same parameter of another surface) + offset``.

Each is a closed form of the first-order data (:mod:`optics._paraxial`): a
few backend operations on the surfaces' parameters, so gradients flow
through a solved value to the parameters it depends on (Torch, JAX).  The
solves of an optic (``optic.solves``) are applied in surface order by
:func:`apply_solves`: after a lens file is read, and after every change an
optimization or a tolerance trial makes.  docs/optimization.md ("Solves and
pickups") gives the definitions and docs/lens-files.md the ``solve`` and
``pickup`` keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import accel
from .. import backend as be
from .._paraxial import (
    _signed_indices,
    basis_rays,
    chief_ray_start,
    entrance_pupil_diameter,
)
from ..errors import ConfigurationError
from ..params import get_param, set_param

#: Solve types and the parameter each one sets.
SOLVE_TYPES = {
    "marginal_ray_angle": "curvature",  # slope u' of the marginal ray after the surface
    "fno": "curvature",  # u' = -1 / (2 n' F): the working F/# F
    "chief_ray_angle": "curvature",  # slope of the chief ray after the surface
    "marginal_ray_height": "thickness",  # marginal-ray height at the next surface
    "paraxial_focus": "thickness",  # marginal-ray height 0 at the next surface
    "chief_ray_height": "thickness",  # chief-ray height at the next surface
    "pickup": None,  # curvature or thickness = scale * that of surface `source` + offset
}
PICKUP_PARAMETERS = ("curvature", "thickness")


@dataclass(frozen=True)
class Solve:
    """One solved or picked-up surface parameter.

    Attributes
    ----------
    surface : int
        The surface whose parameter is set.
    parameter : str
        ``"curvature"`` (1/mm) or ``"thickness"`` (mm, to the next surface).
    type : str
        A key of :data:`SOLVE_TYPES`.
    value : float
        The target: a paraxial slope (unitless, for the ``*_angle`` types),
        a height in mm (``*_height``), an F/# (``fno``); unused otherwise.
    source : int or None
        ``pickup``: the surface picked up from.
    scale, offset : float
        ``pickup``: value = scale · source value + offset (offset in the
        parameter's units).
    """

    surface: int
    parameter: str
    type: str
    value: float = 0.0
    source: int | None = None
    scale: float = 1.0
    offset: float = 0.0

    def __post_init__(self):
        where = f"surface {self.surface}: {self.parameter}"
        if self.type not in SOLVE_TYPES:
            raise ConfigurationError(
                f"{where}: unknown solve type {self.type!r}; known: {', '.join(SOLVE_TYPES)}"
            )
        wanted = SOLVE_TYPES[self.type]
        allowed = PICKUP_PARAMETERS if wanted is None else (wanted,)
        if self.parameter not in allowed:
            raise ConfigurationError(
                f"{where}: a {self.type!r} solve sets {' or '.join(allowed)}, not {self.parameter}"
            )
        if self.type == "pickup" and self.source is None:
            raise ConfigurationError(f"{where}: a pickup needs the surface it picks up from")
        if self.type == "fno" and not self.value > 0:
            raise ConfigurationError(f"{where}: an F/# solve needs an F/# > 0, not {self.value}")

    @property
    def path(self) -> str:
        """The parameter path the solve sets, e.g. ``surfaces[7].curvature``."""
        return f"surfaces[{self.surface}].{self.parameter}"

    def to_spec(self) -> dict:
        """The lens-file table under ``solve`` or ``pickup`` (see docs/lens-files.md)."""
        if self.type == "pickup":
            spec = {"surface": self.source}
            if self.scale != 1.0:
                spec["scale"] = self.scale
            if self.offset != 0.0:
                spec["offset"] = self.offset
            return spec
        spec = {"type": self.type}
        key = _VALUE_KEYS.get(self.type)
        if key is not None and (self.type == "fno" or self.value != 0.0):
            spec[key] = self.value
        return spec


#: The lens-file key holding each solve type's target.
_VALUE_KEYS = {
    "marginal_ray_angle": "slope",
    "chief_ray_angle": "slope",
    "fno": "fno",
    "marginal_ray_height": "height",
    "chief_ray_height": "height",
}


def solve_from_spec(surface, parameter, spec, kind, where) -> Solve:
    """A :class:`Solve` from a lens-file table (``kind``: "solve" or "pickup").

    Raises
    ------
    ConfigurationError
        An unknown key or type, or a missing value; the message starts with ``where``.
    """
    if not isinstance(spec, dict):
        raise ConfigurationError(f"{where}: {kind}.{parameter} must be a table, not {spec!r}")
    if kind == "pickup":
        _check_keys(spec, ("surface", "scale", "offset"), where)
        if "surface" not in spec:
            raise ConfigurationError(f"{where}: missing key 'surface' (picked up from)")
        source = spec["surface"]
        if not isinstance(source, int) or isinstance(source, bool):
            raise ConfigurationError(f"{where}: key 'surface' must be a surface index")
        return Solve(
            surface,
            parameter,
            "pickup",
            source=source,
            scale=_number(spec, "scale", 1.0, where),
            offset=_number(spec, "offset", 0.0, where),
        )
    kind_name = spec.get("type")
    if kind_name not in SOLVE_TYPES or kind_name == "pickup":
        known = ", ".join(k for k in SOLVE_TYPES if k != "pickup")
        raise ConfigurationError(f"{where}: key 'type' must be one of {known}, not {kind_name!r}")
    key = _VALUE_KEYS.get(kind_name)
    _check_keys(spec, ("type",) + ((key,) if key else ()), where)
    if kind_name == "fno" and key not in spec:
        raise ConfigurationError(f"{where}: missing key 'fno' (the F/# to hold)")
    value = _number(spec, key, 0.0, where) if key else 0.0
    return Solve(surface, parameter, kind_name, value=value)


def _check_keys(spec, allowed, where):
    for key in spec:
        if key not in allowed:
            raise ConfigurationError(f"{where}: unknown key {key!r}; allowed: {', '.join(allowed)}")


def _number(spec, key, default, where) -> float:
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ConfigurationError(f"{where}: key {key!r} must be a finite number, not {value!r}")
    return float(value)


def check_solves(optic, solves, where="") -> None:
    """Raise ConfigurationError for a solve on a surface the optic lacks or set twice."""
    image = len(optic.surfaces) - 1
    seen = set()
    for solve in solves:
        name = f"{where}surface {solve.surface}"
        if not 1 <= solve.surface < image:
            raise ConfigurationError(
                f"{name}: solves and pickups need a lens surface (1..{image - 1})"
            )
        if solve.path in seen:
            raise ConfigurationError(f"{name}: {solve.parameter} has two solves")
        seen.add(solve.path)
        if solve.source is not None and not (
            0 <= solve.source <= image and solve.source != solve.surface
        ):
            raise ConfigurationError(
                f"{name}: a pickup from surface {solve.source}, which is not another surface"
            )


def apply_solves(optic) -> None:
    """Set every solved and picked-up parameter of ``optic`` (in place), in surface order.

    Plain-number lenses get plain floats; a lens with trainable parameters
    gets values attached to them (gradients flow through the solve).  A
    pickup reads its source after the solves of the surfaces before it (and
    of its own surface's curvature): pick up from those, or from unsolved
    parameters.

    Parameters
    ----------
    optic : Optic
        Its ``solves`` (a sequence of :class:`Solve`; none: nothing happens)
        are applied to its surfaces.

    Returns
    -------
    None
        ``optic`` is changed in place: curvatures in 1/mm, thicknesses in mm.
    """
    solves = sorted(getattr(optic, "solves", None) or (), key=_order)
    for solve in solves:  # a value left from an earlier graph or JAX trace is never read
        if be.requires_grad(get_param(optic, solve.path)):
            set_param(optic, solve.path, 0.0)
    for solve in solves:
        value = accel.on_host(_solved_value, optic, solve)
        if be.is_array(value) and not be.requires_grad(value):
            value = float(be.item(value))
        set_param(optic, solve.path, value)


def _solved_value(optic, solve):
    k = solve.surface
    if solve.type == "pickup":
        return solve.scale * get_param(optic, f"surfaces[{solve.source}].{solve.parameter}") + (
            solve.offset
        )
    with be.quiet_float_errors():
        rays = basis_rays(optic)
    chief = solve.type.startswith("chief")
    y1, u0 = _start(optic, rays, chief)
    if solve.parameter == "thickness":  # height after the gap: y + t u = h
        y, u = rays.ray(y1, u0, k)
        _nonzero(
            u,
            f"surface {k}: the {'chief' if chief else 'marginal'} ray is parallel "
            "to the axis after it: no thickness sets its height",
        )
        return (solve.value - y) / u
    # Curvature: n' u' = n u - y (n' - n) c  (signed indices) at surface k.
    n = _signed_indices(optic, optic.primary_wavelength)
    if k == 1:
        y, nu = y1, n[0] * u0
    else:
        y_before, u_before = rays.ray(y1, u0, k - 1)
        y = y_before + optic.surfaces[k - 1].thickness * u_before
        nu = n[k - 1] * u_before
    target = n[k] * solve.value  # n' u'
    if solve.type == "fno":
        target = -1.0 / (2.0 * solve.value)
    power = getattr(optic.surfaces[k].geometry, "optical_power", None)
    extra = 0.0 if power is None else y * power
    _nonzero(
        y * (n[k] - n[k - 1]),
        f"surface {k}: the ray meets it on the axis or the index does not change there: "
        "no curvature sets its slope",
    )
    return (nu - target - extra) / (y * (n[k] - n[k - 1]))


def _start(optic, rays, chief):
    """(height at surface 1, slope before it) of the paraxial marginal or chief ray."""
    stop = optic.stop_index
    _nonzero(rays.yA[stop], f"the stop (surface {stop}) is imaged to infinity")
    ep = rays.yB[stop] / rays.yA[stop]
    if chief:
        return chief_ray_start(optic, rays, ep)
    epd = entrance_pupil_diameter(optic, rays, ep)
    if optic.object_at_infinity:
        return epd / 2, 0.0
    u0 = (epd / 2) / (ep + optic.surfaces[0].thickness)
    return u0 * optic.surfaces[0].thickness, u0


def _nonzero(value, message):
    if not be.is_array(value) or not be.requires_grad(value):
        if float(be.item(be.asarray(value))) == 0.0:
            raise ConfigurationError(message)


def _order(solve):
    """Surface order; on one surface the curvature first (a thickness solve sees it)."""
    return solve.surface, solve.parameter != "curvature"
