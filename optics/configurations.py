"""Configurations: one base prescription, several values of some of its parameters.

A zoom lens at its zoom positions, a lens focused at several distances, a system
at several temperatures: ``Optic.configurations`` (a :class:`Configurations`, or
None) holds rows, each a key and one value per configuration; configuration
``n`` (1-based, as lens files and Zemax number them) is the base optic with every
row's ``n``-th value put in.  Keys (docs/configurations.md):

- a parameter path of :mod:`optics.params` that ends on a number
  (``surfaces[5].thickness``, ``surfaces[3].radius``, ``surfaces[3].conic``,
  ``surfaces[2].tilt[0]``, ``aperture.value``, ``fields.values[2][1]``,
  ``wavelengths.values[0]`` ...);
- ``surfaces[k].material``: a material spec (a glass name or a table);
- ``stop``: the index of the stop surface;
- ``temperature`` (°C) and ``pressure`` (atm): the configuration is then the
  optic at that environment (:func:`optics.thermal.at_environment`, applied
  after the other rows).

A configuration's Optic copies only what its rows change (the optic, the
surfaces list, the changed surface and its geometry ...); unchanged surfaces,
materials and tensors are shared with the base, so a variable set on the base
(or on a row value, path ``configurations.rows[i].values[n-1]``) reaches every
configuration with its gradient.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from ._notebook import NotebookView
from .errors import ConfigurationError, OpticsError
from .params import get_param, replaced

__all__ = [
    "ConfigurationRow",
    "Configurations",
    "ENVIRONMENT_KEYS",
    "Stacked",
    "configuration",
    "configuration_numbers",
    "each_configuration",
    "stacked",
]

ENVIRONMENT_KEYS = ("temperature", "pressure")
_MATERIAL = re.compile(r"^\s*surfaces\s*\[\s*(-?\d+)\s*\]\s*\.\s*material\s*$")
_PLACEMENT = re.compile(r"^\s*surfaces\s*\[\s*(-?\d+)\s*\]\s*\.\s*(tilt|decenter)\s*\[")
_PLACEMENT_SIZE = {"tilt": 3, "decenter": 2}


@dataclass(eq=False)
class ConfigurationRow:
    """One key and its value in each configuration (``values[n - 1]`` for configuration n)."""

    key: str
    values: list


@dataclass(eq=False, repr=False)
class Configurations(NotebookView):
    """The configuration rows of an optic.

    Attributes
    ----------
    rows : list of ConfigurationRow
        Applied in order (the environment rows last).
    count : int
        Number of configurations (>= 1); every row has ``count`` values.
    names : list of str or None
        Optional names of the configurations ("wide", "tele" ...).
    source : Optic or None
        The prescription the rows apply to; None (the default): the optic that holds
        them.  :func:`optics.thermal.at_environment` sets it to its input, whose
        configurations it puts at the new environment.
    """

    rows: list
    count: int
    names: list | None = None
    source: object = field(default=None, repr=False)
    _materials: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 1:
            raise ConfigurationError(
                f"configurations: count must be an integer >= 1, not {self.count!r}"
            )
        for row in self.rows:
            if len(row.values) != self.count:
                raise ConfigurationError(
                    f"configurations: key {row.key!r} has {len(row.values)} values for "
                    f"{self.count} configurations"
                )
        if self.names is not None and len(self.names) != self.count:
            raise ConfigurationError(
                f"configurations: 'names' has {len(self.names)} entries for {self.count} "
                "configurations"
            )

    def __len__(self):
        return self.count

    def build(self, optic, number: int):
        """Configuration ``number`` of ``optic`` (whose rows these are): :func:`configuration`."""
        return configuration(optic, number)

    def with_rows(self, source, values: dict):
        """These configurations over ``source``, each key of ``values`` one value for all.

        Parameters
        ----------
        source : Optic
            The prescription the rows of the result apply to.
        values : dict
            Key (a row key: "temperature" ...) -> the value every configuration takes;
            the rows of these keys are replaced, the others kept in order.
        """
        rows = [ConfigurationRow(r.key, list(r.values)) for r in self.rows if r.key not in values]
        rows += [ConfigurationRow(key, [value] * self.count) for key, value in values.items()]
        names = None if self.names is None else list(self.names)
        return Configurations(rows, self.count, names, source=source)

    def row(self, key):
        """The row of ``key`` (None when there is none)."""
        return next((r for r in self.rows if r.key == key), None)

    def material(self, spec, where=""):
        """The Material of a spec, resolved once per spec."""
        from .materials import material_from_spec

        token = repr(spec)
        if token not in self._materials:
            self._materials[token] = material_from_spec(spec, where=where)
        return self._materials[token]


def configuration_numbers(optic) -> list[int]:
    """``[1, ..., count]`` of an optic with configurations, ``[1]`` otherwise."""
    configs = getattr(optic, "configurations", None)
    return list(range(1, (configs.count if configs else 1) + 1))


def configuration(optic, number: int):
    """Configuration ``number`` (1-based) of ``optic``, as an Optic without configurations.

    Parameters
    ----------
    optic : Optic
    number : int
        1 to ``len(optic.configurations)``; an optic without configurations has
        only configuration 1, the optic itself.

    Returns
    -------
    Optic
        Shares every part its rows do not change with ``optic``.

    Raises
    ------
    ConfigurationError
        ``number`` out of range, or a value that does not fit its key (the
        message names the configuration and the key).
    """
    configs = getattr(optic, "configurations", None)
    count = configs.count if configs else 1
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= count:
        raise ConfigurationError(
            f"configuration {number!r} does not exist: the optic has {count} "
            f"configuration{'s' if count > 1 else ''} (1 to {count})"
        )
    if configs is None:
        return optic
    out = _shallow(optic if configs.source is None else configs.source)
    environment = {}
    for row in configs.rows:
        value = row.values[number - 1]
        where = f"configuration {number}: key {row.key!r}"
        try:
            if row.key in ENVIRONMENT_KEYS:
                environment[row.key] = _number(value, where)
            elif row.key == "stop":
                out = _with_stop(out, value, where)
            elif _MATERIAL.match(row.key):
                out = replaced(out, row.key, configs.material(value, where))
            else:
                _number(value, where)
                out = replaced(_with_placement(out, row.key), row.key, value)
        except ConfigurationError:
            raise
        except OpticsError as exc:
            raise ConfigurationError(f"{where}: {exc}") from exc
    try:
        out.validate()
    except ConfigurationError as exc:
        raise ConfigurationError(f"configuration {number}: {exc}") from exc
    if environment:
        from .thermal import at_environment

        out = at_environment(out, environment.get("temperature"), environment.get("pressure"))
    return out


def each_configuration(optic) -> list:
    """Every configuration's Optic, in order (``[optic]`` without configurations)."""
    return [configuration(optic, n) for n in configuration_numbers(optic)]


