"""The lens file's ``[optimize]`` section: variables, operands, driver and stop criteria.

The loader keeps the section as a plain dict on ``Optic.optimize``; this
module checks it and turns it into a :class:`~optics.optimize.problem.Problem`
and driver settings.  Every mistake raises :class:`~optics.errors.LensFileError`
naming the key, e.g. ``lens.toml: [optimize] operands[1]: unknown key 'wieght'``.
The schema is documented in docs/lens-files.md and docs/optimization.md.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

from ..errors import LensFileError, OpticsError
from ..params import get_param
from .constraints import Constraint
from .dls import JACOBIANS
from .drivers import DRIVERS, driver_options
from .merit import KINDS, Merit, Operand, operand_arguments
from .operands import OPERANDS, MeritContext
from .problem import Problem
from .variables import Variable

SETTINGS_KEYS = ("driver", "steps", "merit_tol", "grad_tol", "learning_rate", "method", "jacobian")
SECTION_KEYS = ("variables", "operands", "constraints", *SETTINGS_KEYS)
CONSTRAINT_KEYS = ("type", "min", "max")
VARIABLE_KEYS = ("path", "min", "max", "scale")
OPERAND_KEYS = ("type", "target", "weight", "kind", "config")


@dataclass
class OptimizeSection:
    """A checked ``[optimize]`` section.

    Attributes
    ----------
    variables : list of Variable
    operands : list of Operand
    driver : str or None
        None: the caller's default.
    steps : int
    merit_tol, grad_tol : float
    options : dict
        Driver options present in the section (``learning_rate``, ``method``,
        ``jacobian``).
    constraints : list of Constraint
        The ``constraints`` entries (held by the dls and minimize drivers).
    """

    variables: list
    operands: list
    driver: str | None = None
    steps: int = 100
    merit_tol: float = 1e-10
    grad_tol: float = 1e-10
    options: dict = field(default_factory=dict)
    constraints: list = field(default_factory=list)

    def run_options(self, driver) -> dict:
        """The options that ``driver`` takes, for :func:`~optics.optimize.optimize`."""
        accepted = driver_options(driver)
        return {k: v for k, v in self.options.items() if k in accepted}


def read_section(section, where="[optimize]") -> OptimizeSection:
    """Check an ``[optimize]`` table and return its contents.

    Parameters
    ----------
    section : dict
        The raw table (``Optic.optimize``).
    where : str
        Prefix of error messages, e.g. ``"lens.toml: [optimize]"``.

    Returns
    -------
    OptimizeSection
        The variables, operands and constraints as objects, the driver (None:
        the caller's default), ``steps`` (default 100), ``merit_tol`` and
        ``grad_tol`` (default 1e-10) and the driver options present.

    Raises
    ------
    LensFileError
        A missing, unknown or ill-typed key; the message names it.
    """
    if section is None:
        raise LensFileError(
            f"{where}: the lens file has no [optimize] section (docs/optimization.md; "
            "the 'singlet' sample has one: optics optimize singlet -o best_form.toml)"
        )
    if not isinstance(section, dict):
        raise LensFileError(f"{where}: must be a table, not {section!r}")
    _check_keys(section, SECTION_KEYS, where)
    for key in ("variables", "operands"):
        if not isinstance(section.get(key), list) or not section[key]:
            raise LensFileError(f"{where}: key '{key}' must be a non-empty list")
    driver = section.get("driver")
    if driver is not None and driver not in DRIVERS:
        raise LensFileError(
            f"{where}: key 'driver' must be one of {', '.join(DRIVERS)}, not {driver!r}"
        )
    steps = section.get("steps", 100)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise LensFileError(f"{where}: key 'steps' must be a non-negative integer, not {steps!r}")
    options = {}
    if "learning_rate" in section:
        options["learning_rate"] = _number(section, "learning_rate", where, positive=True)
    if "method" in section:
        if section["method"] not in ("trf", "lm"):
            raise LensFileError(
                f"{where}: key 'method' must be 'trf' or 'lm', not {section['method']!r}"
            )
        options["method"] = section["method"]
    if "jacobian" in section:
        if section["jacobian"] not in JACOBIANS:
            raise LensFileError(
                f"{where}: key 'jacobian' must be one of {', '.join(JACOBIANS)}, "
                f"not {section['jacobian']!r}"
            )
        options["jacobian"] = section["jacobian"]
    constraints = section.get("constraints", [])
    if not isinstance(constraints, list):
        raise LensFileError(f"{where}: key 'constraints' must be a list of tables")
    return OptimizeSection(
        variables=[
            _variable(v, f"{where} variables[{i}]") for i, v in enumerate(section["variables"])
        ],
        operands=[_operand(o, f"{where} operands[{i}]") for i, o in enumerate(section["operands"])],
        driver=driver,
        steps=steps,
        merit_tol=_number(section, "merit_tol", where, default=1e-10),
        grad_tol=_number(section, "grad_tol", where, default=1e-10),
        options=options,
        constraints=[
            read_constraint(c, f"{where} constraints[{i}]") for i, c in enumerate(constraints)
        ],
    )


def problem_from_lens(optic, where="[optimize]"):
    """The problem and settings of ``optic.optimize``, checked against the optic.

    Every variable path is resolved and every operand evaluated once, so a
    path or index that does not fit this optic fails here, naming the entry.

    Parameters
    ----------
    optic : Optic
        A lens with an ``[optimize]`` section (``optic.optimize``).
    where : str
        Prefix of error messages, e.g. ``"lens.toml: [optimize]"``.

    Returns
    -------
    problem : Problem
        The optic, the section's variables, its operands as a Merit and its
        constraints.
    section : OptimizeSection
        The checked section (driver, steps, tolerances and options).

    Raises
    ------
    LensFileError
        A bad section (:func:`read_section`) or an entry that does not fit the
        optic; the message names the entry.
    """
    section = read_section(optic.optimize, where)
    ctx = MeritContext(optic)
    for i, operand in enumerate(section.operands):
        try:
            operand.value(ctx)
        except OpticsError as exc:
            raise LensFileError(f"{where} operands[{i}] ({operand.type}): {exc}") from exc
    for i, constraint in enumerate(section.constraints):
        try:
            constraint.operand.value(ctx)
        except OpticsError as exc:
            raise LensFileError(f"{where} constraints[{i}] ({constraint.type}): {exc}") from exc
    for i, variable in enumerate(section.variables):
        try:
            get_param(optic, variable.path)
        except OpticsError as exc:
            raise LensFileError(f"{where} variables[{i}]: key 'path': {exc}") from exc
    try:
        problem = Problem(optic, section.variables, Merit(section.operands), section.constraints)
    except OpticsError as exc:
        raise LensFileError(f"{where}: {exc}") from exc
    return problem, section


def _check_keys(table, allowed, where):
    unknown = [k for k in table if k not in allowed]
    if unknown:
        raise LensFileError(f"{where}: unknown key '{unknown[0]}' (allowed: {', '.join(allowed)})")


def _number(table, key, where, default=None, *, positive=False):
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise LensFileError(f"{where}: key '{key}' must be a number, not {value!r}")
    if positive and not value > 0:
        raise LensFileError(f"{where}: key '{key}' must be positive, not {value!r}")
    return float(value)


def _variable(entry, where) -> Variable:
    if isinstance(entry, str):
        entry = {"path": entry}
    if not isinstance(entry, dict):
        raise LensFileError(f"{where}: must be a path string or a table with 'path', not {entry!r}")
    _check_keys(entry, VARIABLE_KEYS, where)
    if not isinstance(entry.get("path"), str):
        raise LensFileError(f"{where}: key 'path' must be a string such as 'surfaces[1].radius'")
    bounds = {k: _number(entry, k, where) for k in ("min", "max") if k in entry}
    if "min" in bounds and "max" in bounds and not bounds["min"] < bounds["max"]:
        raise LensFileError(
            f"{where}: key 'max' ({bounds['max']}) must be greater than 'min' ({bounds['min']})"
        )
    scale = _number(entry, "scale", where, positive=True) if "scale" in entry else None
    try:
        return Variable(entry["path"], bounds.get("min"), bounds.get("max"), scale)
    except OpticsError as exc:
        raise LensFileError(f"{where}: key 'path': {exc}") from exc


def _operand(entry, where) -> Operand:
    if not isinstance(entry, dict):
        raise LensFileError(f"{where}: must be a table with a 'type', not {entry!r}")
    kind = entry.get("type")
    if kind not in OPERANDS:
        raise LensFileError(
            f"{where}: key 'type' must be one of {', '.join(OPERANDS)}, not {kind!r}"
        )
    _check_keys(entry, (*OPERAND_KEYS, *operand_arguments(kind)), where)
    if entry.get("kind", "equal") not in KINDS:
        raise LensFileError(
            f"{where}: key 'kind' must be one of {', '.join(KINDS)}, not {entry['kind']!r}"
        )
    weight = _number(entry, "weight", where, default=1.0)
    if weight < 0:
        raise LensFileError(f"{where}: key 'weight' must be >= 0, not {weight!r}")
    args = {k: v for k, v in entry.items() if k not in OPERAND_KEYS}
    try:
        return Operand(
            kind,
            _number(entry, "target", where, default=0.0),
            weight,
            entry.get("kind", "equal"),
            config=entry.get("config"),
            **args,
        )
    except OpticsError as exc:
        raise LensFileError(f"{where}: {exc}") from exc


def read_constraint(entry, where) -> Constraint:
    """One ``constraints`` entry: a table with a ``type``, ``min`` and/or ``max`` and the
    operand's keys; errors start with ``where``."""
    if not isinstance(entry, dict):
        raise LensFileError(f"{where}: must be a table with a 'type' and 'min' or 'max'")
    kind = entry.get("type")
    if kind not in OPERANDS:
        raise LensFileError(
            f"{where}: key 'type' must be one of {', '.join(OPERANDS)}, not {kind!r}"
        )
    _check_keys(entry, (*CONSTRAINT_KEYS, *operand_arguments(kind)), where)
    limits = {k: _number(entry, k, where) for k in ("min", "max") if k in entry}
    if not limits:
        raise LensFileError(f"{where}: give key 'min', 'max' or both")
    args = {k: v for k, v in entry.items() if k not in CONSTRAINT_KEYS}
    try:
        return Constraint(kind, limits.get("min"), limits.get("max"), **args)
    except OpticsError as exc:
        raise LensFileError(f"{where}: {exc}") from exc


def read_variable(entry, where) -> Variable:
    """One ``variables`` entry (a path string or a table), checked; errors start with ``where``."""
    return _variable(entry, where)


def read_operand(entry, where) -> Operand:
    """One ``operands`` entry (a table with a ``type``), checked; errors start with ``where``."""
    return _operand(entry, where)
