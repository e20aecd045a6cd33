"""Lens-file data (the dictionary a TOML or JSON file parses to) to an Optic, key by key.

Every check names where the bad value is — the file, the section or the
surface index, and the key — so that a user can fix the file from the message
alone.  The schema is documented in docs/lens-files.md.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping

from ..apertures import APERTURE_SHAPES, SHAPE_KEYS, ClearAperture
from ..errors import ConfigurationError, LensFileError, OpticsError
from ..geometry import GEOMETRY_TYPES
from ..materials import material_from_spec
from ..optimize.solves import apply_solves, check_solves
from ..surfaces import Surface
from ..system import (
    AIMING_MODES,
    APERTURE_TYPES,
    FIELD_TYPES,
    Aperture,
    Fields,
    Optic,
    Wavelengths,
)
from ..thermal import with_environment
from ._environment import check_surfaces, environment_from_table
from ._polarization import polarization_from_table
from ._solve_tables import solves_of
from ._values import (
    REQUIRED,
    check_keys,
    choice,
    describe,
    field_pairs,
    finite,
    has_nan,
    is_number,
    real,
    suggest,
    weights,
)

TOP_LEVEL_KEYS = (
    "name",
    "aperture",
    "fields",
    "wavelengths",
    "surfaces",
    "optimize",
    "aiming",
    "tolerance",
    "environment",
    "configurations",
    "coatings",
    "catalogs",
    "polarization",
)
APERTURE_KEYS = ("type", "value")
FIELD_KEYS = ("type", "values", "object_telecentric", "weights")
WAVELENGTH_KEYS = ("values", "primary", "weights")
AIMING_KEYS = ("mode",)
SURFACE_KEYS = (
    "type",
    "thickness",
    "material",
    "semi_diameter",
    "decenter",
    "tilt",
    "stop",
    "aperture",
    "obscuration",
    "solve",
    "pickup",
    "coating",
)
"""Keys every surface type accepts; each geometry type adds its own ``spec_keys``."""

DEFAULT_SURFACE_TYPE = "standard"
MAX_THICKNESS = 1e12
"""Largest finite thickness and decenter, mm (1000 km): beyond, ray squares overflow."""
DEFAULT_WAVELENGTH = 0.5875618  # the helium d line, µm


def optic_from_dict(data, source: str = "<dict>", *, solve: bool = True) -> Optic:
    """Build an Optic from lens-file data.

    Parameters
    ----------
    data : mapping
        The parsed lens file: ``name``, ``aperture``, ``fields``,
        ``wavelengths``, ``surfaces`` and ``optimize`` as in docs/lens-files.md.
        It is not modified; the ``optimize`` table is deep-copied.
    source : str
        Where the data come from (a file name); it starts every error message.
    solve : bool
        Apply the surfaces' solves and pickups (:func:`optics.optimize.apply_solves`)
        to the values read; False keeps the values as given.

    Returns
    -------
    Optic

    Raises
    ------
    LensFileError
        A missing, unknown or wrong key or value; the message names ``source``,
        the section or surface index, and the key.
    """
    if not isinstance(data, Mapping):
        raise LensFileError(f"{source}: a lens file is a table of sections, not {describe(data)}")
    check_keys(data, TOP_LEVEL_KEYS, source, what="top-level key")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise LensFileError(f"{source}: key 'name' must be a string, not {describe(name)}")
    aperture = _aperture(_section(data, "aperture", source, required=True), f"{source}: aperture")
    fields = _fields(_section(data, "fields", source), f"{source}: fields")
    wavelengths = _wavelengths(_section(data, "wavelengths", source), f"{source}: wavelengths")
    coatings = _coatings(data, source, wavelengths)
    catalogs = _catalogs(data.get("catalogs", []), f"{source}: catalogs")
    surfaces = _surfaces(data.get("surfaces"), source, coatings, catalogs)
    _check_finite_conjugate(aperture, fields, surfaces, source)
    aiming = _aiming(_section(data, "aiming", source), f"{source}: aiming")
    optimize = data.get("optimize")
    if optimize is not None:
        if not isinstance(optimize, Mapping):
            raise LensFileError(f"{source}: [optimize] must be a table, not {describe(optimize)}")
        optimize = copy.deepcopy(dict(optimize))
    tolerance = data.get("tolerance")
    if tolerance is not None:  # checked key by key by optics.tolerance.read_section
        if not isinstance(tolerance, Mapping):
            raise LensFileError(f"{source}: [tolerance] must be a table, not {describe(tolerance)}")
        tolerance = copy.deepcopy(dict(tolerance))
    environment = data.get("environment")
    if environment is not None:
        environment = environment_from_table(environment, f"{source}: [environment]")
        check_surfaces(environment, len(surfaces), f"{source}: [environment]")
    polarization = data.get("polarization")
    if polarization is not None:
        polarization = polarization_from_table(polarization, f"{source}: [polarization]")
    solves = solves_of(data["surfaces"], source)
    try:
        optic = Optic(
            surfaces,
            aperture,
            fields,
            wavelengths,
            name=name,
            optimize=optimize,
            aiming=aiming,
            tolerance=tolerance,
            solves=solves,
            polarization=polarization,
        )
        check_solves(optic, solves, f"{source}: ")
        if solve:
            apply_solves(optic)
    except OpticsError as exc:
        raise LensFileError(f"{source}: {exc}") from exc
    if environment is not None:
        optic = with_environment(optic, environment, where=source)
    configurations = data.get("configurations")
    if configurations is not None:
        from ._configurations import attach_configurations

        attach_configurations(optic, configurations, f"{source}: [configurations]")
    return optic


# --- sections --------------------------------------------------------------------------


def _check_finite_conjugate(aperture, fields, surfaces, source):
    """object_na and object_height need an object at a finite distance: say so at load."""
    if math.isfinite(surfaces[0].thickness):
        return
    needs = (("aperture", aperture.type, "object_na"), ("fields", fields.type, "object_height"))
    for section, kind, finite_only in needs:
        if kind == finite_only:
            raise LensFileError(
                f"{source}: [{section}]: key 'type' = {kind!r} needs an object at a finite "
                "distance, but surface 0 has thickness = inf (give the object distance in mm, "
                f"or use {'epd or image_fno' if section == 'aperture' else 'angle'})"
            )


def _section(data, key, source, required=False):
    value = data.get(key)
    if value is None:
        if required:
            raise LensFileError(f"{source}: missing section [{key}]")
        return None
    if not isinstance(value, Mapping):
        raise LensFileError(f"{source}: [{key}] must be a table, not {describe(value)}")
    return value


def _aperture(table, where) -> Aperture:
    check_keys(table, APERTURE_KEYS, where)
    kind = choice(table, "type", APERTURE_TYPES, where)
    return Aperture(kind, real(table, "value", where, positive=True))


def _fields(table, where) -> Fields:
    if table is None:
        fields = Fields("angle", [(0.0, 0.0)])
        fields.y_only = True
        return fields
    check_keys(table, FIELD_KEYS, where)
    kind = choice(table, "type", FIELD_TYPES, where)
    values = table.get("values", REQUIRED)
    if values is REQUIRED:
        raise LensFileError(f"{where}: missing key 'values'")
    if not isinstance(values, (list, tuple)) or not values:
        raise LensFileError(
            f"{where}: key 'values' must be a non-empty list of y values or of [x, y] pairs, "
            f"not {describe(values)}"
        )
    y_only, pairs = field_pairs(values, where)
    if kind == "angle":
        for i, (x, y) in enumerate(pairs):
            if max(abs(x), abs(y)) >= 90:
                raise LensFileError(
                    f"{where}: key 'values[{i}]': field angles must be under 90 degrees"
                )
    fields = Fields(kind, pairs)
    fields.y_only = y_only  # remembered so that saving writes the same form back
    telecentric = table.get("object_telecentric", False)
    if not isinstance(telecentric, bool):
        raise LensFileError(
            f"{where}: key 'object_telecentric' must be true or false, not {describe(telecentric)}"
        )
    fields.object_telecentric = telecentric
    fields.weights = weights(table, len(pairs), where)
    return fields


def _wavelengths(table, where) -> Wavelengths:
    if table is None:
        return Wavelengths([DEFAULT_WAVELENGTH], 0)
    check_keys(table, WAVELENGTH_KEYS, where)
    values = table.get("values", REQUIRED)
    if values is REQUIRED:
        raise LensFileError(f"{where}: missing key 'values'")
    if not isinstance(values, (list, tuple)) or not values:
        raise LensFileError(f"{where}: key 'values' must be a non-empty list of wavelengths in µm")
    checked = []
    for i, value in enumerate(values):
        if not is_number(value) or not (math.isfinite(value) and value > 0):
            raise LensFileError(
                f"{where}: key 'values[{i}]' must be a positive wavelength in µm, not {value!r}"
            )
        checked.append(value)
    primary = table.get("primary", 0)
    if isinstance(primary, bool) or not isinstance(primary, int):
        raise LensFileError(
            f"{where}: key 'primary' must be an integer index, not {describe(primary)}"
        )
    if not 0 <= primary < len(checked):
        raise LensFileError(
            f"{where}: key 'primary' = {primary} is out of range: it is a 0-based index into "
            f"{len(checked)} wavelength(s), so 0 to {len(checked) - 1}"
        )
    return Wavelengths(checked, primary, weights(table, len(checked), where))


# --- surfaces --------------------------------------------------------------------------


def _coatings(data, source, wavelengths) -> dict:
    """The ``[coatings]`` table's coatings by name; {} without one (optics.coatings is then
    not imported: most lenses have none)."""
    if "coatings" not in data:
        return {}
    from ..coatings import coatings_from_table

    primary = wavelengths.values[wavelengths.primary]
    return coatings_from_table(data["coatings"], source, reference_wavelength=primary)


def _surface_coating(entry, coatings, where):
    """The coating a surface's ``coating`` key names, or None without the key."""
    if "coating" not in entry:
        return None
    from ..coatings import surface_coating

    return surface_coating(entry["coating"], coatings, where)


