"""Zemax PRAM multi-configuration rows: a surface parameter (PARM n) per configuration.

No file of the shared corpus has PRAM rows (each has ``MNUM 1 1``), so the rows are
added to our own files in tests/data/zemax.  Each configuration is checked against the
same file with the configuration's value written into the SURF block's PARM line: the
two must trace the same rays bit for bit.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import numpy as np
import pytest

import optics
from optics.errors import LensFileError
from optics.io.zemax import ZemaxWarning

DATA = Path(__file__).parent / "data" / "zemax"
ASPHERE = DATA / "ours-asphere_singlet.zmx"  # SURF 1 EVENASPH, PARM 1..3
DECENTERED = DATA / "ours-decentered_singlet.zmx"  # SURF 2 and 5 COORDBRK


def _text(path):
    """The file's text with CRLF line ends (our files are ASCII or UTF-16 with a BOM)."""
    raw = path.read_bytes()
    text = raw.decode("utf-16") if raw[:2] == codecs.BOM_UTF16_LE else raw.decode("ascii")
    return "\r\n".join(text.splitlines()) + "\r\n"


def _write(tmp_path, text, name):
    path = tmp_path / name
    path.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    return path


def _pram(surface, parameter, values):
    """PRAM rows as OpticStudio writes them: the parameter number before the quoted text."""
    return "".join(
        f'PRAM {surface} {n} {v!r} 0 0 0 1 1 1 0 {parameter} "" 0\r\n'
        for n, v in enumerate(values, start=1)
    )


def _with_parm(text, surface, parameter, value):
    """``text`` with PARM ``parameter`` of SURF ``surface`` set to ``value`` (added if absent)."""
    start = text.index(f"SURF {surface}\r\n")
    end = text.find("SURF ", start + 5)
    block = text[start:end]
    line = f"  PARM {parameter} {value!r}\r\n"
    edited, count = re.subn(rf"  PARM {parameter} [^\r\n]*\r\n", line, block)
    if count == 0:
        edited = block.replace("  DISZ", line + "  DISZ", 1)
    return text[:start] + edited + text[end:]


def _trace(optic):
    hy = np.array([0.0, 0.5, 1.0, 1.0])
    py = np.array([0.0, 1.0, -1.0, 0.5])
    return optics.trace_rays(optic, (0.0 * hy, hy), (0.3 * py, py))


def _same_rays(a, b):
    for key in "xyzLMN":
        np.testing.assert_array_equal(np.asarray(getattr(a, key)), np.asarray(getattr(b, key)))


def test_asphere_coefficients_vary_per_configuration(tmp_path):
    rows = _pram(1, 2, [-2.0e-6, -3.0e-6]) + _pram(1, 4, [0.0, 4.0e-12])
    text = _text(ASPHERE) + "MNUM 2 1\r\n" + rows
    optic = optics.load(_write(tmp_path, text, "pram.zmx"))
    assert optic.configuration_count == 2
    first, second = optic.configuration(1), optic.configuration(2)
    # PARM 4 (r^8) is beyond the base's PARM 1..3: the base list is padded with a zero.
    assert list(first.surfaces[1].geometry.coefficients) == [0.0, -2.0e-6, -1.5e-9, 0.0]
    assert list(second.surfaces[1].geometry.coefficients) == [0.0, -3.0e-6, -1.5e-9, 4.0e-12]
    # The sag differs by exactly the changed terms: -1e-6 r^4 + 4e-12 r^8.
    r = np.linspace(0.0, 7.0, 8)
    difference = np.asarray(second.surfaces[1].geometry.sag(r, 0.0 * r)) - np.asarray(
        first.surfaces[1].geometry.sag(r, 0.0 * r)
    )
    np.testing.assert_allclose(difference, -1.0e-6 * r**4 + 4.0e-12 * r**8, rtol=0, atol=1e-15)
    edited = _with_parm(_with_parm(_text(ASPHERE), 1, 2, -3.0e-6), 1, 4, 4.0e-12)
    alone = optics.load(_write(tmp_path, edited, "edited.zmx"))
    _same_rays(_trace(second), _trace(alone))


