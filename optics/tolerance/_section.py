"""The lens file's ``[tolerance]`` section: criterion, compensators, items and run settings.

The loader keeps the section as a plain dict on ``Optic.tolerance``; this
module checks it key by key and returns a :class:`ToleranceSection` of plain
values.  Every mistake raises :class:`~optics.errors.LensFileError` naming the
key, e.g. ``lens.toml: [tolerance] items[2]: unknown key 'plus_minos'``.
Whether a path, surface or material fits the optic is checked later, by
:class:`~optics.tolerance.ToleranceModel`.  The schema is documented in
docs/lens-files.md and docs/tolerancing.md.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

from ..errors import LensFileError
from ..limits import MAX_TRIALS
from ..optimize.drivers import DRIVERS
from ..optimize.merit import Operand
from ..optimize.section import read_operand, read_variable

SECTION_KEYS = (
    "criterion",
    "compensators",
    "compensator_operands",
    "compensator_driver",
    "compensator_steps",
    "items",
    "trials",
    "seed",
    "threshold",
)
DISTRIBUTIONS = ("uniform", "normal")
#: Most optimizer steps of one compensation (each trial runs one).
MAX_COMPENSATOR_STEPS = 10000
#: Keys of each item kind (besides ``kind``, ``plus_minus`` and ``distribution``).
ITEM_KEYS = {
    "parameter": ("path", "relative"),
    "decenter": ("surfaces",),
    "tilt": ("surfaces",),
    "index": ("surface", "relative"),
    "abbe": ("surface", "relative"),
    "power": ("surface", "wavelength", "aperture"),
    "irregularity": ("surface", "wavelength", "aperture"),
}
ITEM_KINDS = tuple(ITEM_KEYS)
#: He-Ne, µm: the default test wavelength of fringe tolerances.
TEST_WAVELENGTH = 0.6328


@dataclass(frozen=True)
class Item:
    """One tolerance of the ``items`` list, checked but not yet bound to an optic.

    Attributes
    ----------
    kind : str
        One of :data:`ITEM_KINDS`.
    plus_minus : float or None
        Half-width of the tolerance in the item's units (mm, degrees, index,
        Abbe number, fringes); None when ``relative`` is given instead.
    relative : float or None
        Half-width as a fraction of the nominal value (``parameter``,
        ``index``, ``abbe``).
    distribution : {"uniform", "normal"}
        ``normal``: plus_minus is 2 sigma and draws are truncated there.
    path : str or None
        ``parameter`` items.
    surfaces : tuple of int
        ``decenter`` and ``tilt`` items: the consecutive surfaces of the element.
    surface : int or None
        ``index``, ``abbe``, ``power`` and ``irregularity`` items.
    wavelength : float
        Fringe test wavelength (µm) of ``power`` and ``irregularity`` items.
    aperture : float or None
        Semi-aperture (mm) over which fringes are counted; None: the
        surface's ``semi_diameter``.
    """

    kind: str
    plus_minus: float | None = None
    relative: float | None = None
    distribution: str = "normal"
    path: str | None = None
    surfaces: tuple = ()
    surface: int | None = None
    wavelength: float = TEST_WAVELENGTH
    aperture: float | None = None


@dataclass
class ToleranceSection:
    """A checked ``[tolerance]`` section.

    Attributes
    ----------
    criterion : Operand
        Its value is the criterion (lower is better).
    compensators : list of Variable
    compensator_operands : list of Operand
        The merit the compensators minimize (default: the criterion).
    compensator_driver : str
        An optimization driver (default ``"minimize"``, L-BFGS-B on the merit Σ r²: with one
        spot operand a Gauss–Newton model has rank one and ``least_squares`` crawls).
    compensator_steps : int
        Most driver steps per compensation.
    items : list of Item
    trials, seed : int or None
        Monte Carlo defaults (the command line overrides them).
    threshold : float or None
        Yield threshold: a trial passes when criterion <= threshold.
    """

    criterion: Operand
    compensators: list = field(default_factory=list)
    compensator_operands: list = field(default_factory=list)
    compensator_driver: str = "minimize"
    compensator_steps: int = 5
    items: list = field(default_factory=list)
    trials: int | None = None
    seed: int | None = None
    threshold: float | None = None


def read_section(section, where="[tolerance]") -> ToleranceSection:
    """Check a ``[tolerance]`` table and return its contents.

    Parameters
    ----------
    section : dict
        The raw table (``Optic.tolerance``).
    where : str
        Prefix of error messages, e.g. ``"lens.toml: [tolerance]"``.

    Returns
    -------
    ToleranceSection
        The checked contents, with defaults filled in (``compensator_operands``: the
        criterion; ``compensator_driver``: ``"minimize"``; ``compensator_steps``: 5).

    Raises
    ------
    LensFileError
        A missing, unknown or ill-typed key; the message names it.
    """
    if section is None:
        raise LensFileError(f"{where}: the lens file has no [tolerance] section")
    if not isinstance(section, dict):
        raise LensFileError(f"{where}: must be a table, not {section!r}")
    _check_keys(section, SECTION_KEYS, where)
    criterion = _criterion(section.get("criterion"), f"{where} criterion")
    compensators = section.get("compensators", [])
    if not isinstance(compensators, list):
        raise LensFileError(f"{where}: key 'compensators' must be a list of parameter paths")
    operands = section.get("compensator_operands")
    if operands is not None and (not isinstance(operands, list) or not operands):
        raise LensFileError(f"{where}: key 'compensator_operands' must be a non-empty list")
    driver = section.get("compensator_driver", "minimize")
    if driver not in DRIVERS:
        raise LensFileError(
            f"{where}: key 'compensator_driver' must be one of {', '.join(DRIVERS)}, not {driver!r}"
        )
    items = section.get("items")
    if not isinstance(items, list) or not items:
        raise LensFileError(f"{where}: key 'items' must be a non-empty list of tables")
    threshold = section.get("threshold")
    return ToleranceSection(
        criterion=criterion,
        compensators=[
            read_variable(v, f"{where} compensators[{i}]") for i, v in enumerate(compensators)
        ],
        compensator_operands=[criterion] if operands is None else _operands(operands, where),
        compensator_driver=driver,
        compensator_steps=_integer(
            section, "compensator_steps", where, 5, minimum=1, maximum=MAX_COMPENSATOR_STEPS
        ),
        items=[_item(entry, f"{where} items[{i}]") for i, entry in enumerate(items)],
        trials=_integer(section, "trials", where, None, minimum=1, maximum=MAX_TRIALS),
        seed=_integer(section, "seed", where, None, minimum=0),
        threshold=None if threshold is None else _number(section, "threshold", where),
    )


def _operands(entries, where) -> list:
    return [read_operand(o, f"{where} compensator_operands[{i}]") for i, o in enumerate(entries)]


def _criterion(entry, where) -> Operand:
    if not isinstance(entry, dict):
        raise LensFileError(
            f"{where}: key 'criterion' must be a table with a 'type', e.g. "
            '{ type = "rms_spot" }, not ' + repr(entry)
        )
    for key in ("target", "weight", "kind"):
        if key in entry:
            raise LensFileError(
                f"{where}: unknown key '{key}' (a criterion is an operand's value: "
                "give 'type' and the operand's own keys)"
            )
    if entry.get("config") == "worst":  # the largest value over the configurations
        operand = read_operand({k: v for k, v in entry.items() if k != "config"}, where)
        operand.worst_configuration = True
        return operand
    return read_operand(entry, where)


def _item(entry, where) -> Item:
    if not isinstance(entry, dict):
        raise LensFileError(f"{where}: must be a table, not {entry!r}")
    kind = entry.get("kind", "parameter")
    if not isinstance(kind, str) or kind not in ITEM_KEYS:
        raise LensFileError(
            f"{where}: key 'kind' must be one of {', '.join(ITEM_KINDS)}, not {kind!r}"
        )
    _check_keys(entry, ("kind", "plus_minus", "distribution", *ITEM_KEYS[kind]), where)
    has_plus_minus, has_relative = "plus_minus" in entry, "relative" in entry
    if has_plus_minus == has_relative:
        choice = "'plus_minus' or 'relative'" if "relative" in ITEM_KEYS[kind] else "'plus_minus'"
        raise LensFileError(f"{where}: give exactly one of {choice}")
    size_key = "plus_minus" if has_plus_minus else "relative"
    size = _number(entry, size_key, where, positive=True)
    distribution = entry.get("distribution", "normal")
    if distribution not in DISTRIBUTIONS:
        raise LensFileError(
            f"{where}: key 'distribution' must be 'uniform' or 'normal', not {distribution!r}"
        )
    extra = {}
    if kind == "parameter":
        if not isinstance(entry.get("path"), str):
            raise LensFileError(
                f"{where}: key 'path' must be a string such as 'surfaces[1].radius'"
            )
        extra["path"] = entry["path"]
    elif kind in ("decenter", "tilt"):
        extra["surfaces"] = _surfaces(entry.get("surfaces"), where)
    else:
        extra["surface"] = _surface_index(entry.get("surface"), "surface", where)
    if kind in ("power", "irregularity"):
        extra["wavelength"] = _number(entry, "wavelength", where, TEST_WAVELENGTH, positive=True)
        if "aperture" in entry:
            extra["aperture"] = _number(entry, "aperture", where, positive=True)
    return Item(
        kind=kind,
        plus_minus=size if has_plus_minus else None,
        relative=size if has_relative else None,
        distribution=distribution,
        **extra,
    )


def _surfaces(value, where) -> tuple:
    if not isinstance(value, list) or not value:
        raise LensFileError(
            f"{where}: key 'surfaces' must be a list of consecutive surface numbers, e.g. [1, 2]"
        )
    numbers_ = [_surface_index(v, "surfaces", where) for v in value]
    if numbers_ != list(range(numbers_[0], numbers_[0] + len(numbers_))):
        raise LensFileError(
            f"{where}: key 'surfaces' must list consecutive surfaces in order, not {value!r}"
        )
    return tuple(numbers_)


def _surface_index(value, key, where) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise LensFileError(f"{where}: key '{key}' must hold surface numbers >= 1, not {value!r}")
    return value


def _check_keys(table, allowed, where):
    unknown = [k for k in table if k not in allowed]
    if unknown:
        raise LensFileError(f"{where}: unknown key '{unknown[0]}' (allowed: {', '.join(allowed)})")


def _number(table, key, where, default=None, *, positive=False):
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise LensFileError(f"{where}: key '{key}' must be a finite number, not {value!r}")
    if positive and not value > 0:
        raise LensFileError(f"{where}: key '{key}' must be positive, not {value!r}")
    return float(value)


def _integer(table, key, where, default, *, minimum, maximum=None):
    value = table.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise LensFileError(f"{where}: key '{key}' must be an integer >= {minimum}, not {value!r}")
    if maximum is not None and value > maximum:
        raise LensFileError(
            f"{where}: key '{key}' is {value}, more than the limit of {maximum} (optics.limits)"
        )
    return value
