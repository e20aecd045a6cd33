"""An optic at another temperature and pressure: thermal expansion and indices there.

:func:`at_environment` returns a new Optic (the input is not changed): every medium's
index is the one at the new (T, P) (:func:`optics.thermal.material_at`) and the
prescription expands from the optic's own temperature T1 to T2.  A length follows
L(T) = L(20 °C) (1 + α (T − 20 °C)), so it scales by (1 + α (T2 − 20)) / (1 + α (T1 − 20))
(1 + α (T2 − T1) from 20 °C; going to T2 and back gives the prescription back exactly):

- the thickness after surface ``i`` scales so with the α of the medium that fills
  it: a glass's catalog α (or ``Environment.cte[i]``), and for air the spacer's,
  ``cte[i]`` or ``mount_cte``; the object distance does not change, the image distance
  (the last gap) expands with its spacer, so a detector rides on the mount;
- a surface bounding a glass scales uniformly with that glass's α (the glass after it,
  else the one before it): radii, aspheric and freeform terms (a sag z(x, y) becomes
  s z(x/s, y/s)), normalization radii and the semi-diameter; a mirror in air scales so
  with ``Environment.mirror_cte`` when it is given; other surfaces between two air gaps
  (stops, dummies, mirrors without ``mirror_cte``) keep their shape.

Decenters, tilts, ideal lenses and the system aperture and fields are kept.  Tensors
stay attached: the expanded optic is differentiable in the input's parameters.
"""

from __future__ import annotations

import copy
import dataclasses
import warnings

from ..errors import ConfigurationError
from ..geometry.base import is_plain
from ..materials import Air
from ..surfaces import media
from ..system import Optic
from ._environment import DEFAULT_ENVIRONMENT, REFERENCE_TEMPERATURE
from ._index import (
    ThermalWarning,
    expansion_coefficient,
    lacks_dn_dt,
    material_at,
    material_name,
    reference_temperature,
    warn_missing_dn_dt,
)

__all__ = ["at_environment", "gap_expansions", "with_environment"]


def _solid(material) -> bool:
    return not (material.is_mirror or isinstance(getattr(material, "base", material), Air))


def environment_of(optic):
    """The optic's Environment, or the default one (20 °C, 1 atm) when it has none."""
    return getattr(optic, "environment", None) or DEFAULT_ENVIRONMENT


def gap_expansions(optic, environment=None, *, warn=True) -> list:
    """α (1/K) of what sets each thickness: one float per surface (0 for the object gap
    and the image surface).

    Parameters
    ----------
    optic : Optic
    environment : Environment, optional
        Whose ``mount_cte`` and ``cte`` apply; the optic's by default.
    warn : bool
        Warn (:class:`ThermalWarning`, once per glass) where a glass has no α (0 is used).

    Returns
    -------
    list of float
        One α (1/K) per surface, object to image: the environment's ``cte`` for a surface
        it lists, else the glass's α for a gap filled with glass, the ``mount_cte`` for an
        air (or mirror) gap; 0 for the object gap and the image surface.
    """
    environment = environment or environment_of(optic)
    alphas = [0.0]
    warned = set()
    for i, (medium, _) in enumerate(media(optic.surfaces)[1:-1], start=1):
        if i in environment.cte:
            alphas.append(environment.cte[i])
        elif not _solid(medium):
            alphas.append(environment.mount_cte)
        else:
            alpha = expansion_coefficient(medium)
            if alpha is None:
                name = material_name(medium)
                if warn and name not in warned:
                    warned.add(name)
                    warnings.warn(
                        f"surface {i}: {name} has no thermal expansion data; α = 0 is used "
                        f"(give it as [environment] cte = {{ {i} = ... }})",
                        ThermalWarning,
                        stacklevel=3,
                    )
                alpha = 0.0
            alphas.append(alpha)
    return alphas + [0.0]


def _radius_expansions(optic, gaps, environment) -> list:
    """α of the element each surface bounds: the glass after it, else the one before, else
    for a mirror in air ``mirror_cte`` (when given), else 0."""
    solid = [_solid(medium) for medium, _ in media(optic.surfaces)]
    out = []
    for i, surface in enumerate(optic.surfaces):
        if i > 0 and solid[i]:
            out.append(gaps[i])
        elif i > 1 and solid[i - 1]:
            out.append(gaps[i - 1])
        elif surface.is_mirror and environment.mirror_cte is not None:
            out.append(environment.mirror_cte)
        else:
            out.append(0.0)
    return out


