"""Errors from a .zmx speak Zemax: the file, its line, the keyword or operand, its numbers.

Surfaces are numbered as in the file (SURF n); fields, wavelengths and configurations
from 1, as OpticStudio counts them — never the 0-based indices or the TOML keys of the
lens-file data the reader builds.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import pytest

import optics
from optics.errors import LensFileError

ZMX = Path(__file__).parent / "data" / "zoom_two_group.zmx"  # 2 fields, 1 wavelength, MNUM 3


def _rows(operand, number, values):
    return "".join(
        f'{operand} {number} {n} {v} 0 0 0 1 1 1 0 0 "" 0\r\n' for n, v in enumerate(values, 1)
    )


def _appended(rows):
    return lambda text: text + rows


def _replaced(old, new):
    return lambda text: text.replace(old, new, 1)


# (edit of the file, the line it puts the error on (None: the last line), the message)
CASES = {
    "field-angle": (
        _replaced("YFLN 0.0 10.0", "YFLN 0.0 95.0"),
        10,
        "YFLN: field 2 at 95 degrees: field angles must be under 90 degrees",
    ),
    "field-weight": (
        _replaced("FWGN 1.0 1.0", "FWGN 1.0 -1.0"),
        11,
        "FWGN: the weight -1 of field 2 must be a non-negative number",
    ),
    "wavelength-weight": (
        _replaced("WAVM 1 0.5875618 1.0", "WAVM 1 0.5875618 -2"),
        12,
        "WAVM 1: the weight -2 of wavelength 1 must be a non-negative",
    ),
    "mce-field": (
        _appended(_rows("YFIE", 3, [1.0, 2.0, 3.0])),
        55,
        "YFIE 3: field 3 does not exist: the file has 2 fields (1 to 2)",
    ),
    "mce-surface": (
        _appended(_rows("THIC", 9, [1.0, 2.0, 3.0])),
        55,
        "THIC 9: surface 9 does not exist: the file has surfaces 0 to 6",
    ),
    "mce-wavelength": (
        _appended(_rows("WAVE", 2, [0.5, 0.6, 0.7])),
        55,
        "WAVE 2: wavelength 2 does not exist: the file has 1 wavelength (1 to 1)",
    ),
    "mce-wavelength-value": (
        _appended(_rows("WAVE", 1, [0.5, -1.0, 0.7])),
        56,
        "WAVE 1, configuration 2: a wavelength (µm) must be positive",
    ),
    "mce-stop": (
        _appended(_rows("STPS", 0, [3, 9, 3])),
        56,
        "STPS, configuration 2: the stop must be one of surfaces 1 to 5, not 9",
    ),
    "mce-aperture": (
        _appended(_rows("APER", 0, [5.0, 4.0, 0.0])),
        57,
        "APER, configuration 3: the system aperture must be positive, not 0.0",
    ),
    "mce-glass": (
        _appended(_rows("GLSS", 4, ["N-BK7", "N-BK7", "NO-SUCH"])),
        57,
        "GLSS 4, configuration 3: unknown glass 'NO-SUCH'",
    ),
    "mce-missing": (
        _appended(_rows("CONN", 1, [-1.0])),
        55,
        "CONN 1: no value for configuration(s) 2, 3 (MNUM 3)",
    ),
    "mce-configuration": (
        _appended('THIC 2 4 1.0 0 0 0 1 1 1 0 0 "" 0\r\n'),
        55,
        "THIC 2: configuration 4 does not exist: MNUM 3 gives configurations 1 to 3",
    ),
    "mce-field-angle": (
        _appended(_rows("YFIE", 2, [20.0, 91.0, 8.0])),
        56,
        "YFIE 2, configuration 2: field angle 91.0: it must be under 90",
    ),
    "object-height-at-infinity": (
        _replaced("FTYP 0 0 2 1 0 0 0", "FTYP 1 0 2 1 0 0 0"),
        8,
        "FTYP: object-height fields (1) need an object at a finite distance, but SURF 0 has "
        "DISZ INFINITY",
    ),
    "annular-aperture": (
        _replaced(
            'CURV -0.01 0 0 0 0 ""\r\n  DISZ 2.0',
            'CURV -0.01 0 0 0 0 ""\r\n  DISZ 2.0\r\n  CLAP 5 3 0',
        ),
        22,
        "CLAP 5 3: the inner radius must be at least 0 and smaller than the outer one",
    ),
    "rectangular-aperture": (
        _replaced(
            'CURV -0.01 0 0 0 0 ""\r\n  DISZ 2.0',
            'CURV -0.01 0 0 0 0 ""\r\n  DISZ 2.0\r\n  SQAP -1 2 0',
        ),
        22,
        "SQAP -1 2: the half-widths in x and y must be positive",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_malformed_file_is_refused_in_zemax_terms(tmp_path, case):
    edit, line, message = CASES[case]
    path = tmp_path / f"{case}.zmx"
    text = edit(ZMX.read_bytes().decode("utf-16"))  # CRLF line ends
    path.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    with pytest.raises(LensFileError) as info:
        optics.load(path)
    said = str(info.value)
    assert said.startswith(f"{path}: line {line}: {message}") or said.startswith(
        f"{path}: surface 1: line {line}: {message}"
    ), said
    # No lens-file (TOML) vocabulary and no 0-based index.
    assert not re.search(r"\[configurations\]|key '|values\[|index \d", said), said
