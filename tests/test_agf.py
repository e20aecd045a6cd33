"""Zemax AGF glass catalogs: parsing, the 13 formulas against the formulas written out by hand,
thermal and range data, user catalogs searched first, and the errors."""

from __future__ import annotations

import codecs
import math

import numpy as np
import pytest

from optics import _glass_catalog
from optics.io import agf
from optics.materials import CatalogGlass, material_from_spec

WAVELENGTHS = (0.4047, 0.5875618, 1.014)

# Each formula with coefficients of a plausible glass and n(λ) written out by hand from
# OpticStudio's "The Glass Dispersion Formulas" (λ in µm).
CASES = {
    1: (
        (2.27, -0.0101, 0.0106, 0.00032, -2.7e-05, 1.7e-06),
        lambda w, a: math.sqrt(
            a[0] + a[1] * w**2 + a[2] / w**2 + a[3] / w**4 + a[4] / w**6 + a[5] / w**8
        ),
    ),
    2: (
        (1.03961212, 0.00600069867, 0.231792344, 0.0200179144, 1.01046945, 103.560653),
        lambda w, k: math.sqrt(
            1
            + k[0] * w**2 / (w**2 - k[1])
            + k[2] * w**2 / (w**2 - k[3])
            + k[4] * w**2 / (w**2 - k[5])
        ),
    ),
    3: (
        (1.5, 0.0043, 0.0002, -0.0012, 1e-05, -2e-07),
        lambda w, c: (
            c[0]
            + c[1] / (w**2 - 0.028)
            + c[2] / (w**2 - 0.028) ** 2
            + c[3] * w**2
            + c[4] * w**4
            + c[5] * w**6
        ),
    ),
    4: (
        (0.2, 0.9, 0.1, 0.8, 9.0),
        lambda w, c: math.sqrt(
            1 + c[0] + c[1] * w**2 / (w**2 - c[2] ** 2) + c[3] / (w**2 - c[4] ** 2)
        ),
    ),
    5: ((1.49, 0.0051, 0.0003), lambda w, c: c[0] + c[1] / w + c[2] / w**3.5),
    6: (
        (0.6, 0.004, 0.4, 0.015, 0.9, 98.0, 0.01, 400.0),
        lambda w, k: math.sqrt(1 + sum(k[i] * w**2 / (w**2 - k[i + 1]) for i in range(0, 8, 2))),
    ),
    7: (
        (2.3, 0.011, 0.02, 0.009),
        lambda w, c: math.sqrt(c[0] + c[1] / (w**2 - c[2]) - c[3] * w**2),
    ),
    8: (
        (1.3, 0.95, 0.011, 0.009),
        lambda w, c: math.sqrt(c[0] + c[1] * w**2 / (w**2 - c[2]) - c[3] * w**2),
    ),
    9: (
        (1.2, 1.05, 0.01, 0.9, 110.0),
        lambda w, c: math.sqrt(c[0] + c[1] * w**2 / (w**2 - c[2]) + c[3] * w**2 / (w**2 - c[4])),
    ),
    10: (
        (2.27, -0.0101, 0.0106, 0.00032, -2.7e-05, 1.7e-06, 1e-07, -1e-08),
        lambda w, a: math.sqrt(
            sum(a[i] * w**p for i, p in enumerate((0, 2, -2, -4, -6, -8, -10, -12)))
        ),
    ),
    11: (
        (0.6, 0.004, 0.4, 0.015, 0.9, 98.0, 0.01, 400.0, 0.002, 900.0),
        lambda w, k: math.sqrt(1 + sum(k[i] * w**2 / (w**2 - k[i + 1]) for i in range(0, 10, 2))),
    ),
    12: (
        (2.27, -0.0101, 0.0106, 0.00032, -2.7e-05, 1.7e-06, 1e-05, -2e-06),
        lambda w, a: math.sqrt(
            sum(a[i] * w**p for i, p in enumerate((0, 2, -2, -4, -6, -8, 4, 6)))
        ),
    ),
    13: (
        (2.18826855, -0.00919044724, -0.000111621071, 0.00926372815, 7.34900733e-05),
        lambda w, a: math.sqrt(sum(a[i] * w**p for i, p in enumerate((0, 2, 4, -2, -4)))),
    ),
}