def _catalogs(value, where) -> tuple:
    """The glass catalogs searched first for a glass named without one (``catalogs`` key)."""
    from .._glass_catalog import UnknownGlassError, catalog_keys

    if not isinstance(value, (list, tuple)) or not all(isinstance(c, str) for c in value):
        raise LensFileError(f"{where}: expected a list of catalog names, not {describe(value)}")
    try:
        return catalog_keys(value)
    except UnknownGlassError as err:
        raise LensFileError(f"{where}: {err}") from None


def _surfaces(entries, source, coatings=None, catalogs=()) -> list:
    if entries is None:
        raise LensFileError(
            f"{source}: missing [[surfaces]]: list the object surface, the lens surfaces "
            "and the image surface"
        )
    if not isinstance(entries, (list, tuple)):
        raise LensFileError(
            f"{source}: 'surfaces' must be an array of tables ([[surfaces]]), "
            f"not {describe(entries)}"
        )
    if len(entries) < 3:
        raise LensFileError(
            f"{source}: [[surfaces]] has {len(entries)} entries; at least 3 are needed "
            "(the object surface, one or more lens surfaces, the image surface)"
        )
    return [_surface(entry, i, source, coatings, catalogs) for i, entry in enumerate(entries)]


def _surface(entry, index, source, coatings=None, catalogs=()) -> Surface:
    where = f"{source}: surface {index}"
    if not isinstance(entry, Mapping):
        raise LensFileError(f"{where}: a surface is a table of keys, not {describe(entry)}")
    kind = entry.get("type", DEFAULT_SURFACE_TYPE)
    if not isinstance(kind, str):
        raise LensFileError(
            f"{where}: key 'type' must be a surface type name, not {describe(kind)}"
        )
    cls = GEOMETRY_TYPES.get(kind)
    if cls is None:
        known = ", ".join(sorted(GEOMETRY_TYPES))
        raise LensFileError(
            f"{where}: unknown surface type {kind!r}{suggest(kind, GEOMETRY_TYPES)}; "
            f"known types: {known}"
        )
    _check_surface_keys(entry, cls, where)
    for key, value in entry.items():
        if has_nan(value):
            raise LensFileError(f"{where}: key '{key}' must not be NaN")
    if index == 0:
        if "thickness" not in entry:
            raise LensFileError(
                f"{where} (object): missing key 'thickness' (the object distance in mm; "
                "inf for an object at infinity)"
            )
        thickness = real(entry, "thickness", f"{where} (object)", allow_inf=True)
        if thickness == -math.inf:
            raise LensFileError(
                f"{where} (object): key 'thickness' must be finite or inf, not -inf"
            )
    else:
        thickness = real(entry, "thickness", where, default=0.0)
    if math.isfinite(thickness) and abs(thickness) > MAX_THICKNESS:
        raise LensFileError(
            f"{where}: key 'thickness' = {thickness!r} mm is beyond the ±{MAX_THICKNESS:g} mm "
            "that a trace can carry; use inf for an object at infinity"
        )
    semi_diameter = entry.get("semi_diameter")
    if semi_diameter is not None:
        semi_diameter = real(entry, "semi_diameter", where, positive=True)
    stop = entry.get("stop", False)
    if not isinstance(stop, bool):
        raise LensFileError(f"{where}: key 'stop' must be true or false, not {describe(stop)}")
    obscuration = entry.get("obscuration")
    if obscuration is not None:
        obscuration = real(entry, "obscuration", where, positive=True)
    return Surface(
        aperture=_clear_aperture(entry.get("aperture"), where),
        obscuration=obscuration,
        geometry=_geometry(cls, entry, where),
        thickness=thickness,
        material=material_from_spec(entry.get("material", "air"), where=where, catalogs=catalogs),
        semi_diameter=semi_diameter,
        decenter=_vector(entry, "decenter", 2, where),
        tilt=_vector(entry, "tilt", 3, where),
        is_stop=stop,
        coating=_surface_coating(entry, coatings, where),
    )


