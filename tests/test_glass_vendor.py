"""Glass data beyond the database snapshot: crystals by their published formulas, the vendors'
data sheets (opticalglass), dn/dT constants, model glasses given by name, and the loud warning
for a .zmx model glass that carries another glass's nd/vd."""

from __future__ import annotations

import codecs
import importlib.util
import math

import numpy as np
import pytest

from optics import _glass_catalog
from optics.cli import main
from optics.errors import OpticsError
from optics.io import zemax
from optics.materials import (
    WAVELENGTH_C,
    WAVELENGTH_D,
    WAVELENGTH_F,
    Abbe,
    add_model_glass,
    material_from_spec,
    material_source,
)

HAS_OPTICALGLASS = importlib.util.find_spec("opticalglass") is not None


@pytest.fixture(autouse=True)
def _fresh_user_glasses():
    _glass_catalog.clear_user_glasses()
    yield
    _glass_catalog.clear_user_glasses()


@pytest.fixture
def no_vendor_sheets(monkeypatch):
    """Skip the vendor data sheets (seconds to read) where a test does not need them."""
    monkeypatch.setattr(_glass_catalog, "FALLBACK_SOURCES", [])


def malitson_caf2(wavelength):
    """CaF2, I. H. Malitson, Appl. Opt. 2, 1103 (1963): the three-term Sellmeier formula."""
    w2 = wavelength**2
    terms = ((0.5675888, 0.050263605), (0.4710914, 0.1003909), (3.8484723, 34.649040))
    return math.sqrt(1 + sum(b * w2 / (w2 - c**2) for b, c in terms))


def test_caf2_follows_malitson_1963_not_a_table():
    glass = material_from_spec("CAF2")
    assert (glass.name, glass.catalog) == ("CaF2", "crystal")
    wavelengths = (0.4861327, 0.5875618, 1.5)
    got = glass.index(np.array(wavelengths))
    np.testing.assert_allclose(got, [malitson_caf2(w) for w in wavelengths], atol=1e-6, rtol=0)
    assert "main/CaF2/nk/Malitson.yml" in glass.source


@pytest.mark.parametrize(
    ("name", "data_file"),
    [
        ("SAPPHIRE", "Al2O3/nk/Malitson-o"),
        ("MgF2", "MgF2/nk/Dodge-o"),
        ("germanium", "Ge/nk/Burnett"),
        ("SILICON", "Si/nk/Salzberg"),
        ("ZnSe", "ZnSe/nk/Connolly"),
    ],
)
def test_crystals_resolve_to_their_published_formulas(name, data_file):
    glass = material_from_spec(name)
    assert glass.catalog == "crystal" and data_file in glass.source


def test_baf2_stays_the_barium_flint_glass():
    assert material_from_spec("BAF2").catalog != "crystal"


def test_database_glasses_keep_schotts_dn_dt_constants():
    # SCHOTT N-BK7 data sheet: D0 1.86e-6, D1 1.31e-8, D2 -1.37e-11, E0 4.34e-7,
    # E1 6.27e-10, λtk 0.17 µm, at 20 °C.
    thermal = material_from_spec("N-BK7").thermal
    assert (thermal.d0, thermal.d1, thermal.d2) == (1.86e-06, 1.31e-08, -1.37e-11)
    assert (thermal.e0, thermal.e1, thermal.lambda_tk) == (4.34e-07, 6.27e-10, 0.17)
    assert thermal.reference_temperature == 20.0


# Glasses of the vendors' data sheets, with the nd, vd and nF, nC, ng the same sheets publish
# (opticalglass 1.1.1's SCHOTT.xls, OHARA.xlsx, HOYA.xlsx, CDGM.xls, HIKARI.xlsx, SUMITA.xlsx);
# the last four are in no other catalog (not in the database snapshot).
VENDOR_GLASSES = [
    ("SF6HT", "schott", 1.80518, 25.43, (1.82775, 1.79609, 1.84707)),
    ("S-BSL 7", "ohara", 1.51633, 64.14, (1.52191, 1.51386, 1.52621)),
    ("FCD600", "hoya", 1.59410, 60.47, (1.60097, 1.59115, 1.60642)),
    ("H-K9L*", "cdgm", 1.51680, 64.20, (1.52237, 1.51432, 1.52667)),
    ("J-SFH4", "hikari", 1.66382, 27.35, (1.681192, 1.656918, 1.696531)),
    ("K-SK16", "sumita", 1.62041, 60.30, (1.62756, 1.61727, 1.63313)),
]
needs_opticalglass = pytest.mark.skipif(
    not HAS_OPTICALGLASS, reason="the opticalglass package is not installed"
)


