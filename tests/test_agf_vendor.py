"""The AGF reader on the vendors' own catalog files, against two independent checks.

The files come from an installed package, KrakenOS 1.0.0.24 (GPL-3.0, installed by
./dev with --no-deps; its files are read where pip put them, never copied here):

- every glass of the optical-glass vendors' catalogs gives, from its CD coefficients,
  the d-line index its NM line states (the vendor's own nd, 5-6 digits);
- KrakenOS's own AGF parser (a second, independent reader, loaded from its file without
  the package's heavy imports) reads the same coefficients for every glass that does
  not wrap its values onto continuation lines.
"""

from __future__ import annotations

import importlib.util
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from optics import _glass_catalog
from optics.io import agf

D_LINE = 0.5875618  # µm

# Catalogs of optical glass, where the NM line's nd is the vendor's d-line index.  (The
# infrared, birefringent, liquid and miscellaneous files state an nd that is not the d
# line of their formula: germanium, say, has no d-line index.)
OPTICAL_GLASS = (
    "SCHOTT.AGF",
    "schott-1.agf",
    "ohara.agf",
    "hoya.agf",
    "HOYA20220711_include_obsolete.agf",
    "hikari.agf",
    "cdgm.agf",
    "sumita.agf",
    "nikon.agf",
    "corning.agf",
    "archer.agf",
    "arton.agf",
    "heraeus.agf",
    "rad_hard.agf",
    "topas.agf",
    "zeon.agf",
)
ND_TOLERANCE = 5e-5  # the NM line's nd carries 5-6 digits; the worst glass found: 3.8e-5


def _catalog_folder():
    spec = importlib.util.find_spec("KrakenOS")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("KrakenOS 1.0.0.24 (its vendor AGF files) is not installed: ./dev installs it")
    return Path(next(iter(spec.submodule_search_locations))) / "Cat"


def _n(glass, wavelength):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # outside a glass's LD range
        return float(_glass_catalog.evaluate(glass.dispersion(glass.name), np.array(wavelength)))


@pytest.mark.parametrize("file_name", OPTICAL_GLASS)
def test_every_vendor_glass_gives_its_catalog_nd(file_name):
    path = _catalog_folder() / file_name
    catalog = agf.read_agf(path)
    assert len(catalog.glasses) > 0
    off = {
        name: abs(_n(glass, D_LINE) - glass.nd)
        for name, glass in catalog.glasses.items()
        if not (abs(_n(glass, D_LINE) - glass.nd) <= ND_TOLERANCE)
    }
    assert not off, f"{file_name}: {len(off)} glasses off their nd: {sorted(off.items())[:5]}"


def test_nikon_wraps_its_records_and_every_glass_is_read_whole():
    catalog = agf.read_agf(_catalog_folder() / "nikon.agf")
    # The first CD line holds four values; before continuation lines were read, 363 glasses
    # kept only those (and were off their nd by up to 0.15).
    beyond_the_first_line = [g for g in catalog.glasses.values() if len(g.coefficients) > 4]
    assert len(beyond_the_first_line) > 300


def _kraken_reader(folder):
    """KrakenOS's load_Catalog, from its file (the package's __init__ needs pyvista)."""
    spec = importlib.util.spec_from_file_location(
        "kraken_system_tools", folder.parent / "SystemTools.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.load_Catalog


@pytest.mark.parametrize(
    "file_name", ["SCHOTT.AGF", "ohara.agf", "hoya.agf", "cdgm.agf", "sumita.agf"]
)
def test_a_second_reader_reads_the_same_coefficients(file_name, capsys):
    folder = _catalog_folder()
    path = folder / file_name
    _cat, names, nm, _ed, cd, td, _od, ld, _it = _kraken_reader(folder)([str(path)])
    ours = agf.read_agf(path).glasses
    compared = 0
    repeated = {str(n) for n in names if list(names).count(n) > 1}  # the first record is kept
    for name, theirs_cd, theirs_ld in zip(names, cd, ld):  # (it leaves out each file's last glass)
        if str(name) in repeated:
            continue
        glass = ours[str(name)]
        padded = list(glass.coefficients) + [0.0] * (len(theirs_cd) - len(glass.coefficients))
        np.testing.assert_array_equal(padded, theirs_cd, err_msg=f"{file_name} {name}")
        if glass.wavelength_range is not None:
            assert glass.wavelength_range == tuple(theirs_ld[:2])
        compared += 1
    assert compared >= len(ours) - 1 - len(repeated) > 50
    assert all(math.isfinite(g.nd) for g in ours.values())


def test_every_vendor_file_reads_whole():
    # Infrared, birefringent, liquid and plastic catalogs too: no real glass trips the
    # continuation, CD-count or real-index checks inside its own range.
    files = sorted(p for p in _catalog_folder().iterdir() if p.suffix.lower() == ".agf")
    assert len(files) >= 25
    for path in files:
        assert agf.read_agf(path).glasses, path.name
