"""Addressing one numeric parameter of an optic by a path such as ``surfaces[3].radius``.

Used by ``optics gradcheck`` and by optimization variables.  The grammar::

    path     := name index* ("." name index*)*
    name     := identifier not starting with "_"
    index    := "[" integer "]"            (negative integers count from the end)

A path is walked from the :class:`~optics.system.Optic`, one step at a time:

- ``.name`` reads an attribute; on a dict it reads the key ``name``;
- ``[i]`` indexes a list or tuple;
- on a :class:`~optics.surfaces.Surface`, a name that is not a surface field
  (``thickness``, ``material``, ``semi_diameter``, ``decenter``, ``tilt``,
  ``geometry``) is looked up on its geometry, so ``surfaces[3].radius`` means
  ``surfaces[3].geometry.radius``;
- on a material, ``index`` names its index parameter (``value`` of a
  constant index, ``nd`` of an Abbe glass);
- a path that ends on a table with a ``value`` key (a q2d coefficient) means
  that value.

Examples::

    surfaces[2].thickness            surfaces[3].radius         surfaces[3].conic
    surfaces[3].coefficients[2]      surfaces[6].coefficients[1][2]
    surfaces[1].terms[0]             surfaces[4].coefficients[0].value   (q2d)
    surfaces[2].decenter[0]          surfaces[2].tilt[2]        surfaces[2].material.index
    aperture.value                   fields.values[1][1]        wavelengths.values[0]

The path must end on a number (a Python number or a 0-d array).  Setting a
tuple entry (decenter, tilt) replaces the tuple.  Materials can be shared by
several surfaces: setting ``material.index`` changes every surface using that
material object.
"""

from __future__ import annotations

import copy
import re
from dataclasses import FrozenInstanceError, fields, is_dataclass

from .errors import OpticsError

__all__ = ["ParameterPathError", "get_param", "parse_path", "replaced", "set_param"]

_TOKEN = re.compile(r"\s*(?:(\.)?\s*([A-Za-z][A-Za-z0-9_]*)|\[\s*(-?\d+)\s*\])")


class ParameterPathError(OpticsError, ValueError):
    """A parameter path that is malformed or does not lead to a number of the optic."""


def parse_path(path: str) -> tuple:
    """Split a parameter path into steps.

    Parameters
    ----------
    path : str
        E.g. ``"surfaces[6].coefficients[1][2]"``.

    Returns
    -------
    tuple of (kind, key)
        ``("attr", name)`` or ``("index", int)`` per step.

    Raises
    ------
    ParameterPathError
        The text does not follow the grammar (the message shows where).
    """
    if not isinstance(path, str) or not path.strip():
        raise ParameterPathError(f"parameter path {path!r} is empty")
    steps, position = [], 0
    text = path.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        dot, name, index = match.groups() if match else (None, None, None)
        if match is None or (name is not None and bool(dot) == (not steps)):
            raise ParameterPathError(
                f"parameter path {path!r}: cannot read {text[position:]!r} at position {position} "
                "(expected e.g. surfaces[3].radius or surfaces[6].coefficients[1][2])"
            )
        steps.append(("attr", name) if name is not None else ("index", int(index)))
        position = match.end()
    return tuple(steps)


def get_param(optic, path: str):
    """The value at ``path`` (a Python number or 0-d array, as stored).

    Raises
    ------
    ParameterPathError
        The path is malformed, leads nowhere, or does not end on a number.
    """
    value = optic
    for depth, step in enumerate(parse_path(path)):
        value = _step(value, step, path, depth)
    return _number(_unwrap(value), path)


def set_param(optic, path: str, value) -> None:
    """Store ``value`` (a number or 0-d array, e.g. a trainable tensor) at ``path``.

    Raises
    ------
    ParameterPathError
        As :func:`get_param`, or when the location cannot be assigned.
    """
    get_param(optic, path)  # checks the whole path and that it ends on a number
    steps = parse_path(path)
    end = optic
    for depth, step in enumerate(steps):
        end = _step(end, step, path, depth)
    if isinstance(end, dict):  # a q2d coefficient table: set its value
        steps = steps + (("attr", "value"),)
    _assign_along(optic, steps, value, path)


def replaced(root, path: str, value):
    """A copy of ``root`` with ``value`` at ``path``; ``root`` is left as it was.

    Only the objects along the path are copied (shallowly): the optic, the
    surfaces list, the one surface, its geometry ... Everything else (other
    surfaces, materials, tensors) is shared with ``root``, so gradients flow
    from a variable set on ``root`` into the copy.  Unlike :func:`set_param`
    the value need not be a number (``surfaces[2].material`` takes a Material).

    Raises
    ------
    ParameterPathError
        The path is malformed or leads nowhere.
    """
    return _replace_along(root, _expanded(root, parse_path(path), path), value, path, 0)