@needs_opticalglass
@pytest.mark.parametrize(("name", "catalog", "nd", "vd", "fcg"), VENDOR_GLASSES)
def test_vendor_sheet_formulas_give_the_published_indices(name, catalog, nd, vd, fcg):
    data = _glass_catalog.fallback_catalogs()[catalog][name]
    assert "data sheet (opticalglass" in data.origin
    lines = np.array([WAVELENGTH_D, WAVELENGTH_F, WAVELENGTH_C, 0.4358343])
    n_d, n_f, n_c, n_g = _glass_catalog.evaluate(data, lines)
    assert abs(n_d - nd) < 5e-6  # the sheets round to 5 decimals
    assert abs((n_d - 1) / (n_f - n_c) - vd) < 0.05  # and vd to 1 or 2
    np.testing.assert_allclose([n_f, n_c, n_g], fcg, atol=6e-6, rtol=0)


@needs_opticalglass
@pytest.mark.parametrize(("name", "catalog"), [(g[0], g[1]) for g in VENDOR_GLASSES[2:]])
def test_a_glass_only_a_vendor_sheet_has_is_found_there(name, catalog):
    glass = material_from_spec(name)
    assert (glass.name, glass.catalog) == (name, catalog)
    assert material_source(glass).startswith(f"{catalog}: ")
    assert "data sheet (opticalglass" in glass.source


@pytest.mark.skipif(not HAS_OPTICALGLASS, reason="the opticalglass package is not installed")
def test_cdgm_sheet_keeps_the_dn_dt_constants():
    thermal = material_from_spec({"name": "H-K9L*", "catalog": "cdgm"}).thermal
    # CDGM's sheet for H-K9L*: D0 -1.13e-6, D1 1.97e-8, D2 -4.03e-11, E0 4.17e-7,
    # E1 -1.86e-10, λtk 0.214 µm.
    assert (thermal.d0, thermal.d1, thermal.d2) == (-1.13e-06, 1.97e-08, -4.03e-11)
    assert (thermal.e0, thermal.e1, thermal.lambda_tk) == (4.17e-07, -1.86e-10, 0.214)


# A glass no source has (SCHOTT's N-FK56, the example, now ships with optics).
MISSING = "X-FK56"


def test_a_model_glass_given_by_name_supplies_a_missing_glass(no_vendor_sheets):
    with pytest.raises(OpticsError, match=f"unknown glass '{MISSING}'"):
        material_from_spec(MISSING, where="lens.toml, surface 2")
    add_model_glass(MISSING, 1.43425, 94.95)
    glass = material_from_spec(MISSING.lower())
    assert glass == Abbe(1.43425, 94.95) and material_source(glass) == "model glass (nd, vd)"
    add_model_glass("N-BK7", 1.6, 40.0)  # a catalog glass is never replaced
    assert material_from_spec("N-BK7").catalog == "schott"
    with pytest.raises(OpticsError, match="nd must be greater than 1"):
        add_model_glass("X", 0.9, 50.0)


ZMX = """MODE SEQ
UNIT MM
ENPD 10
GCAT SCHOTT
FTYP 0 0 1 1 0 0 0
YFLN 0
WAVM 1 0.5875618 1
PWAV 1
SURF 0
  DISZ INFINITY
SURF 1
  STOP
  CURV 0.02
  DISZ 4
  GLAS {glass} 3 0 {nd} {vd} -0.0009 0 0 0 0 0
SURF 2
  CURV -0.005
  DISZ 95
SURF 3
  DISZ 0
"""


def zmx_bytes(glass=MISSING, nd="1.5168000345005883", vd="64.167336237497992"):
    text = ZMX.format(glass=glass, nd=nd, vd=vd)
    return codecs.BOM_UTF16_LE + text.encode("utf-16-le")


def test_fallback_warns_loudly_when_the_glas_line_carries_n_bk7s_numbers(no_vendor_sheets):
    with pytest.warns(zemax.ZemaxWarning) as caught:
        data = zemax.reads(zmx_bytes(), "rc.zmx", glass_fallback="model")
    message = str(caught[0].message)
    assert f"glass '{MISSING}' is not in the glass database" in message
    assert "line 15: nd = 1.5168000345005883" in message
    assert "WARNING: these are N-BK7 (schott)'s nd/vd, very likely a placeholder" in message
    assert data["surfaces"][1]["material"] == {"nd": 1.5168000345005883, "vd": 64.16733623749799}


def test_fallback_with_numbers_of_no_catalog_glass_has_no_placeholder_warning(no_vendor_sheets):
    with pytest.warns(zemax.ZemaxWarning) as caught:
        zemax.reads(zmx_bytes("MYGLASS", "1.61", "50.0"), "a.zmx", glass_fallback="model")
    assert "placeholder" not in str(caught[0].message)


