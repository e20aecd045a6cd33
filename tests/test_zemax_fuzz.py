"""Fuzz the .zmx reader with mutations of small files written here (hypothesis, derandomized).

Each example takes one of two corpus-like files (a singlet with an even
asphere, a coordinate break and an XPOLYNOM surface; a Cooke-like triplet in
inches with FNUM, FLOA-free) and applies up to three mutations: cut the file
at any character, replace a number with NaN, infinity, a huge, tiny,
negative or non-numeric token, delete a line, or repeat one.  The reader
must give either an Optic or a LensFileError (one line, naming the file),
never another exception.
"""

from __future__ import annotations

import re
import warnings

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from optics.errors import LensFileError  # noqa: E402
from optics.io.zemax import loads  # noqa: E402

FUZZ = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,  # the same examples on every run: CI stays deterministic
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)

SINGLET = """VERS 190513 80 123457 L123457
MODE SEQ
NAME fuzz singlet
UNIT MM X W X CM MR CPMM
ENPD 10
FTYP 0 0 2 2 0 0 0
XFLN 0 0
YFLN 0 5
FWGN 1 1
WAVM 1 0.5875618 1
WAVM 2 0.6562725 1
PWAV 1
RAIM 0 0 1 1 0 0 0 0 0
SURF 0
  TYPE STANDARD
  CURV 0.0 0 0 0 0 ""
  DISZ INFINITY
SURF 1
  STOP
  TYPE STANDARD
  CURV 0.02 0 0 0 0 ""
  DISZ 4
  GLAS ___BLANK 1 0 1.5 40 0 0 0 0 0 0
  DIAM 12.5 1 0 0 1 ""
  CLAP 0 12.5 0
SURF 2
  TYPE EVENASPH
  CURV -0.005 0 0 0 0 ""
  CONI -1.5
  PARM 1 0
  PARM 2 1e-5
  PARM 3 -2e-8
  DISZ 10
SURF 3
  TYPE COORDBRK
  PARM 1 0.1
  PARM 3 1
  PARM 6 0
  DISZ 0
SURF 4
  TYPE XPOLYNOM
  CURV 0 0 0 0 0 ""
  XDAT 1 3
  XDAT 2 10
  XDAT 3 0
  XDAT 4 1e-4
  XDAT 5 2e-4
  DISZ 80
SURF 5
  TYPE STANDARD
  CURV 0.0 0 0 0 0 ""
  DISZ 0
"""

TRIPLET = """MODE SEQ
UNIT IN
FNUM 5
FTYP 1 0 3 3 0 0 0
YFLN 0 0.3 0.5
WAVM 1 0.48 1
WAVM 2 0.55 2
WAVM 3 0.65 1
PWAV 2
SURF 0
  DISZ 40
SURF 1
  CURV 0.6
  DISZ 0.17
  GLAS ___BLANK 1 0 1.62 60 0 0 0 0 0 0
SURF 2
  CURV -0.03
  DISZ 0.28
SURF 3
  STOP
  CURV -0.55
  DISZ 0.05
  GLAS ___BLANK 1 0 1.62 36 0 0 0 0 0 0
  OBSC 0 0.1
SURF 4
  CURV 0.6
  DISZ 0.25
SURF 5
  TYPE TOROIDAL
  CURV 0.1
  PARM 1 0
  DISZ 0.13
  GLAS ___BLANK 1 0 1.62 60 0 0 0 0 0 0
SURF 6
  CURV -0.45
  DISZ 1.7
SURF 7
  DISZ 0
"""

FILES = (SINGLET, TRIPLET)
TOKENS = [
    "nan",
    "NaN",
    "inf",
    "-INFINITY",
    "1e308",
    "-1e308",
    "1e-320",
    "0",
    "-0",
    "-1",
    "1e9",
    "1e100",
    "2.5",
    "abc",
    "0x10",
    "1_0",
]
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w.])")

mutation = st.one_of(
    st.tuples(st.just("cut"), st.floats(0.0, 1.0)),
    st.tuples(st.just("number"), st.floats(0.0, 1.0), st.sampled_from(TOKENS)),
    st.tuples(st.just("delete"), st.floats(0.0, 1.0)),
    st.tuples(st.just("repeat"), st.floats(0.0, 1.0)),
)


def _mutate(text, change):
    kind, where = change[0], change[1]
    if kind == "cut":
        return text[: int(where * len(text))]
    lines = text.splitlines(keepends=True)
    if not lines:
        return text
    i = min(int(where * len(lines)), len(lines) - 1)
    if kind == "delete":
        return "".join(lines[:i] + lines[i + 1 :])
    if kind == "repeat":
        return "".join(lines[: i + 1] + lines[i:])
    numbers = list(_NUMBER.finditer(text))
    if not numbers:
        return text
    match = numbers[min(int(where * len(numbers)), len(numbers) - 1)]
    return text[: match.start()] + change[2] + text[match.end() :]


@FUZZ
@given(
    which=st.sampled_from(range(len(FILES))),
    changes=st.lists(mutation, min_size=1, max_size=3),
    encoding=st.sampled_from(["utf-8", "utf-16"]),
)
def test_a_mutated_zmx_file_loads_or_is_refused_with_a_lens_file_error(which, changes, encoding):
    text = FILES[which]
    for change in changes:
        text = _mutate(text, change)
    raw = text.encode(encoding)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            optic = loads(raw, "fuzz.zmx")
    except LensFileError as exc:
        message = str(exc)
        assert message.startswith("fuzz.zmx"), message
        assert "\n" not in message
        return
    assert len(optic.surfaces) >= 2


@pytest.mark.parametrize("text", FILES, ids=["singlet", "triplet"])
def test_the_unmutated_files_load(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert len(loads(text.encode(), "fuzz.zmx").surfaces) == text.count("SURF ")
