"""Value checks for lens-file data: numbers, choices, allowed keys, readable descriptions.

Each check raises a LensFileError that names where the value is (``where``:
file, section or surface) and the key.
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Mapping

from ..errors import LensFileError

#: Marks a key that has no default: a missing key is an error.
REQUIRED = object()


def real(table, key, where, default=REQUIRED, *, positive=False, allow_inf=False):
    """table[key] as a number (an int or float kept as given); LensFileError names the key."""
    value = table.get(key, default)
    if value is REQUIRED:
        raise LensFileError(f"{where}: missing key '{key}'")
    if not is_number(value):
        raise LensFileError(f"{where}: key '{key}' must be a number, not {describe(value)}")
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise LensFileError(f"{where}: key '{key}' must be a finite number, not {value!r}")
    if positive and not value > 0:
        raise LensFileError(f"{where}: key '{key}' must be positive, not {value!r}")
    return value


def weights(table, count, where):
    """table["weights"]: None when absent, else ``count`` non-negative numbers, not all 0."""
    values = table.get("weights")
    if values is None:
        return None
    if (
        not isinstance(values, (list, tuple))
        or len(values) != count
        or not all(is_number(w) and math.isfinite(w) and w >= 0 for w in values)
        or not sum(values) > 0
    ):
        raise LensFileError(
            f"{where}: key 'weights' must be a list of {count} non-negative numbers (one per "
            f"entry of 'values'), not all 0, not {describe(values)}"
        )
    return list(values)


def finite(value, key, where):
    if not math.isfinite(value):
        raise LensFileError(f"{where}: key '{key}' must be finite, not {value!r}")
    return value


def choice(table, key, choices, where):
    value = table.get(key, REQUIRED)
    if value is REQUIRED:
        raise LensFileError(
            f"{where}: missing key '{key}' (one of {', '.join(map(repr, choices))})"
        )
    if value not in choices:
        hint = suggest(value, choices) if isinstance(value, str) else ""
        raise LensFileError(
            f"{where}: key '{key}' must be one of {', '.join(map(repr, choices))}, "
            f"not {value!r}{hint}"
        )
    return value


def check_keys(table, allowed, where, what="key"):
    """Raise LensFileError for the first key of ``table`` not in ``allowed`` (with a suggestion)."""
    for key in table:
        if key not in allowed:
            hint = suggest(key, allowed) or f"; allowed: {', '.join(allowed)}"
            raise LensFileError(f"{where}: unknown {what} {key!r}{hint}")


def suggest(word, choices) -> str:
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def has_nan(value) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, (list, tuple)):
        return any(has_nan(v) for v in value)
    if isinstance(value, Mapping):
        return any(has_nan(v) for v in value.values())
    return False


def describe(value) -> str:
    """A value and its type for messages: ``'abc' (a string)``."""
    names = {
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        list: "a list",
    }
    kind = "a table" if isinstance(value, Mapping) else names.get(type(value), type(value).__name__)
    text = repr(value)
    return f"{text if len(text) <= 60 else text[:57] + '...'} ({kind})"


def field_pairs(values, where):
    """(y_only, [(x, y), ...]) of a non-empty [fields] ``values`` list (y values or pairs)."""
    y_only = is_number(values[0])
    pairs = []
    for i, entry in enumerate(values):
        key = f"values[{i}]"
        if y_only and is_number(entry):
            pairs.append((0.0, finite(entry, key, where)))
        elif (
            not y_only
            and isinstance(entry, (list, tuple))
            and len(entry) == 2
            and all(map(is_number, entry))
        ):
            pairs.append(tuple(finite(v, key, where) for v in entry))
        else:
            if i == 0:
                form = "a y value or an [x, y] pair of numbers"
            elif y_only:
                form = "a y value like values[0]"
            else:
                form = "an [x, y] pair of numbers like values[0]"
            raise LensFileError(
                f"{where}: key '{key}' must be {form} (use all y values or all [x, y] pairs), "
                f"not {describe(entry)}"
            )
    return y_only, pairs