def test_zmx_glass_given_by_name_needs_no_fallback(no_vendor_sheets):
    add_model_glass(MISSING, 1.43425, 94.95)
    data = zemax.reads(zmx_bytes(), "rc.zmx")
    assert data["surfaces"][1]["material"] == {"nd": 1.43425, "vd": 94.95}


def write_zmx(tmp_path, **kwargs):
    path = tmp_path / "lens.zmx"
    path.write_bytes(zmx_bytes(**kwargs))
    return path


def test_cli_glass_option_supplies_the_glass(tmp_path, capsys, no_vendor_sheets):
    path = write_zmx(tmp_path)
    assert main(["analyze", str(path), "--json", "--glass", f"{MISSING}=1.43425,94.95"]) == 0
    out = capsys.readouterr().out
    assert '"source": "model glass (nd, vd)"' in out


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("X-FK56", "expected NAME=nd,vd"),
        ("X-FK56=1.4", "expected NAME=nd,vd"),
        ("X-FK56=a,b", "nd and vd must be numbers"),
        ("X-FK56=0.9,50", "needs 1 < nd <= 100 and 0 < vd <= 1e6"),
        ("X-FK56=1.4,nan", "needs 1 < nd <= 100"),
    ],
)
def test_cli_bad_glass_values_exit_2_with_one_line(tmp_path, capsys, value, message):
    path = write_zmx(tmp_path)
    assert main(["analyze", str(path), "--glass", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and "Traceback" not in "\n".join(err)


def test_cli_glass_catalog_option(tmp_path, capsys, no_vendor_sheets):
    catalog = tmp_path / "mine.agf"
    catalog.write_text(
        f"CC mine\nNM {MISSING} 2 434950 1.43425 94.95 0 1 0\n"
        "CD 0.5 0.003 0.35 0.011 0.9 200\nLD 0.3 2.5\n",
        encoding="ascii",
    )
    path = write_zmx(tmp_path)
    assert main(["analyze", str(path), "--json", "--glass-catalog", str(catalog)]) == 0
    out = capsys.readouterr().out
    assert f'"source": "mine: AGF {catalog}, line 2"' in out
    assert main(["analyze", str(path), "--glass-catalog", str(tmp_path / "none.agf")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "none.agf: cannot read the glass catalog" in err[0]
    bad = tmp_path / "bad.agf"
    bad.write_text("NM X 99 0 1.5 60 0 0\nCD 1\n", encoding="ascii")
    assert main(["analyze", str(path), "--glass-catalog", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.agf: line 1: glass 'X': dispersion formula 99" in err[0]


def test_a_glass_from_a_maker_the_gcat_line_does_not_list_is_announced(no_vendor_sheets):
    # SCHOTT's old SK16 is in no catalog optics has; HIKARI's SK16 stands in, with a warning.
    with pytest.warns(zemax.ZemaxWarning, match="using HIKARI's SK16, a glass of that name"):
        data = zemax.reads(zmx_bytes("SK16", "1.62", "60.3"), "sk16.zmx")
    assert data["surfaces"][1]["material"] == {"name": "SK16", "catalog": "hikari"}


def test_the_files_gcat_catalog_from_an_agf_file_wins(tmp_path, no_vendor_sheets):
    # A user's SCHOTT.AGF with an SK16 (coefficients of this test, not SCHOTT's): a GCAT
    # SCHOTT file's SK16 is then that one, not HIKARI's, and no maker warning is given.
    from optics.io import agf

    path = tmp_path / "SCHOTT.AGF"
    path.write_text("NM SK16 2 620603 1.62041 60.32 0 2 0\nCD 1.34 0.007 0.24 0.023 0.99 92.6\n")
    agf.add_glass_catalog(path)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", zemax.ZemaxWarning)
        data = zemax.reads(zmx_bytes("SK16", "1.62", "60.3"), "sk16.zmx")
    assert data["surfaces"][1]["material"] == {"name": "SK16", "catalog": "schott"}


def test_crystals_are_written_as_opticstudios_misc_glasses():
    text = ZMX.format(glass="CAF2", nd="1.43", vd="95").replace("GCAT SCHOTT", "GCAT MISC")
    optic = zemax.loads(codecs.BOM_UTF16_LE + text.encode("utf-16-le"), "caf2.zmx")
    assert optic.surfaces[1].material.catalog == "crystal"
    written = zemax.dumps(optic)
    assert "GCAT MISC" in written and "GLAS CAF2 " in written
    again = zemax.loads(zemax.encode(written), "again.zmx")
    assert again.surfaces[1].material == optic.surfaces[1].material