def _expanded(root, steps, path):
    """``steps`` with the implicit ``.geometry`` of surface-shape names written out."""
    from .surfaces import Surface

    names = {f.name for f in fields(Surface)}
    out, obj = [], root
    for step in steps:
        if isinstance(obj, Surface) and step[0] == "attr" and step[1] not in names:
            out.append(("attr", "geometry"))
            obj = obj.geometry
        out.append(step)
        try:
            obj = _step(obj, step, path, 0)
        except ParameterPathError:
            obj = None  # reported with the full path by _replace_along
    return tuple(out)


def _replace_along(obj, steps, value, path, depth):
    child = value
    if len(steps) > 1:
        child = _replace_along(_step(obj, steps[0], path, depth), steps[1:], value, path, depth + 1)
    else:
        _step(obj, steps[0], path, depth)  # the location exists
    clone = obj if isinstance(obj, tuple) else copy.copy(obj)
    return _assign(clone, steps[0], child, path, depth)


def _assign_along(obj, steps, value, path, depth=0):
    """Assign at the end of ``steps``; returns obj or its replacement (for tuples)."""
    step = steps[0]
    if len(steps) == 1:
        return _assign(obj, step, value, path, depth)
    child = _step(obj, step, path, depth)
    new_child = _assign_along(child, steps[1:], value, path, depth + 1)
    if new_child is not child:
        return _assign(obj, step, new_child, path, depth)
    return obj


def _prefix(path, depth):
    steps = parse_path(path)[:depth]
    out = ""
    for kind, key in steps:
        out += f"[{key}]" if kind == "index" else (f".{key}" if out else key)
    return out or "the optic"


def _owner_and_name(obj, name, path, depth):
    """The object that holds attribute ``name`` and the attribute's real name."""
    if name.startswith("_"):
        raise ParameterPathError(f"parameter path {path!r}: {name!r} is not a parameter")
    from .materials import Material
    from .surfaces import Surface

    if isinstance(obj, Surface) and name not in {f.name for f in fields(Surface)}:
        return obj.geometry, name
    if isinstance(obj, Material) and name == "index":
        for real in ("value", "nd"):
            if hasattr(obj, real):
                return obj, real
        raise ParameterPathError(
            f"parameter path {path!r}: {_prefix(path, depth)} is a {type(obj).__name__}, which "
            "has no index parameter (constant-index and Abbe materials have one)"
        )
    return obj, name


def _step(obj, step, path, depth):
    kind, key = step
    where = _prefix(path, depth)
    if kind == "index":
        if not isinstance(obj, (list, tuple)):
            state = "is not set" if obj is None else "is not a list"
            raise ParameterPathError(f"parameter path {path!r}: {where} {state}")
        if not -len(obj) <= key < len(obj):
            raise ParameterPathError(
                f"parameter path {path!r}: {where} has {len(obj)} entries, "
                f"index {key} is out of range"
            )
        return obj[key]
    if isinstance(obj, dict):
        if key not in obj:
            raise ParameterPathError(f"parameter path {path!r}: {where} has no key {key!r}")
        return obj[key]
    owner, name = _owner_and_name(obj, key, path, depth)
    value = getattr(owner, name, _MISSING)
    if value is _MISSING or callable(value):
        kind_name = type(owner).__name__
        raise ParameterPathError(
            f"parameter path {path!r}: {where} ({kind_name}) has no parameter {key!r}"
        )
    return value


def _assign(obj, step, value, path, depth):
    kind, key = step
    where = _prefix(path, depth)
    if kind == "index":
        if isinstance(obj, tuple):
            items = list(obj)
            items[key] = value
            return tuple(items)
        obj[key] = value
        return obj
    if isinstance(obj, dict):
        obj[key] = value
        return obj
    owner, name = _owner_and_name(obj, key, path, depth)
    try:
        setattr(owner, name, value)
    except (AttributeError, FrozenInstanceError) as exc:
        raise ParameterPathError(
            f"parameter path {path!r}: {where}.{key} cannot be set ({exc})"
        ) from exc
    return obj


def _unwrap(value):
    """A q2d-style coefficient table stands for its value."""
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


def _number(value, path):
    if isinstance(value, bool) or value is None:
        raise ParameterPathError(f"parameter path {path!r} leads to {value!r}, not a number")
    if isinstance(value, (int, float)):
        return value
    shape = getattr(value, "shape", None)
    if shape is not None and len(tuple(shape)) == 0 and hasattr(value, "dtype"):
        return value
    if is_dataclass(value) or isinstance(value, (list, tuple, dict)):
        description = f"a {type(value).__name__}"
    else:
        description = repr(value)
    raise ParameterPathError(f"parameter path {path!r} leads to {description}, not a number")


_MISSING = object()
