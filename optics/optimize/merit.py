"""The merit function: operands with targets, weights and kinds, and their residuals.

Each operand contributes one residual r = √weight · d, where d is

- ``"equal"``:    value − target
- ``"at_least"``: min(value − target, 0)   (zero once the value is large enough)
- ``"at_most"``:  max(value − target, 0)   (zero once the value is small enough)

and the merit is Σ r², the weighted sum of squared residuals.  Least-squares
drivers see the residual vector; gradient drivers its sum of squares.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

from .. import backend as be
from ..errors import ConfigurationError
from .operands import OPERANDS, MeritContext

KINDS = ("equal", "at_least", "at_most")


@dataclass
class Operand:
    """One merit term.

    Attributes
    ----------
    type : str
        A name in :data:`optics.optimize.operands.OPERANDS` (``"efl"``, ``"rms_spot"`` ...).
    target : float
        The goal, in the operand's units (mm, percent, unitless).
    weight : float
        Non-negative weight of the squared residual.
    kind : {"equal", "at_least", "at_most"}
    args : dict
        The operand function's keyword arguments (fields, hx, surface ...).
    """

    type: str
    target: float = 0.0
    weight: float = 1.0
    kind: str = "equal"
    args: dict = field(default_factory=dict)

    def __post_init__(self):
        function = OPERANDS.get(self.type)
        if function is None:
            raise ConfigurationError(
                f"unknown operand type {self.type!r}; choose one of {', '.join(OPERANDS)}"
            )
        if self.kind not in KINDS:
            raise ConfigurationError(f"operand {self.type}: kind {self.kind!r} is not one of {KINDS}")
        if not self.weight >= 0:
            raise ConfigurationError(f"operand {self.type}: weight must be >= 0, not {self.weight!r}")
        missing = set(required_arguments(self.type)) - set(self.args)
        if missing:
            raise ConfigurationError(
                f"operand {self.type}: missing argument(s) {', '.join(sorted(missing))}"
            )
        unknown = set(self.args) - set(operand_arguments(self.type))
        if unknown:
            raise ConfigurationError(
                f"operand {self.type}: unknown argument(s) {', '.join(sorted(unknown))}; "
                f"it takes {', '.join(operand_arguments(self.type)) or 'none'}"
            )

    @property
    def label(self) -> str:
        """A short description for tables, e.g. ``rms_spot(fields=[0, 1])``."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        return f"{self.type}({args})" if args else self.type

    def value(self, ctx):
        """The operand's value (0-d array) in the evaluation context ``ctx``."""
        return OPERANDS[self.type](ctx, **self.args)

    def residual(self, value):
        """√weight times the violated part of value − target."""
        difference = value - self.target
        if self.kind == "at_least":
            difference = be.minimum(difference, 0.0)
        elif self.kind == "at_most":
            difference = be.maximum(difference, 0.0)
        return difference * self.weight**0.5


def operand_arguments(name) -> list[str]:
    """Keyword arguments (lens-file keys) the operand ``name`` takes."""
    parameters = list(inspect.signature(OPERANDS[name]).parameters)
    return parameters[1:]  # the first is the context


def required_arguments(name) -> list[str]:
    """Arguments of operand ``name`` without a default."""
    parameters = list(inspect.signature(OPERANDS[name]).parameters.values())[1:]
    return [p.name for p in parameters if p.default is inspect.Parameter.empty]


@dataclass
class Merit:
    """A list of operands and the merit Σ r² they define."""

    operands: list

    def __post_init__(self):
        if not self.operands:
            raise ConfigurationError("a merit function needs at least one operand")

    def values(self, optic) -> list:
        """Every operand's value (0-d arrays, gradients kept), in order."""
        ctx = MeritContext(optic)
        return [operand.value(ctx) for operand in self.operands]

    def residuals(self, optic):
        """The residual vector, shape (m,) for m operands."""
        values = self.values(optic)
        return be.stack([be.reshape(op.residual(v), ()) for op, v in zip(self.operands, values)])

    def __call__(self, optic):
        """The merit Σ r² (0-d array)."""
        r = self.residuals(optic)
        return be.sum(r * r)

    def report(self, optic) -> list[dict]:
        """One dict per operand with plain floats: label, target, kind, weight, value, contribution."""
        with be.no_grad():
            values = self.values(optic)
        rows = []
        for operand, value in zip(self.operands, values):
            residual = float(be.to_numpy(operand.residual(value)))
            rows.append(
                {
                    "type": operand.type,
                    "label": operand.label,
                    "target": float(operand.target),
                    "kind": operand.kind,
                    "weight": float(operand.weight),
                    "value": float(be.to_numpy(value)),
                    "contribution": residual * residual,
                }
            )
        return rows