@dataclass(frozen=True)
class Stacked:
    """Several configurations as one optic whose differing numbers carry a leading axis.

    Attributes
    ----------
    optic : Optic
        Configuration ``numbers[reference]`` with every number that differs
        between the configurations (a thickness, radius, conic, aperture value
        ...) replaced by an array of shape (C, 1, 1, 1), entry i that of
        configuration ``numbers[i]``; it broadcasts against rays laid out
        (C, W, F, P).  Its fields are those of the reference configuration.
    numbers : tuple of int
        The C configurations, in stacking order.
    field_scales : tuple of float
        ``max_magnitude`` of configuration i's fields over the reference's: a
        normalized field h of configuration i is the normalized field
        h · field_scales[i] of the stacked optic.
    height_scales : tuple of float
        Configuration i's paraxial image height over the stacked optic's
        (the chief ray at the largest field, whose slope or height scales).
    """

    optic: object
    numbers: tuple
    field_scales: tuple
    height_scales: tuple


def stacked(optic, numbers, members=None):
    """Configurations ``numbers`` of ``optic`` as one :class:`Stacked` optic, or None.

    Parameters
    ----------
    optic : Optic
        With configurations.
    numbers : sequence of int
        Two or more configuration numbers.
    members : list of Optic, optional
        ``configuration(optic, n)`` for each n, when already built.

    Returns
    -------
    Stacked or None
        None unless the configurations differ only in numbers that broadcast
        (thicknesses, including finite object distances, surface shape
        numbers, clear semi-diameters, the aperture value, field values) and
        are paraxially aimed, with fields that need no solve (not
        ``real_image_height``); the same stop, materials, wavelengths,
        environment, tilts and decenters.  Then tracing the stacked optic is
        tracing each configuration (docs/configurations.md).
    """
    import math

    from . import backend as be

    configs = getattr(optic, "configurations", None)
    numbers = tuple(numbers)
    if configs is None or len(numbers) < 2:
        return None
    if configs.source is not None or any(row.key in ENVIRONMENT_KEYS for row in configs.rows):
        return None  # at_environment expands the rows' values: they no longer stack as given
    members = [configuration(optic, n) for n in numbers] if members is None else members
    if any(m.aiming != "paraxial" or m.fields.type == "real_image_height" for m in members):
        return None
    tops = [float(m.fields.max_magnitude) for m in members]
    reference = max(range(len(tops)), key=tops.__getitem__)
    replacements = []
    for row in configs.rows:
        values = [row.values[n - 1] for n in numbers]
        if row.key.strip().startswith("fields."):
            continue  # values: the field_scales; weights: read per configuration by operands
        if all(_same(v, values[0]) for v in values):
            continue
        numeric = not (row.key in ENVIRONMENT_KEYS or row.key == "stop")
        numeric = numeric and not (_MATERIAL.match(row.key) or _PLACEMENT.match(row.key))
        if not numeric or row.key.strip().startswith("wavelengths."):
            return None
        if row.key.replace(" ", "").startswith("surfaces[0].") and any(
            not math.isfinite(float(be.item(v))) for v in values
        ):
            return None  # an object at infinity in some configurations only
        column = be.stack([be.asarray(v) for v in values])
        replacements.append((row.key, be.reshape(column, (len(values), 1, 1, 1))))
    out = members[reference]
    for key, value in replacements:
        out = replaced(out, key, value)
    top = tops[reference]
    scales = tuple(t / top if top > 0 else 1.0 for t in tops)
    if members[reference].fields.type == "angle" and top > 0:
        slope = math.tan(math.radians(top))
        heights = tuple(math.tan(math.radians(t)) / slope for t in tops)
    else:
        heights = scales
    return Stacked(out, numbers, scales, heights)


