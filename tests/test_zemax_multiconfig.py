"""Zemax multi-configuration data: MNUM and the operand rows read, written and round-tripped."""

from __future__ import annotations

import codecs
import warnings
from pathlib import Path

import pytest

import optics
from optics.errors import LensFileError
from optics.io import zemax
from optics.io.zemax import ZemaxWarning

DATA = Path(__file__).parent / "data"
ZMX = DATA / "zoom_two_group.zmx"  # tests/data/zoom_two_group.toml written by optics.save
# Optiland 0.6.3, each zoom position as its own lens (see tests/test_configurations.py).
OPTILAND_EFL = [48.56122988063512, 29.70180081692251, 21.393382976722325]


def _text():
    return ZMX.read_bytes().decode("utf-16")


def _write(tmp_path, text, name="edited.zmx"):
    path = tmp_path / name
    path.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    return path


def test_zmx_with_configurations_reads_the_three_zoom_positions():
    optic = optics.load(ZMX)
    assert optic.configuration_count == 3
    efls = [float(optics.prepare(optic.configuration(n)).first_order.efl) for n in (1, 2, 3)]
    assert efls == pytest.approx(OPTILAND_EFL, rel=1e-9)
    assert optic.configuration(3).fields.values[1] == (0.0, 20.0)  # wide: the widest field


def test_zmx_round_trip_is_unchanged(tmp_path):
    again = optics.save(optics.load(ZMX), tmp_path / "again.zmx")
    assert again.read_bytes() == ZMX.read_bytes()
    from_toml = optics.save(optics.load(DATA / "zoom_two_group.toml"), tmp_path / "t.zmx")
    assert from_toml.read_bytes() == ZMX.read_bytes()


def test_every_supported_operand_is_read(tmp_path):
    rows = [
        'MOFF   0   1 "" 0 0 0 1 1 0 0.0 ""',
        'CRVT 1 1 -0.01 0 0 0 1 1 1 0 0 "" 0',
        'CRVT 1 2 -0.012 0 0 0 1 1 1 0 0 "" 0',
        'CRVT 1 3 -0.01 0 0 0 1 1 1 0 0 "" 0',
        'CONN 4 1 0 0 0 0 1 1 1 0 0 "" 0',
        'CONN 4 2 -0.2 0 0 0 1 1 1 0 0 "" 0',
        'CONN 4 3 0 0 0 0 1 1 1 0 0 "" 0',
        'APER 0 1 5.0 0 0 0 1 1 1 0 0 "" 0',
        'APER 0 2 4.0 0 0 0 1 1 1 0 0 "" 0',
        'APER 0 3 3.0 0 0 0 1 1 1 0 0 "" 0',
        'WAVE 1 1 0.5875618 0 0 0 1 1 1 0 0 "" 0',
        'WAVE 1 2 0.55 0 0 0 1 1 1 0 0 "" 0',
        'WAVE 1 3 0.65 0 0 0 1 1 1 0 0 "" 0',
        'GLSS 4 1 N-BK7 0 0 0 1 1 1 0 0 "" 0',
        'GLSS 4 2 N-SK16 0 0 0 1 1 1 0 0 "" 0',
        'GLSS 4 3 N-BK7 0 0 0 1 1 1 0 0 "" 0',
        'STPS 0 1 3 0 0 0 1 1 1 0 0 "" 0',
        'STPS 0 2 3 0 0 0 1 1 1 0 0 "" 0',
        'STPS 0 3 4 0 0 0 1 1 1 0 0 "" 0',
        'TEMP 0 1 20.0 0 0 0 1 1 1 0 0 "" 0',
        'TEMP 0 2 20.0 0 0 0 1 1 1 0 0 "" 0',
        'TEMP 0 3 45.0 0 0 0 1 1 1 0 0 "" 0',
        'PRES 0 1 1.0 0 0 0 1 1 1 0 0 "" 0',
        'PRES 0 2 0.5 0 0 0 1 1 1 0 0 "" 0',
        'PRES 0 3 1.0 0 0 0 1 1 1 0 0 "" 0',
    ]
    path = _write(tmp_path, _text() + "\r\n".join(rows) + "\r\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # glasses without dn/dT data at 45 °C
        optic = optics.load(path)
        second, third = optic.configuration(2), optic.configuration(3)
    assert optic.environment is None  # TEMP rows are not the system temperature
    assert second.surfaces[1].geometry.curvature == -0.012
    assert second.surfaces[4].geometry.conic == -0.2 and second.aperture.value == 4.0
    assert second.wavelengths.values[0] == 0.55 and third.stop_index == 4
    assert "SK16" in repr(second.surfaces[4].material)
    assert (third.environment.temperature, second.environment.pressure) == (45.0, 0.5)
    written = optics.save(optic, tmp_path / "written.zmx")
    again = optics.load(written)
    assert [(r.key, r.values) for r in again.configurations.rows] == [
        (r.key, r.values) for r in optic.configurations.rows
    ]


def test_unsupported_operand_warns_with_its_line(tmp_path):
    text = _text() + 'SDIA 2 1 0.5 0 0 0 1 1 1 0 0 "" 0\r\n'
    line = text.count("\n")
    path = _write(tmp_path, text)
    with pytest.warns(ZemaxWarning, match=rf"line {line}: multi-configuration operand SDIA"):
        optic = optics.load(path)
    assert optic.configuration_count == 3


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            'THIC 2 4 1.0 0 0 0 1 1 1 0 0 "" 0',
            "THIC 2: configuration 4 does not exist: MNUM 3 gives configurations 1 to 3",
        ),
        (
            'CONN 1 1 -1.0 0 0 0 1 1 1 0 0 "" 0',
            "line 55: CONN 1: no value for configuration(s) 2, 3 (MNUM 3)",
        ),
        ('THIC 2 1 abc 0 0 0 1 1 1 0 0 "" 0', "must be a number"),
    ],
)
def test_bad_rows_are_refused_with_a_message(tmp_path, row, message):
    path = _write(tmp_path, _text() + row + "\r\n")
    with pytest.raises(LensFileError) as info:
        optics.load(path)
    assert message in str(info.value)


def test_corpus_files_with_one_configuration_stay_single(zemax_corpus_with_mnum):
    for path in zemax_corpus_with_mnum:
        data = zemax.read(path, glass_fallback="model")
        assert "configurations" not in data, path


@pytest.fixture
def zemax_corpus_with_mnum():
    from _zemax_corpus import absent_reason, corpus_dir

    folder = corpus_dir()
    if not folder.is_dir():
        pytest.skip(absent_reason())
    marks = (b"MNUM", "MNUM".encode("utf-16-le"))
    paths = [p for p in sorted(folder.glob("*.zmx")) if any(m in p.read_bytes() for m in marks)]
    if not paths:
        pytest.skip("no corpus file has MNUM")
    return paths[:4]


def test_header_lines_before_mnum_are_not_operand_rows(recwarn):
    optic = optics.load(ZMX)  # FTYP 0 0 2 1 ... looks like a row but comes before MNUM
    assert not [w for w in recwarn if issubclass(w.category, ZemaxWarning)]
    assert optic.fields.type == "angle" and len(optic.fields.values) == 2


def test_rows_in_inches_are_read_in_mm(tmp_path):
    path = _write(tmp_path, _text().replace("UNIT MM", "UNIT IN"))
    optic = optics.load(path)
    assert optic.configurations.rows[0].values == pytest.approx(
        [9.0 * 25.4, 19.0 * 25.4, 29.0 * 25.4]
    )
    assert optic.configurations.rows[2].values == [8.0, 12.0, 20.0]  # field angles: degrees