def agf_text(cases=CASES):
    lines = ["CC test catalog written by tests/test_agf.py"]
    for formula, (coefficients, _) in cases.items():
        lines += [
            f"NM TEST-{formula} {formula} 517642 1.5168 64.17 0 1 0",
            "GC written by hand",
            "ED 7.1 8.3 2.51 -0.0009 0",
            # ten values, as the vendors write them: unused coefficients are zeros
            "CD "
            + " ".join(f"{c:.12E}" for c in [*coefficients, *[0.0] * (10 - len(coefficients))]),
            "TD 1.86E-06 1.31E-08 -1.37E-11 4.34E-07 6.27E-10 1.7E-01 2.0E+01",
            "OD 1.0 1.0 0.0 1.0 2.3 2.3",
            "LD 0.3 2.5",
            "IT 0.3 0.05 25",
        ]
    return "\r\n".join(lines) + "\r\n"


@pytest.fixture(autouse=True)
def _fresh_user_glasses():
    _glass_catalog.clear_user_glasses()
    yield
    _glass_catalog.clear_user_glasses()


def test_every_agf_formula_matches_the_formula_written_out():
    catalog = agf.parse_agf(agf_text(), "test.agf", "test")
    assert list(catalog.glasses) == [f"TEST-{k}" for k in CASES]
    wl = np.array(WAVELENGTHS)
    for formula, (coefficients, by_hand) in CASES.items():
        glass = catalog.glasses[f"TEST-{formula}"]
        assert glass.formula == formula
        got = _glass_catalog.evaluate(glass.dispersion(f"test TEST-{formula}"), wl)
        want = [by_hand(w, coefficients) for w in WAVELENGTHS]
        np.testing.assert_allclose(got, want, rtol=1e-14, err_msg=f"formula {formula}")


def test_records_keep_thermal_range_status_and_comment():
    glass = agf.parse_agf(agf_text(), "test.agf").glasses["TEST-2"]
    assert glass.nd == 1.5168 and glass.vd == 64.17 and glass.status_name == "preferred"
    assert glass.wavelength_range == (0.3, 2.5)
    assert glass.comment == "written by hand" and glass.line == 10
    thermal = glass.thermal.as_dict()
    assert thermal == {
        "D0": 1.86e-06,
        "D1": 1.31e-08,
        "D2": -1.37e-11,
        "E0": 4.34e-07,
        "E1": 6.27e-10,
        "lambda_tk": 0.17,
        "reference_temperature": 20.0,
    }


def test_a_utf16_file_is_read_and_searched_first_under_its_file_name(tmp_path):
    path = tmp_path / "SCHOTT.AGF"
    # A "schott" catalog whose N-BK7 is a different glass: the user's file wins.
    text = (
        agf_text({2: CASES[2]})
        .replace("TEST-2", "N-BK7")
        .replace("1.039612120000E+00", "1.139612120000E+00")
    )
    path.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    catalog = agf.add_glass_catalog(path)
    assert catalog.name == "schott"
    glass = material_from_spec("N-BK7")
    assert (glass.name, glass.catalog) == ("N-BK7", "schott")
    assert glass.source == f"AGF {path}, line 2"
    coefficients = list(CASES[2][0])
    coefficients[0] = 1.13961212
    expected = CASES[2][1](0.5875618, coefficients)
    assert float(glass.index(np.array(0.5875618))) == pytest.approx(expected, rel=1e-14)
    assert glass.thermal.d0 == 1.86e-06
    _glass_catalog.clear_user_glasses()
    assert material_from_spec("N-BK7").source.startswith("refractiveindex.info")


