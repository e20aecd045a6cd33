"""A small TOML 1.0 writer for lens files (the standard library only reads TOML).

It writes what lens files hold: strings, booleans, integers, floats (``inf``,
``-inf`` and ``nan`` included, every float in its shortest round-trip form so
reading it back gives the same bits), arrays, nested arrays, inline tables,
tables and arrays of tables.  The layout rules:

- at the top level a table becomes a ``[section]`` and a non-empty array of
  tables becomes ``[[section]]`` entries (``[[surfaces]]``);
- inside a ``[section]`` a table becomes a ``[section.sub]`` table, and an array
  of tables is written as an array of inline tables, one per line;
- inside an array-of-tables entry every table is inline (``material = { ... }``).

TOML has no null, so ``None`` is refused with the key path in the message.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_INDENT = "    "


def dumps(data: Mapping, *, header: str = "") -> str:
    """TOML text for a mapping of string keys.

    Parameters
    ----------
    data : mapping
        The document; values are str, bool, int, float, lists/tuples and mappings.
    header : str, optional
        Comment lines written first (without the leading ``#``).

    Returns
    -------
    str
        The document, ending in one newline.

    Raises
    ------
    ValueError
        A value TOML cannot hold (``None``, an unsupported type, a non-string
        key); the message names the key path, e.g. ``optimize.bounds[1]``.
    """
    lines = [f"# {line}".rstrip() for line in header.splitlines()]
    if lines:
        lines.append("")
    _write_table(lines, data, path=(), array_entry=False)
    return "\n".join(lines).strip("\n") + "\n"


def _write_table(lines, table, path, array_entry):
    """Append the body of one table: plain keys first, then its sub-tables in order."""
    _check_keys(table, path)
    nested = []
    for key, value in table.items():
        if not array_entry and isinstance(value, Mapping):
            nested.append((key, value, False))
        elif not path and _is_array_of_tables(value):
            nested.append((key, value, True))
        else:
            where = _join(path, key)
            lines.append(f"{_key(key)} = {_value(value, where, depth=0)}")
    for key, value, is_array in nested:
        sub_path = (*path, key)
        header = ".".join(_key(k) for k in sub_path)
        if is_array:
            for entry in value:
                lines.extend(["", f"[[{header}]]"])
                _write_table(lines, entry, sub_path, array_entry=True)
        else:
            lines.extend(["", f"[{header}]"])
            _write_table(lines, value, sub_path, array_entry=False)


def _is_array_of_tables(value) -> bool:
    return (
        isinstance(value, (list, tuple))
        and bool(value)
        and all(isinstance(v, Mapping) for v in value)
    )


def _value(value, where, depth):
    """One value in TOML syntax; ``depth`` is the nesting level of multi-line arrays."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        return _float(float(value))
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Mapping):
        _check_keys(value, where)
        if not value:
            return "{}"
        items = ", ".join(
            f"{_key(k)} = {_value(v, _join(where, k), depth)}" for k, v in value.items()
        )
        return f"{{ {items} }}"
    if isinstance(value, (list, tuple)):
        parts = [_value(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
        if any(isinstance(v, Mapping) for v in value):
            # Inline tables must stay on one line, so an array of them gets one per line.
            inner, outer = _INDENT * (depth + 1), _INDENT * depth
            return "[\n" + "".join(f"{inner}{p},\n" for p in parts) + f"{outer}]"
        return "[" + ", ".join(parts) + "]"
    if value is None:
        raise ValueError(f"{where}: TOML has no null value; remove the key or give it a value")
    raise ValueError(f"{where}: cannot write a {type(value).__name__} value ({value!r}) in TOML")


def _float(value: float) -> str:
    """Shortest text that reads back as the same float (repr is valid TOML for finite floats)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def _string(text: str) -> str:
    """A TOML basic string."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _check_keys(table, where):
    for key in table:
        if not isinstance(key, str):
            place = f"{_join_path(where)}: " if where else ""
            raise ValueError(f"{place}TOML keys are strings, not {key!r}")


def _join(path, key):
    """Dotted key path for messages; ``path`` is a tuple of keys or a string."""
    prefix = _join_path(path)
    return f"{prefix}.{key}" if prefix else str(key)


def _join_path(path):
    return path if isinstance(path, str) else ".".join(str(k) for k in path)
