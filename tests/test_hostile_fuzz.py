"""Fuzz the glass-catalog (AGF) and CODE V (.seq) readers with mutated files (hypothesis).

Whatever the text, :func:`optics.io.agf.parse_agf` gives a catalog or raises an
``OpticsError`` (AgfError), and :func:`optics.io.codev.loads` gives an Optic or
raises an ``OpticsError`` (LensFileError): never another exception, which the
command would report as a bug (exit 1).  A parsed AGF glass gives a finite index
at a wavelength inside its range, or an ``OpticsError``.  Examples are
derandomized, so CI runs the same ones every time.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from optics._glass_catalog import evaluate  # noqa: E402
from optics.errors import OpticsError  # noqa: E402
from optics.io import agf, codev  # noqa: E402

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
)

CODEV = Path(__file__).parent / "data" / "codev"
SEQ_SEEDS = ["singlet.seq", "asp46.seq", "dec_tilt_test.seq", "ag_dblgauss.seq"]

AGF_SEED = [
    "CC fuzz seed catalog",
    "NM FUZZ-S 2 517642 1.5168 64.17 0 1 0",
    "GC Sellmeier 1",
    "ED 7.1 8.3 2.51 -0.0009 0",
    "CD 1.03961212 0.00600069867 0.231792344 0.0200179144 1.01046945 103.560653",
    "TD 1.86E-06 1.31E-08 -1.37E-11 4.34E-07 6.27E-10 1.7E-01 2.0E+01",
    "OD 1.0 1.0 0.0 1.0 2.3 2.3",
    "LD 0.3 2.5",
    "IT 0.3 0.05 25",
    "NM FUZZ-C 1 620364 1.62 36.37 0 1 0",
    "CD 2.5 -0.01 0.02 0.0003 -1e-5 1e-6",
    "LD 0.36 2.3",
]

WORDS = st.one_of(
    st.sampled_from(
        ["0", "-1", "1e308", "-1e308", "1e-320", "nan", "inf", "-inf", "9" * 40, "x", "",
         "NM", "CD", "TD", "LD", "ED", "2", "13", "14", "0.5", "'", "!", ";"]
    ),
    st.text(alphabet="0123456789.-+eE", min_size=1, max_size=8),
    st.text(max_size=6),
)  # fmt: skip


@st.composite
def mutated_lines(draw, lines):
    """``lines`` with 1-4 edits: a line dropped, doubled, cut short, or one word replaced."""
    lines = list(lines)
    for _ in range(draw(st.integers(1, 4))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["drop", "double", "truncate", "word", "word", "insert"]))
        words = lines[i].split()
        if action == "drop":
            del lines[i]
        elif action == "double":
            lines.insert(i, lines[i])
        elif action == "truncate":
            lines[i] = " ".join(words[: draw(st.integers(0, max(0, len(words) - 1)))])
        elif action == "insert":
            lines.insert(i, " ".join(draw(st.lists(WORDS, max_size=5))))
        elif words:
            words[draw(st.integers(0, len(words) - 1))] = draw(WORDS)
            lines[i] = " ".join(words)
    return lines


def _index_or_refusal(glass):
    """The glass's index at the middle of its range (else 0.55 µm): finite, or an OpticsError."""
    low, high = glass.wavelength_range or (0.55, 0.55)
    wavelength = 0.5 * (low + high) if 0 < low <= high < math.inf else 0.55
    try:
        value = float(evaluate(glass.dispersion(f"fuzz {glass.name}"), wavelength))
    except OpticsError:
        return
    assert math.isfinite(value), (glass, wavelength, value)


@FUZZ
@given(mutated_lines(AGF_SEED))
def test_a_mutated_agf_catalog_parses_or_is_refused(lines):
    text = "\r\n".join(lines) + "\r\n"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            catalog = agf.parse_agf(text, "fuzz.agf", "fuzz")
        except OpticsError:
            return
        for glass in catalog.glasses.values():
            _index_or_refusal(glass)


@FUZZ
@given(st.sampled_from(SEQ_SEEDS).flatmap(
    lambda name: mutated_lines((CODEV / name).read_text(encoding="utf-8").splitlines())
))  # fmt: skip
def test_a_mutated_seq_file_loads_or_is_refused(lines):
    if not CODEV.is_dir():
        pytest.skip("tests/data/codev is absent")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            codev.loads("\n".join(lines) + "\n", "fuzz.seq")
        except OpticsError:
            return


def test_an_agf_glass_whose_n_squared_is_negative_in_its_range_is_refused():
    text = "\r\n".join(
        ["NM NEG 1 620364 1.62 36.37 0 1 0", "CD 0 -0.01 0.02 0.0003 -1e-5 1e-6", "LD 0.36 2.3"]
    )
    try:
        glass = agf.parse_agf(text + "\r\n", "neg.agf", "neg").glasses["NEG"]
        value = float(evaluate(glass.dispersion("neg NEG"), 1.33))
    except OpticsError:
        return
    assert math.isfinite(value), value