def with_environment(optic, environment, *, where=""):
    """The optic's surfaces with media at ``environment`` (no expansion), as a new Optic.

    For a prescription that is given at ``environment`` (a lens file's ``[environment]``).

    Parameters
    ----------
    optic : Optic
    environment : Environment
        The temperature (°C) and pressure (atm) the prescription is given at.
    where : str
        Where the prescription comes from (a file name), for the warnings.

    Returns
    -------
    Optic
        The same geometry and thicknesses, every medium from :func:`material_at` at
        ``environment``, its ``environment`` that one.

    Warns
    -----
    ThermalWarning
        One per medium without dn/dT constants (naming its surfaces) when the temperature
        is not its reference.
    """
    return _rebuild(
        optic, environment, [1.0] * len(optic.surfaces), [1.0] * len(optic.surfaces), where
    )


def at_environment(optic, temperature=None, pressure=None, *, environment=None):
    """The optic at another temperature and pressure, as a new Optic.

    Parameters
    ----------
    optic : Optic
        Its prescription is taken as the one at ``optic.environment`` (20 °C and 1 atm
        when None).
    temperature : float, optional
        °C; default the optic's.
    pressure : float, optional
        atm; default the optic's.
    environment : Environment, optional
        The whole target environment (mount and per-surface CTE too); ``temperature``
        and ``pressure``, when given, replace its values.

    Returns
    -------
    Optic
        Expanded by ΔT = T − T_optic (see the module docstring), its media at (T, P),
        its ``environment`` the target.

    Warns
    -----
    ThermalWarning
        A medium without dn/dT constants or expansion coefficient (taken as 0).
    """
    current = environment_of(optic)
    target = environment or current
    changes = {}
    if temperature is not None:
        changes["temperature"] = temperature
    if pressure is not None:
        changes["pressure"] = pressure
    target = dataclasses.replace(target, **changes) if changes else target
    gaps = gap_expansions(optic, target, warn=target.temperature != current.temperature)

    def scale(alpha):  # lengths L(T) = L(20 °C) (1 + α (T − 20)): exact round trips
        return (1.0 + alpha * (target.temperature - REFERENCE_TEMPERATURE)) / (
            1.0 + alpha * (current.temperature - REFERENCE_TEMPERATURE)
        )

    thickness_scale = [scale(alpha) for alpha in gaps]
    surface_scale = [scale(alpha) for alpha in _radius_expansions(optic, gaps, target)]
    out = _rebuild(optic, target, thickness_scale, surface_scale, "")
    if getattr(optic, "configurations", None) is not None:
        out.configurations = _configurations_at(optic, current, target, changes, environment)
    return out


def _configurations_at(optic, current, target, changes, environment):
    """The configurations of ``optic`` put at ``target``: rows over the input prescription.

    Configuration n of the result is ``at_environment(optic.configuration(n), ...)``
    with the same arguments: the rows keep applying to the input's prescription (its
    ``source``), then a temperature and a pressure row take every configuration to
    what was asked.  A quantity not asked for (``pressure`` of
    ``at_environment(optic, 40.0)``) stays each configuration's own, its row kept.
    """
    configs = optic.configurations
    source = optic if configs.source is None else configs.source
    asked = set(changes) | ({"temperature", "pressure"} if environment is not None else set())
    if environment is not None:  # the mount and per-surface CTE of the target
        own = environment_of(source)
        mount = dataclasses.replace(target, temperature=own.temperature, pressure=own.pressure)
        source = copy.copy(source)
        source.environment = mount
    values = {key: getattr(target, key) for key in ("temperature", "pressure") if key in asked}
    return configs.with_rows(source, values)


def _rebuild(optic, environment, thickness_scale, surface_scale, where):
    surfaces = []
    wrapped = {}  # one medium object per input medium object: sharing is kept
    missing = {}  # name -> surfaces of media without dn/dT data
    last = len(optic.surfaces) - 1
    temperature = environment.temperature
    for i, surface in enumerate(optic.surfaces):
        material = surface.material
        if (
            0 < i < last
            and lacks_dn_dt(material)
            and temperature != reference_temperature(material)
        ):
            missing.setdefault(material_name(material), []).append(i)
        if id(material) not in wrapped:
            wrapped[id(material)] = material_at(
                material, temperature, environment.pressure, warn=False
            )
        s = surface_scale[i]
        thickness = surface.thickness
        if 0 < i < last and thickness_scale[i] != 1.0:
            thickness = thickness * thickness_scale[i]
        semi = surface.semi_diameter
        surfaces.append(
            dataclasses.replace(
                surface,
                geometry=scaled_geometry(surface.geometry, s, i) if s != 1.0 else surface.geometry,
                thickness=thickness,
                material=wrapped[id(material)],
                semi_diameter=semi * s if semi is not None and s != 1.0 else semi,
            )
        )
    if missing:
        warn_missing_dn_dt({f"{where}: {k}" if where else k: v for k, v in missing.items()})
    return Optic(
        surfaces,
        copy.copy(optic.aperture),
        dataclasses.replace(optic.fields, values=list(optic.fields.values)),
        dataclasses.replace(optic.wavelengths, values=list(optic.wavelengths.values)),
        name=optic.name,
        optimize=copy.deepcopy(optic.optimize),
        aiming=optic.aiming,
        tolerance=copy.deepcopy(optic.tolerance),
        environment=environment,
        polarization=copy.copy(optic.polarization),
    )