def test_coordinate_break_decenter_and_tilt_vary_per_configuration(tmp_path):
    rows = _pram(2, 2, [0.5, 1.25]) + _pram(2, 3, [1.5, -2.0]) + _pram(5, 3, [-1.5, 2.0])
    optic = optics.load(_write(tmp_path, _text(DECENTERED) + "MNUM 2 1\r\n" + rows, "cb.zmx"))
    second = optic.configuration(2)
    assert tuple(second.surfaces[2].decenter) == (0.2, 1.25)
    assert tuple(second.surfaces[2].tilt) == (-2.0, 0.0, 0.0)
    assert tuple(second.surfaces[5].tilt) == (2.0, 0.0, 0.0)
    edited = _with_parm(_with_parm(_text(DECENTERED), 2, 2, 1.25), 2, 3, -2.0)
    alone = optics.load(_write(tmp_path, _with_parm(edited, 5, 3, 2.0), "edited.zmx"))
    _same_rays(_trace(second), _trace(alone))
    _same_rays(_trace(optic.configuration(1)), _trace(optics.load(DECENTERED)))


def test_pram_lengths_in_inches_are_read_in_mm(tmp_path):
    text = _text(ASPHERE).replace("UNIT MM", "UNIT IN") + "MNUM 2 1\r\n"
    text += _pram(1, 2, [-2.0e-6, -3.0e-6])
    optic = optics.load(_write(tmp_path, text, "inches.zmx"))
    row = optic.configurations.row("surfaces[1].coefficients[1]")
    # A coefficient of r^4 (a length) scales by 25.4^(1 - 4).
    assert row.values == pytest.approx([-2.0e-6 * 25.4**-3, -3.0e-6 * 25.4**-3], rel=1e-15)
    cb = _text(DECENTERED).replace("UNIT MM", "UNIT IN") + "MNUM 2 1\r\n" + _pram(2, 1, [0.2, 0.4])
    second = optics.load(_write(tmp_path, cb, "cb.zmx")).configuration(2)
    assert second.surfaces[2].decenter[0] == pytest.approx(0.4 * 25.4, rel=1e-15)
    assert second.surfaces[5].decenter[0] == pytest.approx(-0.2 * 25.4, rel=1e-15)


@pytest.mark.parametrize(
    ("path", "rows", "parameters"),
    [
        (ASPHERE, _pram(1, 2, [-2.0e-6, -3.0e-6]) + _pram(1, 4, [0.0, 4.0e-12]), ["2", "4"]),
        (DECENTERED, _pram(2, 2, [0.5, 1.25]) + _pram(5, 3, [-1.5, 2.0]), ["2", "3"]),
    ],
    ids=["asphere", "coordinate-break"],
)
def test_pram_rows_are_written_back(tmp_path, path, rows, parameters):
    optic = optics.load(_write(tmp_path, _text(path) + "MNUM 2 1\r\n" + rows, "pram.zmx"))
    written = optics.save(optic, tmp_path / "written.zmx")
    lines = [line.split() for line in _text(written).splitlines() if line.startswith("PRAM")]
    assert [line[2] for line in lines] == ["1", "2", "1", "2"]  # configuration numbers
    assert [line[11] for line in lines[::2]] == parameters  # PARM n before the quoted text
    again = optics.load(written)
    assert [(r.key, r.values) for r in again.configurations.rows] == [
        (r.key, r.values) for r in optic.configurations.rows
    ]


@pytest.mark.parametrize(
    ("path", "row", "message"),
    [
        (ASPHERE, _pram(2, 1, [0.1, 0.2]), "PRAM 2 1: surface 2 (STANDARD) has no parameter 1"),
        (ASPHERE, _pram(1, 9, [0.1, 0.2]), "PRAM 1 9: surface 1 (EVENASPH) has no parameter 9"),
        (DECENTERED, _pram(2, 6, [0.0, 1.0]), "PRAM 2 6: the order flag of a coordinate break"),
        (ASPHERE, _pram(7, 1, [0.1, 0.2]), "PRAM 7: surface 7 does not exist"),
    ],
)
def test_pram_rows_that_name_no_parameter_are_refused_with_their_line(tmp_path, path, row, message):
    text = _text(path) + "MNUM 2 1\r\n"
    line = text.count("\n") + 1
    with pytest.raises(LensFileError) as info:
        optics.load(_write(tmp_path, text + row, "bad.zmx"))
    assert f"bad.zmx: line {line}: " in str(info.value)
    assert message in str(info.value)


def test_pram_on_a_freeform_is_skipped_with_a_warning(tmp_path):
    text = re.sub(r"  PARM \d [^\r]*\r\n", "", _text(ASPHERE))
    text = text.replace("TYPE EVENASPH", "TYPE XPOLYNOM") + "MNUM 2 1\r\n"
    path = _write(tmp_path, text + _pram(1, 1, [0.0, 1.0]), "xy.zmx")
    with pytest.warns(ZemaxWarning, match=r"line \d+: PRAM 1 1: .*xy_polynomial surface"):
        optic = optics.load(path)
    assert optic.configurations is None
