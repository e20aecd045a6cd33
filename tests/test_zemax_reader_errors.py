"""The .zmx reader refuses bad numbers, counts and truncated files with a LensFileError.

Every file here is a small one written by the test itself: a singlet with an
even asphere, a coordinate break and an XPOLYNOM surface, then one line changed.
"""

from __future__ import annotations

import re
import time
import warnings

import pytest

import optics
from optics.errors import LensFileError
from optics.io.zemax import ZemaxWarning, loads

BASE = """VERS 190513 80 123457 L123457
MODE SEQ
NAME test lens
UNIT MM X W X CM MR CPMM
ENPD 10
FTYP 0 0 2 2 0 0 0
XFLN 0 0
YFLN 0 5
WAVM 1 0.5875618 1
WAVM 2 0.6562725 1
PWAV 1
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
SURF 2
  TYPE EVENASPH
  CURV -0.005 0 0 0 0 ""
  PARM 1 0
  PARM 2 1e-5
  DISZ 10
SURF 3
  TYPE COORDBRK
  PARM 1 0
  PARM 6 0
  DISZ 0
SURF 4
  TYPE XPOLYNOM
  CURV 0 0 0 0 0 ""
  XDAT 1 2
  XDAT 2 10
  XDAT 3 0
  XDAT 4 1e-4
  DISZ 80
SURF 5
  TYPE STANDARD
  CURV 0.0 0 0 0 0 ""
  DISZ 0
"""


def _read(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZemaxWarning)
        return loads(text.encode("utf-8"), "lens.zmx")


def _refused(text, pattern):
    with pytest.raises(LensFileError, match=pattern) as info:
        _read(text)
    message = str(info.value)
    assert message.startswith("lens.zmx: ")
    assert "\n" not in message
    return message


def _replace(old, new):
    assert old in BASE
    return BASE.replace(old, new, 1)


def test_the_base_file_loads():
    optic = _read(BASE)
    assert len(optic.surfaces) == 6


@pytest.mark.parametrize(
    "old, new, directive",
    [
        ("CURV 0.02 0", "CURV nan 0", "CURV"),
        ("DISZ 4", "DISZ nan", "DISZ"),
        ("ENPD 10", "ENPD nan", "ENPD"),
        ("WAVM 1 0.5875618", "WAVM 1 nan", "WAVM"),
        ("PARM 2 1e-5", "PARM 2 inf", "PARM"),
        ("XDAT 4 1e-4", "XDAT 4 INFINITY", "XDAT"),
        ("YFLN 0 5", "YFLN 0 -inf", "YFLN"),
    ],
)
def test_a_nan_or_infinite_number_is_refused_naming_line_and_directive(old, new, directive):
    line = BASE.splitlines().index(next(x for x in BASE.splitlines() if old in x)) + 1
    _refused(_replace(old, new), rf"line {line}: {directive} argument \d+ must be a finite number")


@pytest.mark.parametrize(
    "old, new, directive",
    [
        ("SURF 2", "SURF nan", "SURF"),
        ("FTYP 0 0 2", "FTYP nan 0 2", "FTYP"),
        ("FTYP 0 0 2 2", "FTYP 0 0 2 nan", "FTYP"),
        ("PWAV 1", "PWAV nan", "PWAV"),
        ("PWAV 1", "PWAV 1.5", "PWAV"),
        ("WAVM 2 0.65", "WAVM nan 0.65", "WAVM"),
        ("PARM 2 1e-5", "PARM nan 1e-5", "PARM"),
        ("XDAT 1 2", "XDAT 1 nan", "XDAT"),
        ("XDAT 1 2", "XDAT 1 2.5", "XDAT"),
    ],
)
def test_a_non_integer_where_zemax_means_an_integer_is_refused(old, new, directive):
    _refused(_replace(old, new), rf"line \d+: {directive}")


def test_a_negative_field_count_is_refused():
    _refused(_replace("FTYP 0 0 2", "FTYP 0 0 -3"), r"line 6: FTYP argument 3 must be an integer")


def test_a_billion_fields_are_refused_before_allocation():
    start = time.perf_counter()
    _refused(_replace("FTYP 0 0 2", "FTYP 0 0 1000000000"), r"from 1 to 1000, not 1000000000")
    assert time.perf_counter() - start < 5


