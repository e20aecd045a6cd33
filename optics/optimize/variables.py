"""Optimization variables: lens parameters addressed by path, with bounds and scales.

A variable names any numeric lens parameter with the path syntax of
``optics gradcheck`` (:mod:`optics.params`): ``surfaces[3].radius``,
``surfaces[3].curvature`` (1/radius: lets a surface pass through flat),
``surfaces[2].thickness``, ``surfaces[6].coefficients[1][2]``,
``surfaces[3].conic``, ``surfaces[2].decenter[1]``, ``surfaces[2].tilt[0]``,
``surfaces[1].material.index`` ...

Drivers never move the parameters themselves: they move scaled variables
u, with x = x₀ + s·u (x₀ the start value, s the variable's scale, both in the
parameter's units), so u starts at 0 and one unit of u is one modest step of
that parameter whatever its units: 1% of a radius, thickness or index, or, for
a parameter that starts at zero, the change that moves the merit's residuals
by about 10% (see :class:`~optics.optimize.problem.Problem`).  A learning rate
or a first step of 1 in u is therefore sensible for every variable at once.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError, OpticsError

#: Parameters whose start value is a natural size for its own steps (when nonzero).
_SIZES = ("radius", "curvature", "thickness", "semi_diameter", "value", "nd", "index")

#: One unit of a scaled variable: this fraction of the parameter's size (1%).
STEP_FRACTION = 0.01


@dataclass
class Variable:
    """One lens parameter to optimize.

    Attributes
    ----------
    path : str
        Where the parameter lives, e.g. ``"surfaces[3].radius"``.
    min, max : float or None
        Bounds in the parameter's units (mm, 1/mm, degrees, unitless); None
        for unbounded.
    scale : float or None
        The parameter change that counts as one unit of the scaled variable.
        By default 1% of |start value| for sizes (radius, curvature,
        thickness, index), else set by
        :class:`~optics.optimize.problem.Problem` from the merit's
        sensitivity to the parameter.
    """

    path: str
    min: float | None = None
    max: float | None = None
    scale: float | None = None

    def __post_init__(self):
        if not isinstance(self.path, str) or not self.path.strip():
            raise ConfigurationError(
                f"a variable path must be a non-empty string, not {self.path!r}"
            )
        lo = -math.inf if self.min is None else float(self.min)
        hi = math.inf if self.max is None else float(self.max)
        if not lo < hi:
            raise ConfigurationError(
                f"variable {self.path}: min {self.min} must be below max {self.max}"
            )
        if self.scale is not None and not (math.isfinite(self.scale) and self.scale > 0):
            raise ConfigurationError(
                f"variable {self.path}: scale must be positive, not {self.scale!r}"
            )

    @property
    def parameter_name(self) -> str:
        """The last attribute of the path (``radius`` for ``surfaces[3].radius``)."""
        return re.findall(r"[A-Za-z_]\w*", self.path)[-1]

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper) with ±inf for a missing bound."""
        return (
            -math.inf if self.min is None else float(self.min),
            math.inf if self.max is None else float(self.max),
        )