def test_the_environment_variable_adds_catalogs(tmp_path, monkeypatch):
    path = tmp_path / "mine.agf"
    path.write_text(agf_text({5: CASES[5]}), encoding="latin-1")
    monkeypatch.setenv(agf.ENVIRONMENT_VARIABLE, str(path))
    _glass_catalog.clear_cache()
    glass = CatalogGlass("test-5")
    assert (glass.name, glass.catalog) == ("TEST-5", "mine")
    monkeypatch.setenv(agf.ENVIRONMENT_VARIABLE, str(tmp_path / "missing.agf"))
    _glass_catalog.clear_cache()
    with pytest.raises(agf.AgfError, match="OPTICS_GLASS_CATALOGS: .*missing.agf: cannot read"):
        CatalogGlass("N-BK7")
    monkeypatch.delenv(agf.ENVIRONMENT_VARIABLE)
    _glass_catalog.clear_cache()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "NM X 14 0 1.5 60 0 0\nCD 1 2 0 0 0 0\n",
            r"line 1: glass 'X': dispersion formula 14 is not one",
        ),
        ("CC c\nNM X 2 0 1.5 60 0 0\nTD 1 2\n", r"line 2: glass 'X' has no CD"),
        ("NM X 2 0 1.5 60 0 0\nCD 1 a 3 0 0 0\n", r"line 2: glass 'X': CD values must be numbers"),
        (
            "NM X 2 0 1.5 60 0 0\nCD 1 2 0 0 0 0\nLD 2 1\n",
            r"line 3: glass 'X': LD wavelength range",
        ),
        (
            "NM X 2 0 1.5 60 0 0\nCD 1 0.006 0.2\n",
            r"line 2: glass 'X': CD has 3 value\(s\); formula 2 ",
        ),
        ("NM X 2 0 1.5 60 0 0\nCD\n", r"line 2: glass 'X': CD has 0 value\(s\)"),
        (
            "NM X 1 0 1.5 60 0 0\nCD -2 0 0 0 0 0\n",
            r"line 2: glass 'X': the CD coefficients give no real",
        ),
        (
            "NM X 1 0 1.5 60 0 0\nCD 2.2 0 0 0 0 0\n"
            "NM Y 1 0 1.5 60 0 0\nCD 1 -1 0 0 0 0\nLD 0.3 2.5\n",
            r"line 4: glass 'Y': the CD coefficients give no real index \(n² <= 0\) at 1.014 µm",
        ),
        ("NM X 2 0\n", r"line 1: NM needs a name, formula"),
        ("CC only a comment\n", r"no glass records"),
    ],
)
def test_bad_catalogs_name_the_file_and_line(text, message):
    with pytest.raises(agf.AgfError, match=r"bad\.agf: " + message):
        agf.parse_agf(text, "bad.agf")


def test_values_continued_on_the_next_lines_belong_to_the_record():
    # As Nikon's catalog writes CD and TD: the values wrap onto lines without a mnemonic.
    text = (
        "NM WRAPPED 2 0 1.5168 64.17 0 0\n"
        "CD 1.03961212 0.00600069867 0.231792344\n"
        "0.0200179144 1.01046945\n"
        "103.560653 0 0 0 0\n"
        "TD 1.86E-06 1.31E-08 -1.37E-11\n"
        "4.34E-07 6.27E-10 1.7E-01 2.0E+01\n"
        "OD 1 1 1\n"
        "2.0 3.0\n"  # a continued record that is not read: its values are skipped
        "LD 0.3 2.5\n"
    )
    glass = agf.parse_agf(text, "wrapped.agf").glasses["WRAPPED"]
    assert glass.coefficients == CASES[2][0]
    assert glass.thermal.as_dict()["reference_temperature"] == 20.0
    assert glass.wavelength_range == (0.3, 2.5)
    n = _glass_catalog.evaluate(glass.dispersion("wrapped"), np.array([0.5875618]))
    assert abs(float(n[0]) - 1.5168) < 1e-5


def test_a_lens_traced_where_its_glass_gives_no_real_index_is_refused_when_loaded(tmp_path):
    # A glass fitted on 0.3-2.5 µm whose formula gives n² < 0 beyond 3 µm (a real AGF
    # file may say nothing more), used by a lens at 4 µm: a NaN lens before the check.
    (tmp_path / "short.agf").write_text(
        "NM SHORT 1 0 1.5 60 0 0\nCD 2.3 -0.26 0 0 0 0\nLD 0.3 2.5\n", encoding="utf-8"
    )
    agf.add_glass_catalog(tmp_path / "short.agf")
    lens = tmp_path / "lens.toml"
    lens.write_text(
        "[aperture]\ntype = 'epd'\nvalue = 10\n[fields]\ntype = 'angle'\nvalues = [0]\n"
        "[wavelengths]\nvalues = [0.55, 4.0]\n"
        "[[surfaces]]\nthickness = inf\n"
        "[[surfaces]]\nradius = 50\nthickness = 5\nmaterial = 'SHORT'\nstop = true\n"
        "[[surfaces]]\nradius = -50\nthickness = 45\n"
        "[[surfaces]]\n",
        encoding="utf-8",
    )
    from optics.errors import LensFileError
    from optics.io import load

    with pytest.raises(
        LensFileError, match=r"lens\.toml: surface 1: material 'SHORT' has no real index at 4 µm"
    ):
        load(lens)
