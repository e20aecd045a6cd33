"""Fuzz the [tolerance] section (hypothesis, derandomized): a model or a LensFileError only.

Each example takes the section of tests/test_tolerance_sensitivity.py (every
item kind) and changes up to three keys, at the top or in one item, to NaN,
an infinity, a huge, negative, zero or fractional number, a string, a list,
a table or a boolean; deletes one; or adds an unknown one.  Reading the
section and binding it to the Cooke triplet must give a ToleranceModel or a
LensFileError naming the key, never another exception.
"""

from __future__ import annotations

import copy
import math

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from test_tolerance_sensitivity import ITEMS, cooke, section  # noqa: E402

from optics.errors import LensFileError  # noqa: E402
from optics.tolerance import ToleranceModel  # noqa: E402

FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,  # the same examples on every run: CI stays deterministic
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)

VALUES = [
    math.nan,
    math.inf,
    -math.inf,
    1e308,
    -1.0,
    0.0,
    0.5,
    2.5,
    10**12,
    -(10**12),
    "x",
    "surfaces[99].radius",
    [],
    [1, 2],
    {},
    {"type": "bogus"},
    True,
    None,
]
BASE = section(ITEMS, trials=3, seed=1, threshold=0.02)

change = st.tuples(
    st.sampled_from(["top", "item"]),
    st.integers(0, 50),
    st.sampled_from(["set", "delete", "add"]),
    st.sampled_from(range(len(VALUES))),
)


def _apply(data, where, index, action, value):
    table = data if where == "top" else data["items"][index % len(data["items"])]
    keys = sorted(table)
    key = keys[index % len(keys)] if keys else "plus_minus"
    if action == "delete":
        table.pop(key, None)
    elif action == "add":
        table["unknown_key"] = VALUES[value]
    elif VALUES[value] is None:
        table.pop(key, None)
    else:
        table[key] = copy.deepcopy(VALUES[value])


@FUZZ
@given(changes=st.lists(change, min_size=1, max_size=3))
def test_a_mutated_tolerance_section_builds_a_model_or_is_refused(changes):
    data = copy.deepcopy(BASE)
    for where, index, action, value in changes:
        if where == "item" and not isinstance(data.get("items"), list):
            where = "top"
        if where == "item" and (not data["items"] or not isinstance(data["items"][0], dict)):
            where = "top"
        _apply(data, where, index, action, value)
    try:
        model = ToleranceModel(
            cooke(data), where="lens.toml: [tolerance]", compensate_nominal=False
        )
    except LensFileError as exc:
        assert "\n" not in str(exc)
        return
    assert len(model) >= 1
    assert all(math.isfinite(w) and w > 0 for w in model.half_widths)