def _aiming(table, where) -> str:
    if table is None:
        return "paraxial"
    check_keys(table, AIMING_KEYS, where)
    return choice(table, "mode", AIMING_MODES, where)


def _clear_aperture(table, where):
    """A surface's ``aperture`` table as a ClearAperture (None when absent)."""
    if table is None:
        return None
    where = f"{where}: aperture"
    if not isinstance(table, Mapping):
        raise LensFileError(f"{where} must be a table, not {describe(table)}")
    shape = choice(table, "shape", APERTURE_SHAPES, where)
    check_keys(table, ("shape", "decenter") + SHAPE_KEYS[shape], where)
    sizes = tuple(real(table, key, where, positive=key != "inner") for key in SHAPE_KEYS[shape])
    decenter = _vector(table, "decenter", 2, where) or (0.0, 0.0)
    try:
        return ClearAperture(shape, sizes, decenter)
    except ConfigurationError as exc:
        raise LensFileError(f"{where}: {exc}") from exc


def _check_surface_keys(entry, cls, where):
    allowed = tuple(cls.spec_keys) + SURFACE_KEYS
    for key in entry:
        if key in allowed:
            continue
        hint = suggest(key, allowed)
        if not hint:
            owners = sorted(
                name for name, other in GEOMETRY_TYPES.items() if key in other.spec_keys
            )
            if owners:
                kinds = "type" if len(owners) == 1 else "types"
                hint = f" (a key of {kinds} {', '.join(map(repr, owners))})"
            else:
                hint = f"; keys for type {cls.type_name!r}: {', '.join(allowed)}"
        raise LensFileError(f"{where}: unknown key {key!r} for type {cls.type_name!r}{hint}")