def test_a_hundred_million_polynomial_terms_are_refused_before_allocation():
    start = time.perf_counter()
    _refused(_replace("XDAT 1 2", "XDAT 1 100000000"), r"XDAT 1 1e\+08: the number of terms")
    assert time.perf_counter() - start < 5


@pytest.mark.parametrize("value", ["0", "-2", "nan", "inf"])
def test_fnum_must_be_finite_and_positive(value):
    _refused(_replace("ENPD 10", f"FNUM {value}"), r"line 5: FNUM")


def test_a_stop_on_the_object_surface_is_refused():
    text = _replace("SURF 0\n", "SURF 0\n  STOP\n").replace(
        "  STOP\n  TYPE STANDARD\n  CURV 0.02", "  TYPE STANDARD\n  CURV 0.02"
    )
    _refused(text, r"surface 0: line 13: STOP on the object surface")


def test_a_stop_on_the_image_surface_is_refused():
    text = _replace("SURF 5\n", "SURF 5\n  STOP\n")
    _refused(text, r"surface 5: line \d+: STOP on the image surface")


@pytest.mark.parametrize("value", ["0.5", "2", "-1"])
def test_a_coordinate_break_order_flag_is_zero_or_one(value):
    _refused(_replace("PARM 6 0", f"PARM 6 {value}"), r"surface 3: line \d+: PARM 6 .*order flag")


def test_a_nonzero_parm_beyond_the_surface_type_count_is_refused():
    text = _replace("  PARM 2 1e-5\n", "  PARM 2 1e-5\n  PARM 9 1e-30\n")
    _refused(text, r"surface 2: line \d+: PARM argument 1 must be an integer from 0 to 8, not 9")


def test_five_hundred_parm_lines_on_an_even_asphere_are_refused():
    lines = "".join(f"  PARM {n} 0\n" for n in range(3, 501))
    text = _replace("  PARM 2 1e-5\n", "  PARM 2 1e-5\n" + lines)
    _refused(text, r"surface 2: line \d+: PARM argument 1 must be an integer from 0 to 24, not 25")


def test_zero_parm_columns_beyond_the_type_count_are_read_as_nothing():
    lines = "".join(f"  PARM {n} 0\n" for n in range(9, 13))
    optic = _read(_replace("  PARM 2 1e-5\n", "  PARM 2 1e-5\n" + lines))
    assert len(optic.surfaces) == 6


def test_a_parm_given_twice_is_refused():
    _refused(
        _replace("  PARM 2 1e-5\n", "  PARM 2 1e-5\n  PARM 2 2e-5\n"), r"PARM 2 is given twice"
    )


def test_a_file_cut_after_a_surf_line_is_refused_with_its_line():
    text = BASE[: BASE.index("SURF 3") + len("SURF 3\n")]
    line = text.count("\n")
    _refused(text, rf"line {line}: SURF 3 has no DISZ line.*truncated")


def test_a_file_cut_inside_a_surface_block_is_refused():
    text = BASE[: BASE.index("  PARM 2 1e-5") + len("  PARM 2 1e-")]
    _refused(text, r"SURF 2 has no DISZ line.*truncated")


def test_a_zero_normalization_radius_is_refused():
    _refused(_replace("XDAT 2 10", "XDAT 2 0"), r"surface 4: XDAT 2 0: the normalization radius")


def test_a_nonpositive_wavelength_is_refused():
    _refused(_replace("WAVM 2 0.6562725", "WAVM 2 -0.65"), r"line 10: WAVM 2: wavelength -0.65")


def test_the_file_name_is_in_the_message_of_optics_load(tmp_path):
    path = tmp_path / "cut.zmx"
    path.write_text(BASE.replace("ENPD 10", "ENPD nan"))
    with pytest.raises(LensFileError, match=re.escape(f"{path}: line 5: ENPD")):
        optics.load(path)


def test_a_file_cut_between_two_surface_blocks_is_refused():
    text = BASE[: BASE.index("SURF 5")]
    _refused(text, r"line \d+: the last surface, SURF 4, has DISZ 80: .* truncated")