# --- uniform scaling of a surface shape: z(x, y) -> s z(x/s, y/s) ------------------------


def _power_list(values, exponent):
    return [v * exponent(i) if not is_plain(v) else v for i, v in enumerate(values)]


def _scale_terms(geometry, s):
    """Scale the type's own terms in place on a copy (radius handled by the caller)."""
    kind = geometry.type_name
    if kind in ("even_asphere", "toroidal"):  # coefficients[i] multiplies r^(2(i+1))
        geometry.coefficients = _power_list(geometry.coefficients, lambda i: s ** (1 - 2 * (i + 1)))
    elif kind == "odd_asphere":  # coefficients[i] multiplies r^(i+1)
        geometry.coefficients = _power_list(geometry.coefficients, lambda i: s ** (-i))
    elif kind == "xy_polynomial":  # coefficients[i][j] multiplies x^i y^j
        geometry.coefficients = [
            _power_list(row, lambda j, i=i: s ** (1 - i - j))
            for i, row in enumerate(geometry.coefficients)
        ]
    elif kind == "chebyshev":  # values in mm over normalized x/norm_x, y/norm_y
        geometry.coefficients = [_power_list(row, lambda j: s) for row in geometry.coefficients]
        geometry.norm_x, geometry.norm_y = geometry.norm_x * s, geometry.norm_y * s
    elif kind in ("zernike", "qbfs"):
        name = "terms" if kind == "qbfs" else "coefficients"
        setattr(geometry, name, _power_list(getattr(geometry, name), lambda i: s))
        geometry.norm_radius = geometry.norm_radius * s
    elif kind == "q2d":
        geometry.coefficients = [
            dict(term, value=term["value"] * s) for term in geometry.coefficients
        ]
        geometry.norm_radius = geometry.norm_radius * s
    if kind == "toroidal" and not is_plain(geometry.radius_rotation, float("inf")):
        geometry.radius_rotation = geometry.radius_rotation * s
    if kind == "biconic" and not is_plain(geometry.radius_x, float("inf")):
        geometry.radius_x = geometry.radius_x * s


_SCALABLE = frozenset(
    (
        "standard",
        "even_asphere",
        "odd_asphere",
        "biconic",
        "toroidal",
        "xy_polynomial",
        "chebyshev",
        "zernike",
        "qbfs",
        "q2d",
    )
)
_KEPT = frozenset(("coordinate_break", "paraxial"))


def scaled_geometry(geometry, s, index=None):
    """A copy of ``geometry`` scaled uniformly by ``s``: its sag z(x, y) -> s z(x/s, y/s).

    Radii and normalization radii (mm) scale by s, conics are kept, a coefficient of
    r^p (mm^(1−p)) scales by s^(1−p), and polynomial values in mm by s.  Coordinate
    breaks and ideal lenses are returned unchanged.

    Parameters
    ----------
    geometry : Geometry
        A surface's shape.
    s : float or 0-d array
        The scale factor (1 + α ΔT for a thermal expansion).
    index : int, optional
        The surface's number, for the error message.

    Returns
    -------
    Geometry
        A scaled copy (the input is not changed), or ``geometry`` itself for a
        coordinate break or an ideal lens.

    Raises
    ------
    ConfigurationError
        A surface type whose scaling is not known (naming the surface ``index``).
    """
    kind = geometry.type_name
    if kind in _KEPT:
        return geometry
    if kind not in _SCALABLE:
        where = f"surface {index}: " if index is not None else ""
        raise ConfigurationError(
            f"{where}thermal expansion of surface type {kind!r} is not supported"
        )
    scaled = copy.copy(geometry)
    prepared = getattr(geometry, "_prepared", None)  # the type's cache (newton_base contract)
    if prepared is not None:
        scaled._prepared = copy.copy(prepared)
    if not is_plain(geometry.curvature):
        scaled.radius = geometry.radius * s
    _scale_terms(scaled, s)
    return scaled
