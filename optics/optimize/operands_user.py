"""User operands: Python functions registered by name.

A registered function works everywhere a built-in operand does:
:class:`~optics.optimize.Operand`, constraints, the ``[optimize]`` section
(when registered in the same process before the lens is read) and
``optics optimize --operand``.
"""

from __future__ import annotations

import inspect

from ..errors import ConfigurationError
from .operands import OPERANDS


def register_operand(name, function, *, replace=False):
    """Make the Python function ``function`` an operand named ``name``.

    Parameters
    ----------
    name : str
        The operand type, as written in :class:`~optics.optimize.Operand`,
        a constraint, the ``[optimize]`` section or ``--operand``.
    function : callable
        ``function(ctx, **arguments) -> 0-d array``; ``ctx`` is the
        :class:`~optics.optimize.MeritContext` (``ctx.optic``,
        ``ctx.first_order``, ``ctx.ray(...)``, ``ctx.bundle(...)``), the
        keyword arguments (with defaults where optional) are the operand's
        keys.  Use ``be`` functions so that the gradients stay exact.
    replace : bool
        Allow replacing an operand of the same name.

    Returns
    -------
    None
        The operand is registered for every later :class:`~optics.optimize.Operand`
        of that name.

    Raises
    ------
    ConfigurationError
        ``name`` is not an identifier, ``function`` is not callable or takes no
        positional context, or the name is taken and ``replace`` is False.

    Examples
    --------
    >>> from optics.optimize import Operand, register_operand
    >>> def power(ctx):
    ...     return 1.0 / ctx.first_order.efl
    >>> register_operand("power", power, replace=True)
    >>> Operand("power", target=0.02).label
    'power'
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ConfigurationError(f"an operand name must be an identifier, not {name!r}")
    if not callable(function):
        raise ConfigurationError(f"operand {name}: {function!r} is not callable")
    parameters = list(inspect.signature(function).parameters.values())
    if not parameters or parameters[0].kind not in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        raise ConfigurationError(f"operand {name}: the function must take the context first")
    if name in OPERANDS and not replace and OPERANDS[name] is not function:
        raise ConfigurationError(f"operand {name!r} exists; pass replace=True to replace it")
    OPERANDS[name] = function
