"""Zemax AGF glass catalogs (the text format glass vendors publish): read into glass records.

An AGF file is a ``CC`` comment line and one record per glass, each a run of
lines that start with a two-letter mnemonic (OpticStudio's "The AGF & BGF File
Formats")::

    NM <name> <formula> <MIL#> <nd> <vd> <exclude sub> <status> <melt freq>
    GC <comment>
    ED <TCE -30/70> <TCE 100/300> <density> <dPgF> <ignore thermal expansion>
    CD <dispersion coefficients, in formula order>
    TD <D0> <D1> <D2> <E0> <E1> <λtk> <reference temperature, °C>
    OD ... (cost, resistances)    LD <λ min> <λ max> (µm)    IT <λ> <transmission> <thickness>

Read here: NM, CD, TD, LD, the first value of ED (α −30/+70 °C, 1e-6/K) and GC (the
glass comment); the others are skipped.  A record's values may continue on the
following lines, which then start with a number instead of a mnemonic (vendor files
such as Nikon's write CD and TD so): those values belong to the record above.
:func:`read_agf` gives an :class:`AgfCatalog`, whose glasses give
:class:`optics._glass_catalog.Dispersion` data through
:meth:`AgfGlass.dispersion`.  The formulas are the 13 of OpticStudio
(:data:`optics._dispersion_formulas.AGF_FORMULA_NAMES`); formula numbers
outside them, a record without ``CD``, a ``CD`` with fewer values than its formula
has coefficients, coefficients that give no real index (n² <= 0) inside the glass's
wavelength range, or a number that does not parse are :class:`AgfError` naming the
file, the line and the glass.
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import _glass_catalog
from .. import backend as be
from .._dispersion_formulas import AGF_FORMULA_NAMES
from .._glass_catalog import Dispersion, ThermalData
from .._glass_catalog._evaluate import evaluate
from ..errors import OpticsError

__all__ = [
    "ENVIRONMENT_VARIABLE",
    "AgfCatalog",
    "AgfError",
    "AgfGlass",
    "ThermalData",
    "add_glass_catalog",
    "load_environment_catalogs",
    "parse_agf",
    "read_agf",
]

ENVIRONMENT_VARIABLE = "OPTICS_GLASS_CATALOGS"
"""AGF files to search before the built-in catalogs: paths separated by ``os.pathsep``."""

COEFFICIENT_COUNTS = {
    1: 6,
    2: 6,
    3: 6,
    4: 5,
    5: 3,
    6: 8,
    7: 4,
    8: 4,
    9: 5,
    10: 8,
    11: 10,
    12: 8,
    13: 9,
}
"""AGF formula number -> how many ``CD`` values its formula reads (OpticStudio's list)."""

CHECK_WAVELENGTHS = (0.365, 0.4861327, 0.5875618, 0.6562725, 1.014, 2.0)
"""µm: where a glass's index is checked to be real (those inside its ``LD`` range, or
all of them when it has none), with :data:`CHECK_POINTS` more across the range."""

CHECK_POINTS = 32
"""Evenly spaced wavelengths across a glass's ``LD`` range (0.35–2.5 µm without one)
where its index is checked to be real too: a formula may dip below n² = 0 between lines."""

STATUS_NAMES = {0: "standard", 1: "preferred", 2: "obsolete", 3: "special", 4: "melt"}
"""AGF status codes (the NM line's 7th field)."""


class AgfError(OpticsError, ValueError):
    """An AGF glass catalog that cannot be read (the message names the file and line)."""


@dataclass(frozen=True)
class AgfGlass:
    """One glass record of an AGF catalog.

    Attributes
    ----------
    name : str
    formula : int
        OpticStudio's formula number (1 Schott, 2 Sellmeier 1, ... 13 Extended 3).
    nd, vd : float
        The catalog's d-line index and Abbe number (informative; the index comes from CD).
    status : int
        0 standard, 1 preferred, 2 obsolete, 3 special, 4 melt.
    coefficients : tuple of float
        The ``CD`` values in file order.
    thermal : ThermalData or None
        The ``TD`` line.
    wavelength_range : tuple of float or None
        The ``LD`` line, µm.
    expansion : float or None
        α(−30/+70 °C) of the ``ED`` line, 1/K (None when absent or 0).
    comment : str
    line : int
        1-based line of the ``NM`` record.
    """

    name: str
    formula: int
    nd: float
    vd: float
    status: int
    coefficients: tuple
    thermal: ThermalData | None = None
    wavelength_range: tuple | None = None
    expansion: float | None = None
    mil: str = ""
    comment: str = ""
    line: int = 0

    @property
    def status_name(self) -> str:
        """``"standard"``, ``"preferred"``, ``"obsolete"``, ``"special"`` or ``"melt"``."""
        return STATUS_NAMES.get(self.status, str(self.status))

    def dispersion(self, source: str, origin: str = "") -> Dispersion:
        """The glass's :class:`optics._glass_catalog.Dispersion` (``source`` names it in
        messages, ``origin`` says where it was read)."""
        return Dispersion(
            source,
            ("agf", self.formula),
            self.coefficients,
            wavelength_range=self.wavelength_range,
            thermal=self.thermal,
            origin=origin or source,
            expansion=self.expansion,
        )


@dataclass
class AgfCatalog:
    """The glasses of one AGF file, by name (file order).

    Attributes
    ----------
    name : str
        Catalog name: the file name without extension, lower case (``schott.agf`` -> ``schott``).
    path : str
    comment : str
        The ``CC`` line.
    glasses : dict
        {name: AgfGlass}.
    """

    name: str
    path: str
    comment: str = ""
    glasses: dict = field(default_factory=dict)


def read_agf(path) -> AgfCatalog:
    """Read an AGF glass catalog file.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.agf`` file (UTF-16 with a byte-order mark, UTF-8 or Latin-1 text).

    Returns
    -------
    AgfCatalog
        Named after the file (``LightPath.agf`` -> ``lightpath``).

    Raises
    ------
    AgfError
        Unreadable file, a bad record or no glass at all.
    """
    source = os.fspath(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise AgfError(f"{source}: cannot read the glass catalog: {exc.strerror or exc}") from exc
    return parse_agf(_decode(raw), source, Path(source).stem.lower())


def _decode(raw: bytes) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    if raw[1:2] == b"\x00":
        return raw.decode("utf-16-le", errors="replace")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def parse_agf(text: str, source: str = "<agf>", name: str = "agf") -> AgfCatalog:
    """An :class:`AgfCatalog` from AGF text (``source`` and the catalog ``name`` for messages)."""
    catalog = AgfCatalog(name=name, path=source)
    record, last = None, None  # the record being read and its last numeric key
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words:
            continue
        key = words[0].upper()
        if record is not None and _is_number(words[0]):
            if last in ("CD", "TD", "LD"):  # a continuation line of that record
                values, first = record[last]
                record[last] = (
                    values + _numbers(words, source, number, record["name"], last),
                    first,
                )
            continue
        last = key
        if key == "CC" and not catalog.glasses and record is None:
            catalog.comment = line.strip()[2:].strip()
        elif key == "NM":
            _close(record, catalog, source)
            record = _new_record(words, number, source)
        elif record is not None and key == "ED":
            record["ED"] = _expansion(words[1:])
        elif record is not None and key in ("CD", "TD", "LD"):
            record[key] = (_numbers(words[1:], source, number, record["name"], key), number)
        elif record is not None and key == "GC":
            record["comment"] = line.strip()[2:].strip()
    _close(record, catalog, source)
    if not catalog.glasses:
        raise AgfError(f"{source}: no glass records (NM lines): not an AGF glass catalog")
    return catalog


def _new_record(words, number, source):
    where = f"{source}: line {number}"
    if len(words) < 6:
        raise AgfError(
            f"{where}: NM needs a name, formula, MIL number, nd and vd: {' '.join(words)}"
        )
    name = words[1]
    values = _numbers([words[2], words[4], words[5]], source, number, name, "NM")
    formula = int(values[0]) if values[0] == int(values[0]) else -1
    if formula not in AGF_FORMULA_NAMES:
        raise AgfError(
            f"{where}: glass {name!r}: dispersion formula {words[2]} is not one of OpticStudio's "
            f"1-13 ({', '.join(f'{k} {v}' for k, v in AGF_FORMULA_NAMES.items())})"
        )
    status = _numbers(words[7:8] or ["0"], source, number, name, "NM")[0]
    return {
        "name": name,
        "formula": formula,
        "mil": words[3],
        "nd": values[1],
        "vd": values[2],
        "status": int(status),
        "line": number,
    }


def _numbers(words, source, number, name, key):
    try:
        values = [float(w) for w in words]
    except ValueError:
        raise AgfError(
            f"{source}: line {number}: glass {name!r}: {key} values must be numbers: "
            f"{' '.join(words)}"
        ) from None
    if not all(math.isfinite(v) for v in values):
        raise AgfError(f"{source}: line {number}: glass {name!r}: {key} values must be finite")
    return values


def _is_number(word):
    try:
        float(word)
    except ValueError:
        return False
    return True


def _expansion(words):
    """α (1/K) of an ED line's first value (1e-6/K); None when missing, 0 or unreadable:
    the thermal expansion is informative, so a bad ED line never stops the catalog."""
    try:
        value = float(words[0]) * 1e-6
    except (IndexError, ValueError):
        return None
    return value if math.isfinite(value) and value != 0.0 else None


def _close(record, catalog, source):
    """Add a finished NM record to the catalog."""
    if record is None:
        return
    name, line = record["name"], record["line"]
    if "CD" not in record:
        raise AgfError(f"{source}: line {line}: glass {name!r} has no CD (dispersion) line")
    values, cd_line = record["CD"]
    needed = COEFFICIENT_COUNTS[record["formula"]]
    if len(values) < needed:
        raise AgfError(
            f"{source}: line {cd_line}: glass {name!r}: CD has {len(values)} value(s); formula "
            f"{record['formula']} ({AGF_FORMULA_NAMES[record['formula']]}) needs {needed}"
        )
    coefficients = tuple(values)
    while coefficients and coefficients[-1] == 0.0:
        coefficients = coefficients[:-1]
    thermal = None
    if "TD" in record:
        td = record["TD"][0] + [0.0] * max(0, 7 - len(record["TD"][0]))
        reference = td[6] if len(record["TD"][0]) >= 7 else None
        thermal = ThermalData(*td[:6], reference_temperature=reference)
    expansion = record.get("ED")
    valid = None
    if "LD" in record and len(record["LD"][0]) >= 2:
        low, high = record["LD"][0][:2]
        if not 0 < low < high:
            raise AgfError(
                f"{source}: line {record['LD'][1]}: glass {name!r}: LD wavelength range "
                f"{low:g} {high:g} must be 0 < min < max (µm)"
            )
        valid = (low, high)
    glass = AgfGlass(
        name=name,
        formula=record["formula"],
        nd=record["nd"],
        vd=record["vd"],
        status=record["status"],
        coefficients=coefficients,
        thermal=thermal,
        wavelength_range=valid,
        expansion=expansion,
        mil=record["mil"],
        comment=record.get("comment", ""),
        line=line,
    )
    _check_real_index(glass, source, cd_line)
    catalog.glasses.setdefault(name, glass)


def _check_real_index(glass, source, cd_line):
    """AgfError when the coefficients give n² <= 0 (or no number) in the glass's range."""
    low, high = glass.wavelength_range or (0.35, 2.5)
    lines = [w for w in CHECK_WAVELENGTHS if glass.wavelength_range is None or low <= w <= high]
    wavelengths = lines + list(np.linspace(low, high, CHECK_POINTS))
    with be.using("numpy", precision="float64"), np.errstate(all="ignore"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            n = np.asarray(evaluate(glass.dispersion(glass.name), np.asarray(wavelengths)))
    bad = [w for w, value in zip(wavelengths, n) if not (np.isfinite(value) and value > 0)]
    if bad:
        raise AgfError(
            f"{source}: line {cd_line}: glass {glass.name!r}: the CD coefficients give no real "
            f"index (n² <= 0) at {bad[0]:g} µm, inside its wavelength range"
        )


def add_glass_catalog(path, name: str | None = None) -> AgfCatalog:
    """Read an AGF file and search its glasses before the built-in catalogs.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.agf`` file.
    name : str, optional
        Catalog name (default: the file name without extension, lower case, so that
        ``SCHOTT.AGF`` is searched as catalog ``schott`` and a .zmx file's ``GCAT SCHOTT``
        finds it first).

    Returns
    -------
    AgfCatalog

    Raises
    ------
    AgfError
        The file cannot be read or has a bad record.
    """
    catalog = read_agf(path)
    if name:
        catalog.name = name.strip().lower()
    glasses = {
        glass.name: glass.dispersion(
            f"{catalog.name} {glass.name}", f"AGF {catalog.path}, line {glass.line}"
        )
        for glass in catalog.glasses.values()
    }
    _glass_catalog.register_catalog(catalog.name, glasses)
    return catalog


_ENVIRONMENT_READ: dict = {}


def load_environment_catalogs() -> tuple:
    """Add the AGF files listed in ``OPTICS_GLASS_CATALOGS`` (once per value); their names.

    Runs whenever the glass catalogs are indexed (this module adds it to
    :data:`optics._glass_catalog.CATALOG_HOOKS` when imported: the .zmx reader and the
    command line import it).
    """
    value = os.environ.get(ENVIRONMENT_VARIABLE, "")
    if _ENVIRONMENT_READ.get("value") == value:
        return _ENVIRONMENT_READ.get("names", ())
    names = []
    for item in (p for p in value.split(os.pathsep) if p.strip()):
        try:
            names.append(add_glass_catalog(item.strip()).name)
        except AgfError as err:
            raise AgfError(f"{ENVIRONMENT_VARIABLE}: {err}") from None
    _ENVIRONMENT_READ.update(value=value, names=tuple(names))
    return tuple(names)


if load_environment_catalogs not in _glass_catalog.CATALOG_HOOKS:
    _glass_catalog.CATALOG_HOOKS.append(load_environment_catalogs)
