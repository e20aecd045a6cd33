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
from dataclasses import dataclass

from .. import backend as be
from ..errors import ConfigurationError
from ..trace.prepared import pinned_to
from .operands import OPERANDS, MeritContext

KINDS = ("equal", "at_least", "at_most")


class Operand:
    """One merit term.

    Parameters
    ----------
    type : str
        A name in :data:`optics.optimize.operands.OPERANDS` (``"efl"``, ``"rms_spot"`` ...).
    target : float
        The goal, in the operand's units (mm, percent, unitless).
    weight : float
        Non-negative weight of the squared residual.
    kind : {"equal", "at_least", "at_most"}
    config : int, optional
        Evaluate on configuration ``config`` (1-based, :mod:`optics.configurations`) of
        the optic; None (the default): on the optic as given.
    **args
        The operand function's keyword arguments (``fields``, ``hx``, ``surface`` ...).

    Examples
    --------
    >>> Operand("efl", target=50.0)
    Operand('efl', target=50.0, weight=1.0, kind='equal')
    >>> Operand("real_y", hy=1.0, py=1.0, weight=0.5).label
    'real_y(hy=1.0, py=1.0)'
    """

    def __init__(self, type, target=0.0, weight=1.0, kind="equal", config=None, **args):
        self.type, self.target, self.weight, self.kind, self.args = type, target, weight, kind, args
        if config is not None and (
            isinstance(config, bool) or not isinstance(config, int) or config < 1
        ):
            raise ConfigurationError(
                f"operand {type}: config must be a configuration number >= 1, not {config!r}"
            )
        self.config = config
        function = OPERANDS.get(type)
        if function is None:
            raise ConfigurationError(
                f"unknown operand type {type!r}; choose one of {', '.join(OPERANDS)}"
            )
        if kind not in KINDS:
            raise ConfigurationError(f"operand {type}: kind {kind!r} is not one of {KINDS}")
        if not weight >= 0:
            raise ConfigurationError(f"operand {type}: weight must be >= 0, not {weight!r}")
        missing = set(required_arguments(type)) - set(args)
        if missing:
            raise ConfigurationError(
                f"operand {type}: missing argument(s) {', '.join(sorted(missing))}"
            )
        unknown = set(args) - set(operand_arguments(type))
        if unknown:
            raise ConfigurationError(
                f"operand {type}: unknown argument(s) {', '.join(sorted(unknown))}; "
                f"it takes {', '.join(operand_arguments(type)) or 'none'}"
            )

    def __repr__(self):
        args = "".join(f", {k}={v!r}" for k, v in self.args.items())
        config = "" if self.config is None else f", config={self.config!r}"
        return (
            f"Operand({self.type!r}, target={self.target!r}, weight={self.weight!r}, "
            f"kind={self.kind!r}{config}{args})"
        )

    @property
    def label(self) -> str:
        """A short description for tables, e.g. ``rms_spot(fields=[0, 1])``."""
        args = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        label = f"{self.type}({args})" if args else self.type
        return label if self.config is None else f"{label}@config{self.config}"

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
    """A list of operands and the merit Σ r² they define.

    ``method`` says how the ray bundles are traced (:mod:`optics.trace.methods`;
    ``"compiled"`` for one compiled graph per bundle on torch or jax).
    ``batch``: operands on several configurations that stack (see
    :mod:`optics.optimize.configuration_batch`) share one trace per ray bundle;
    False traces each configuration on its own (the same values).
    """

    operands: list
    method: object = None
    batch: bool = True

    def __post_init__(self):
        if not self.operands:
            raise ConfigurationError("a merit function needs at least one operand")

    def contexts(self, optic) -> dict:
        """One MeritContext per configuration the operands use (key None: ``optic``).

        Each configuration's Optic is built once per evaluation from ``optic``
        (:mod:`optics.configurations`), so variables set on it reach them all;
        configurations that stack share their traces (``batch``).
        """
        keys = list(dict.fromkeys(operand.config for operand in self.operands))
        numbers = [key for key in keys if key is not None]
        contexts = {}
        if self.batch and len(numbers) > 1:
            from .configuration_batch import batched_contexts

            contexts = batched_contexts(optic, numbers, self.method)
        for key in keys:
            if key not in contexts:
                system = optic if key is None else optic.configuration(key)
                contexts[key] = MeritContext(system, method=self.method)
        return contexts

    def values(self, optic) -> list:
        """Every operand's value (0-d arrays, gradients kept), in order."""
        contexts = self.contexts(optic)
        return [_value(operand, contexts[operand.config]) for operand in self.operands]

    def residuals(self, optic):
        """The residual vector, shape (m,) for m operands."""
        values = self.values(optic)
        return be.stack([be.reshape(op.residual(v), ()) for op, v in zip(self.operands, values)])

    def ray_residuals(self, optic):
        """The ray-level residual vector: spot operands ray by ray, the others one each.

        Its squared norm is the merit (see :mod:`optics.optimize.operands_rays`);
        shape (M,), M ≥ the number of operands.
        """
        from .operands_rays import RAY_RESIDUALS, expands

        contexts = self.contexts(optic)
        parts = []
        for operand in self.operands:
            ctx = contexts[operand.config]
            if expands(operand):
                with pinned_to(ctx.system):
                    deviations = RAY_RESIDUALS[operand.type](ctx, **operand.args)
                parts.append(deviations * operand.weight**0.5)
            else:
                parts.append(be.reshape(operand.residual(_value(operand, ctx)), (1,)))
        return be.concatenate(parts)

    def __call__(self, optic):
        """The merit Σ r² (0-d array)."""
        r = self.residuals(optic)
        return be.sum(r * r)

    def report(self, optic) -> list[dict]:
        """One dict of plain floats per operand.

        Keys: type, label, target, kind, weight, value and contribution
        (the operand's share of the merit, its residual squared).
        """
        with be.no_grad():
            values = self.values(optic)
        rows = []
        for operand, value in zip(self.operands, values):
            residual = float(be.item(operand.residual(value)))
            rows.append(
                {
                    "type": operand.type,
                    "label": operand.label,
                    "config": operand.config,
                    "target": float(operand.target),
                    "kind": operand.kind,
                    "weight": float(operand.weight),
                    "value": float(be.item(value)),
                    "contribution": residual * residual,
                }
            )
        return rows


def _value(operand, ctx):
    """The operand's value; the analyses it calls share the context's prepared system."""
    with pinned_to(ctx.system):
        return operand.value(ctx)
