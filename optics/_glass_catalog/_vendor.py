"""The vendors' own glass data sheets, as the ``opticalglass`` package ships them.

``opticalglass`` (Michael Hayford's, BSD-3-Clause; an optional dependency, the
``vendor-glass`` extra) bundles the spreadsheets that Schott, Ohara, Hoya, CDGM,
Hikari and Sumita publish.  Its catalog classes read them; here each glass's
dispersion coefficients (``glass_coefs``), nd and vd, and, where the sheet has
them (CDGM), the dn/dT constants D0 ... λtk, become
:class:`~optics._glass_catalog.Dispersion` data in the vendor's own formula:

========  ===================================================================
Schott    Sellmeier, n² − 1 = Σ Bᵢ λ²/(λ² − Cᵢ)             (database formula 2)
Ohara     the same
Hoya      Schott's series n² = A0 + A1 λ² + A2 λ⁻² + ... + A5 λ⁻⁸  (AGF 1)
CDGM      per glass: Sellmeier where the row gives K1 L1 K2 L2 K3 L3 (opticalglass 2's
          2024 sheet, 271 of 321 glasses), else Schott's series A0 ... A5
Sumita    Schott's series
Hikari    n² = A0 + A1 λ² + A2 λ⁴ + A3 λ⁻² + ... + A8 λ⁻¹²   (AGF 13, Extended 3)
========  ===================================================================

They are searched only for a name that no other catalog has (the
refractiveindex.info snapshot holds the same vendors' data for almost every
glass), because reading the six spreadsheets takes seconds; see docs/materials.md.
"""

from __future__ import annotations

import importlib.util
import math
import warnings

VENDORS = ("Schott", "Ohara", "Hoya", "CDGM", "Hikari", "Sumita")
"""The opticalglass catalogs read, in this order (searched as ``schott``, ``ohara`` ...)."""

VENDOR_KEYS = tuple(vendor.lower() for vendor in VENDORS)
"""The catalog names the sheets are searched as."""

_FORMULAS = {
    "Schott": "sellmeier",
    "Ohara": "sellmeier",
    "Hoya": ("agf", 1),
    "CDGM": ("agf", 1),
    "Sumita": ("agf", 1),
    "Hikari": ("agf", 13),
}
_THERMAL_KEYS = ("D0", "D1", "D2", "E0", "E1", "λTK")


def available() -> bool:
    """True when the opticalglass package is installed (it is not imported here)."""
    return importlib.util.find_spec("opticalglass") is not None


def vendor_catalogs() -> dict:
    """{catalog: {glass name: record}} of every vendor sheet; {} without opticalglass.

    A record is a dict with ``source``, ``formula``, ``coefficients``, ``thermal`` (the six
    constants D0, D1, D2, E0, E1, λtk at 20 °C, or None) and ``origin``.  The vendor
    modules (``opticalglass.schott`` ...) are imported directly: opticalglass 2's
    ``glassfactory`` downloads the refractiveindex.info database when imported.  A sheet
    that fails to load is left out with one RuntimeWarning.
    """
    if not available():
        return {}
    from importlib import import_module
    from importlib.metadata import version

    release = version("opticalglass")
    found = {}
    for vendor in VENDORS:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # spreadsheet-reader chatter
                module = import_module(f"opticalglass.{vendor.lower()}")
                catalog = _catalog(module, vendor)
                names = [str(n) for n in catalog.get_glass_names()]
        except Exception as err:  # noqa: BLE001 - a third-party reader's failure, reported
            warnings.warn(
                f"opticalglass {release}: the {vendor} data sheet could not be read "
                f"({type(err).__name__}: {err}); its glasses are left out",
                RuntimeWarning,
                stacklevel=2,
            )
            continue
        glasses = {}
        for name in names:
            data = _dispersion(catalog, vendor, name, release)
            if data is not None:
                glasses.setdefault(name.strip(), data)
        found[vendor.lower()] = glasses
    return found


_SELLMEIER_LABELS = ("K1", "L1", "K2", "L2", "K3", "L3")
"""A sheet row's labels of a Sellmeier formula n² − 1 = Σ Kᵢ λ²/(λ² − Lᵢ) (CDGM's 2024 sheet)."""


def _catalog(module, vendor):
    """The vendor module's catalog, with its sheet read.

    opticalglass 2 caches its catalogs' base ``__init__`` (``functools.lru_cache``): a
    second catalog object of a vendor would be left without its sheet (no ``df``), so
    the cache is emptied first.
    """
    cls = getattr(module, f"{vendor}Catalog")
    for base in cls.__mro__:
        clear = getattr(vars(base).get("__init__"), "cache_clear", None)
        if clear is not None:
            clear()
    return cls()


def _labelled_sellmeier(row):
    """(B1, C1, B2, C2, B3, C3) of a row whose dispersion coefficients K1 ... L3 are all
    numbers, else None (a row with Schott's series A0 ... A5 instead, or no such labels)."""
    try:
        block = row["dispersion coefficients"]
        values = [float(_first(block[label])) for label in _SELLMEIER_LABELS]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        return None
    return tuple(values) if all(math.isfinite(v) for v in values) else None


def _first(value):
    """A cell's value: the first of a repeated label's cells, or the cell itself."""
    return value.iloc[0] if hasattr(value, "iloc") else value


def sheet_formula(vendor, row, coefficients):
    """(formula, coefficients) of one glass of a vendor sheet, read per glass.

    A row that gives the Sellmeier constants K1, L1 ... L3 is Sellmeier whatever the
    vendor (CDGM's 2024 sheet gives them for most glasses and Schott's series for the
    rest); any other row is in the vendor's formula (:data:`_FORMULAS`).

    Parameters
    ----------
    vendor : str
        ``"Schott"``, ``"CDGM"`` ... (:data:`VENDORS`).
    row : pandas.Series
        The glass's row of the sheet (``catalog.df.loc[name]``).
    coefficients : sequence of float
        What the catalog's ``glass_coefs`` returned for it.

    Returns
    -------
    tuple
        The database formula (2, Sellmeier-2) or ``("agf", n)`` and its coefficients.
    """
    pairs = _labelled_sellmeier(row)
    if pairs is not None:
        return 2, (0.0,) + pairs
    if _FORMULAS[vendor] == "sellmeier":
        b, c = coefficients[:3], coefficients[3:6]
        return 2, (0.0, b[0], c[0], b[1], c[1], b[2], c[2])
    return _FORMULAS[vendor], tuple(coefficients)


def _dispersion(catalog, vendor, name, release):
    """The record of one glass of a vendor sheet, or None when its coefficients are blank."""
    try:
        coefficients = [float(c) for c in catalog.glass_coefs(name)]
    except (TypeError, ValueError, KeyError):
        return None
    if not coefficients or not all(math.isfinite(c) for c in coefficients):
        return None
    row = catalog.df.loc[name]
    formula, values = sheet_formula(vendor, row, coefficients)
    thermal = None
    try:
        constants = [float(row[key].iloc[0]) for key in _THERMAL_KEYS]
        if all(math.isfinite(v) for v in constants):
            thermal = tuple(constants)
    except (KeyError, TypeError, ValueError, IndexError):
        pass
    sheet = getattr(catalog, "name", vendor)
    return {
        "source": f"{vendor.lower()} {name}",
        "formula": formula,
        "coefficients": values,
        "thermal": thermal,
        "origin": f"{sheet} data sheet (opticalglass {release})",
    }