def _geometry(cls, entry, where):
    """The geometry from its own keys; a failure deep inside still names the surface."""
    spec = {key: entry[key] for key in cls.spec_keys if key in entry}
    try:
        return cls.from_spec(spec, where)
    except LensFileError:
        raise
    except (OpticsError, TypeError, ValueError, ArithmeticError, LookupError) as exc:
        keys = ", ".join(map(repr, spec)) or "(none)"
        raise LensFileError(
            f"{where}: bad value for type {cls.type_name!r} (keys {keys}): {exc}"
        ) from exc


def _vector(entry, key, length, where):
    value = entry.get(key)
    if value is None:
        return None
    if (
        not isinstance(value, (list, tuple))
        or len(value) != length
        or not all(map(is_number, value))
    ):
        unit = "[dx, dy] in mm" if length == 2 else "[rx, ry, rz] in degrees"
        raise LensFileError(f"{where}: key '{key}' must be a list {unit}, not {value!r}")
    values = tuple(finite(v, key, where) for v in value)
    if length == 2 and any(abs(v) > MAX_THICKNESS for v in values):
        raise LensFileError(
            f"{where}: key '{key}' = {list(values)!r} mm is beyond the ±{MAX_THICKNESS:g} mm "
            "that a trace can carry"
        )
    return values