class VariableSet:
    """The variables of one optimization bound to an optic.

    Parameters
    ----------
    optic : Optic
        The system; its parameter values at construction are the start x₀
        (ConfigurationError when one is outside its bounds).
    variables : list of Variable

    Attributes
    ----------
    start : ndarray, shape (n,)
        x₀ in the parameters' units.
    scales : ndarray, shape (n,)
        s; NaN where the scale is still to be chosen (see :meth:`set_scales`).
    """

    def __init__(self, optic, variables):
        if not variables:
            raise ConfigurationError("an optimization needs at least one variable")
        paths = [v.path for v in variables]
        repeated = sorted({p for p in paths if paths.count(p) > 1})
        if repeated:
            raise ConfigurationError(f"variable(s) listed twice: {', '.join(repeated)}")
        self.optic = optic
        self.variables = list(variables)
        solved = {s.path: s.type for s in getattr(optic, "solves", None) or ()}
        for v in self.variables:
            path = v.path.replace(" ", "").replace(".radius", ".curvature")
            if path in solved:
                raise ConfigurationError(
                    f"variable {v.path}: the parameter has a {solved[path]!r} solve, which "
                    "sets it; remove the solve or the variable"
                )
        start = np.array([_read(optic, v.path) for v in self.variables])
        lower, upper = self.bounds()
        outside = np.flatnonzero((start < lower) | (start > upper))
        if outside.size:  # never clipped silently: the "before" would not be the lens's own
            i = int(outside[0])
            raise ConfigurationError(
                f"variable {self.variables[i].path}: the start {start[i]:.10g} is outside its "
                f"bounds [{lower[i]:.10g}, {upper[i]:.10g}]; move the start inside or widen "
                "'min'/'max'"
            )
        self.start = start
        self.scales = np.array([_default_scale(v, x) for v, x in zip(self.variables, self.start)])

    def __len__(self):
        return len(self.variables)

    @property
    def paths(self) -> list[str]:
        """The variables' paths, in order."""
        return [v.path for v in self.variables]

    def largest_scales(self):
        """The largest step a scale chosen by sensitivity may take, ndarray (n,) (inf: none).

        A curvature that starts at 0 has no size of its own, and where the
        merit hardly depends on it (a plane between two equal media, such as
        an aperture stop in air) a sensitivity-based step would be enormous:
        one unit could turn the plane into a sphere smaller than the beam.
        Its step is held to ``STEP_FRACTION / h`` (the sag at the rim moving by
        half a per cent of h), h the surface's semi-diameter, or half the
        entrance pupil diameter where it has none.
        """
        out = np.full(len(self.variables), math.inf)
        pupil_radius = None  # computed once, only when a surface has no semi-diameter
        for i, v in enumerate(self.variables):
            found = re.fullmatch(r"\s*surfaces\[(\d+)\]\.curvature\s*", v.path)
            if found is None:
                continue
            h = self.optic.surfaces[int(found.group(1))].semi_diameter
            h = math.nan if h is None else float(be.item(h))
            if not (math.isfinite(h) and h > 0):
                if pupil_radius is None:
                    from .._paraxial import paraxial

                    pupil_radius = float(be.item(paraxial(self.optic).epd)) / 2
                h = pupil_radius
            out[i] = STEP_FRACTION / h
        return out

    def set_scales(self, scales):
        """Fill the scales still NaN from ``scales`` (ndarray (n,), positive)."""
        self.scales = np.where(np.isnan(self.scales), scales, self.scales)

    def bounds(self):
        """(lower, upper) in the parameters' units, ndarrays (n,) with ±inf for none."""
        lower, upper = np.array([v.bounds for v in self.variables]).T.reshape(2, -1)
        return lower, upper

    def scaled_bounds(self):
        """(lower, upper) of u, ndarrays (n,) with ±inf for none."""
        lower, upper = self.bounds()
        return (lower - self.start) / self.scales, (upper - self.start) / self.scales

    def physical(self, u):
        """x = x₀ + s·u for u an ndarray (n,); returns an ndarray (n,)."""
        return self.start + self.scales * np.asarray(u, dtype=float)

    def apply(self, u):
        """Set every parameter on the optic to x₀ + s·u.

        ``u`` is an ndarray (n,) (values are set as Python floats) or a list
        of n 0-d leaves (values are set as tensors attached to them, so the
        leaves are the only gradient leaves of a merit computed afterwards).
        """
        from ..params import set_param

        if isinstance(u, np.ndarray):
            values = [float(x) for x in self.physical(u)]
        else:
            values = [float(x0) + float(s) * ui for x0, s, ui in zip(self.start, self.scales, u)]
        for variable, value in zip(self.variables, values):
            set_param(self.optic, variable.path, value)
        if self.optic.solves:
            from .solves import apply_solves

            apply_solves(self.optic)

    def detach_other_parameters(self):
        """Detach every tensor on the optic's surfaces that requires grad.

        Surfaces, their geometries and materials are searched (nested lists
        and tuples included); the variables themselves are set by :meth:`apply`.
        """
        for surface in self.optic.surfaces:
            _detach_attributes(surface, depth=2)


def _read(optic, path) -> float:
    from ..params import get_param

    try:
        value = float(be.item(get_param(optic, path)))
    except OpticsError as exc:
        raise ConfigurationError(f"variable {path}: {exc}") from exc
    if not math.isfinite(value):
        hint = " (a plane: vary its curvature instead)" if path.endswith("radius") else ""
        raise ConfigurationError(f"variable {path} starts at {value}, not a finite number{hint}")
    return value


def _default_scale(variable, start) -> float:
    if variable.scale is not None:
        return float(variable.scale)
    if variable.parameter_name in _SIZES and start != 0:
        return STEP_FRACTION * abs(start)
    return math.nan


def _detached(value):
    """``value`` with every tensor requiring grad detached; containers copied only if needed."""
    if isinstance(value, (list, tuple)):
        items = [_detached(v) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else type(value)(items)
    if be.is_array(value) and be.requires_grad(value):
        return be.detach(value)
    return value


def _detach_attributes(obj, depth):
    """Detach grad-requiring tensors in obj's attributes, and in their attributes to ``depth``."""
    if dataclasses.is_dataclass(obj):
        names = [f.name for f in dataclasses.fields(obj)]
    else:
        names = list(getattr(obj, "__dict__", ()))
    for name in names:
        value = getattr(obj, name)
        new = _detached(value)
        if new is not value:
            try:
                setattr(obj, name, new)
            except dataclasses.FrozenInstanceError:
                object.__setattr__(obj, name, new)
        elif depth > 0 and hasattr(value, "__dict__") and not be.is_array(value):
            _detach_attributes(value, depth - 1)
