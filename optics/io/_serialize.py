"""An Optic to lens-file data: the dictionary that TOML and JSON files hold.

The output is canonical: keys at their default value are left out (surface
type "standard", thickness 0 after the object, material "air", a geometry's
own defaults such as ``radius = inf``), numbers are plain Python ints and
floats exactly as stored (tensors are detached), and field values are written
as y values when the file had them so.
"""

from __future__ import annotations

import copy
import functools
import numbers
from collections.abc import Mapping

from .. import backend as be
from ..errors import OpticsError
from ._environment import environment_to_table
from ._polarization import polarization_to_table
from ._schema import DEFAULT_SURFACE_TYPE


def optic_to_dict(optic) -> dict:
    """Lens-file data for an optic.

    Parameters
    ----------
    optic : Optic

    Returns
    -------
    dict
        ``name`` (when set), ``aperture``, ``fields``, ``wavelengths``,
        ``surfaces`` and ``optimize`` (when set, deep-copied) as in
        docs/lens-files.md; :func:`optic_from_dict` turns it back into an
        equal optic.
    """
    data = {}
    if optic.name:
        data["name"] = optic.name
    data["aperture"] = {"type": optic.aperture.type, "value": plain(optic.aperture.value)}
    data["fields"] = {"type": optic.fields.type, "values": _field_values(optic.fields)}
    if optic.fields.object_telecentric:
        data["fields"]["object_telecentric"] = True
    if optic.fields.weights is not None:
        data["fields"]["weights"] = [plain(w) for w in optic.fields.weights]
    data["wavelengths"] = {
        "values": [plain(w) for w in optic.wavelengths.values],
        "primary": int(optic.wavelengths.primary),
    }
    if optic.wavelengths.weights is not None:
        data["wavelengths"]["weights"] = [plain(w) for w in optic.wavelengths.weights]
    coatings, coating_names = _coatings(optic.surfaces)
    if coatings:
        data["coatings"] = coatings
    data["surfaces"] = [_surface(surface, i) for i, surface in enumerate(optic.surfaces)]
    for spec, name in zip(data["surfaces"], coating_names):
        if name is not None:
            spec["coating"] = name
    for solve in getattr(optic, "solves", None) or ():
        kind = "pickup" if solve.type == "pickup" else "solve"
        data["surfaces"][solve.surface].setdefault(kind, {})[solve.parameter] = solve.to_spec()
    if optic.aiming != "paraxial":
        data["aiming"] = {"mode": optic.aiming}
    if optic.optimize is not None:
        data["optimize"] = plain_tree(copy.deepcopy(optic.optimize))
    if optic.tolerance is not None:
        data["tolerance"] = plain_tree(copy.deepcopy(optic.tolerance))
    if getattr(optic, "environment", None) is not None:
        data["environment"] = environment_to_table(optic.environment)
    if getattr(optic, "polarization", None) is not None:
        data["polarization"] = polarization_to_table(optic.polarization)
    if getattr(optic, "configurations", None) is not None:
        from ._configurations import configurations_to_table

        data["configurations"] = configurations_to_table(optic.configurations)
    return data


def _field_values(fields) -> list:
    """[y, ...] when the file gave y values (or, not known, every x is 0); else [[x, y], ...]."""
    pairs = [(plain(x), plain(y)) for x, y in fields.values]
    y_only = fields.y_only
    if y_only is None:
        y_only = True
    if y_only and all(x == 0 for x, _ in pairs):
        return [y for _, y in pairs]
    return [[x, y] for x, y in pairs]


def _surface(surface, index) -> dict:
    geometry = surface.geometry
    spec = {}
    if geometry.type_name != DEFAULT_SURFACE_TYPE:
        spec["type"] = geometry.type_name
    defaults = _geometry_defaults(type(geometry))
    for key, value in geometry.to_spec().items():
        value = plain_tree(value)
        if key in defaults and _same(value, defaults[key]):
            continue
        spec[key] = value
    thickness = plain(surface.thickness)
    if index == 0 or thickness != 0:
        spec["thickness"] = thickness
    material = surface.material.to_spec()
    if material != "air":
        spec["material"] = plain_tree(material)
    if surface.semi_diameter is not None:
        spec["semi_diameter"] = plain(surface.semi_diameter)
    if surface.decenter is not None:
        spec["decenter"] = [plain(v) for v in surface.decenter]
    if surface.tilt is not None:
        spec["tilt"] = [plain(v) for v in surface.tilt]
    if surface.is_stop:
        spec["stop"] = True
    if surface.aperture is not None:
        spec["aperture"] = plain_tree(surface.aperture.to_spec())
    if surface.obscuration is not None:
        spec["obscuration"] = plain(surface.obscuration)
    return spec


@functools.cache
def _geometry_defaults(cls) -> dict:
    """The spec of a geometry built from no keys, or {} when it has required keys."""
    try:
        return {key: plain_tree(value) for key, value in cls.from_spec({}, "").to_spec().items()}
    except (OpticsError, TypeError, ValueError, LookupError):
        return {}


def _same(a, b) -> bool:
    """Equal lens-file values (inf equals inf; list against list element by element)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def plain(value):
    """A number as a Python int or float: NumPy scalars converted, 0-d tensors detached."""
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if be.is_array(value):
        return float(be.item(value))
    return value


def plain_tree(value):
    """:func:`plain` applied through nested lists, tuples and mappings (tuples become lists)."""
    if isinstance(value, Mapping):
        return {key: plain_tree(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain_tree(v) for v in value]
    return plain(value)


def _coatings(surfaces) -> tuple:
    """:func:`optics.coatings.coatings_to_table`, importing optics.coatings only for a
    lens that has a coating."""
    if all(getattr(surface, "coating", None) is None for surface in surfaces):
        return {}, [None] * len(surfaces)
    from ..coatings import coatings_to_table

    return coatings_to_table(surfaces)