def _same(a, b) -> bool:
    """The same value object, or equal plain values (never an array compare)."""
    if a is b:
        return True
    plain = (int, float, str, type(None))
    if isinstance(a, plain) and isinstance(b, plain):
        return a == b
    if isinstance(a, (list, tuple, dict)) and isinstance(b, type(a)):
        return repr(a) == repr(b)
    return False


def check_key(optic, key, where):
    """ConfigurationError unless ``key`` names something a configuration row can change."""
    if key in ENVIRONMENT_KEYS or key == "stop":
        return
    match = _MATERIAL.match(key)
    try:
        if match:
            index = int(match.group(1))
            if not -len(optic.surfaces) <= index < len(optic.surfaces):
                raise ConfigurationError(f"{where}: surface {index} does not exist")
        else:
            get_param(_with_placement(optic, key), key)
    except ConfigurationError:
        raise
    except OpticsError as exc:
        raise ConfigurationError(f"{where}: {exc}") from exc


def _shallow(optic):
    """A copy of the optic object itself (parts shared), without configurations."""
    import copy

    out = copy.copy(optic)
    out.configurations = None
    return out


def _with_placement(optic, key):
    """``optic`` with a zero tilt or decenter where ``key`` sets one entry of an unset one."""
    match = _PLACEMENT.match(key)
    if not match:
        return optic
    index, name = int(match.group(1)), match.group(2)
    if not -len(optic.surfaces) <= index < len(optic.surfaces):
        return optic  # reported by replaced()
    if getattr(optic.surfaces[index], name) is not None:
        return optic
    return replaced(optic, f"surfaces[{index}].{name}", (0.0,) * _PLACEMENT_SIZE[name])


def _with_stop(optic, index, where):
    count = len(optic.surfaces)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 < index < count - 1:
        raise ConfigurationError(
            f"{where}: the stop must be a surface index from 1 to {count - 2}, not {index!r}"
        )
    surfaces = list(optic.surfaces)
    for i, surface in enumerate(surfaces):
        if surface.is_stop != (i == index):
            surfaces[i] = dataclasses.replace(surface, is_stop=i == index)
    out = _shallow(optic)
    out.surfaces = surfaces
    return out


def _number(value, where):
    from . import backend as be

    if isinstance(value, bool) or value is None or isinstance(value, (str, list, dict)):
        raise ConfigurationError(f"{where}: the value must be a number, not {value!r}")
    try:
        float(be.item(value))
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"{where}: the value must be a number, not {value!r}") from exc
    return value
