"""Parsing lens-file text safely: every failure of the TOML/JSON parsers is a LensFileError.

Beyond syntax, the parsed tree is checked (iteratively, so any depth is safe)
for what the parsers accept silently or crash on later: a JSON object with a
repeated key (JSON keeps the last value; TOML refuses it itself), nesting
deeper than :data:`MAX_DEPTH`, and integers too large for a float.  The
messages name the file, the section or surface, and the key.
"""

from __future__ import annotations

import json
import sys

from ..errors import LensFileError

__all__ = ["MAX_DEPTH", "check_tree", "json_loads", "parse"]


MAX_DEPTH = 16
"""Deepest nesting of arrays and tables a lens file may have (the schema needs about 5)."""
_DUPLICATES = "__optics_duplicate_keys__"


def parse(parse, syntax_error, describe, text, source):
    """``parse(text)`` with every failure of the parser turned into a LensFileError."""
    try:
        return parse(text)
    except syntax_error as exc:
        raise LensFileError(f"{source}: {describe(exc)}") from exc
    except RecursionError:
        raise LensFileError(
            f"{source}: arrays or tables nested too deeply (at most {MAX_DEPTH} levels)"
        ) from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # Python's limit on int(text)
            raise LensFileError(
                f"{source}: an integer of more than {_INT_DIGITS} digits; "
                "no lens-file number needs that many"
            ) from None
        raise LensFileError(f"{source}: a value cannot be read: {exc}") from None


class _JsonObject(dict):
    """A JSON object that remembers the keys it saw more than once."""


def json_loads(text):
    """``json.loads`` that marks objects with repeated keys (refused by :func:`check_tree`)."""
    return json.loads(text, object_pairs_hook=_json_object)


def _json_object(pairs):
    obj = _JsonObject()
    repeated = []
    for key, value in pairs:
        if key in obj and key not in repeated:
            repeated.append(key)
        obj[key] = value
    if repeated:
        setattr(obj, _DUPLICATES, repeated)
    return obj


def check_tree(data, source):
    """Refuse repeated JSON keys, over-deep nesting and integers no float can hold.

    The walk is iterative, so it is safe on any depth the parser accepted.
    """
    stack = [(data, (), 1)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise LensFileError(
                    f"{_place(source, path[:2])}: arrays or tables nested more than "
                    f"{MAX_DEPTH} levels deep"
                )
            repeated = getattr(value, _DUPLICATES, None)
            if repeated:
                raise LensFileError(
                    f"{_place(source, (*path, repeated[0]))}: appears more than once in the "
                    "same object (JSON would keep only the last value; give it once)"
                )
            items = value.items() if isinstance(value, dict) else enumerate(value)
            stack.extend((v, (*path, k), depth + 1) for k, v in items)
        elif isinstance(value, int) and not isinstance(value, bool):
            if abs(value) > _LARGEST_FLOAT_INT:
                digits = len(str(abs(value))) if abs(value).bit_length() < 14000 else "so many"
                raise LensFileError(
                    f"{_place(source, path)}: an integer of {digits} digits is too large "
                    "for a number (at most about 1.8e308)"
                )


_LARGEST_FLOAT_INT = int(sys.float_info.max)
_INT_DIGITS = getattr(sys, "get_int_max_str_digits", lambda: 4300)() or 4300


def _place(source, path) -> str:
    """'file: surface 2: key 'radius'' style location of a value in lens-file data."""
    parts = [source]
    rest = list(path)
    if len(rest) >= 2 and rest[0] == "surfaces" and isinstance(rest[1], int):
        parts.append(f"surface {rest[1]}")
        rest = rest[2:]
    elif len(rest) > 1 and isinstance(rest[0], str):
        parts.append(f"[{rest[0]}]")
        rest = rest[1:]
    if rest:
        key = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in rest).lstrip(".")
        parts.append(f"key {key!r}")
    return ": ".join(parts)
