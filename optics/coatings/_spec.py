"""Lens-file values for coatings: the ``[coatings]`` table and a surface's ``coating`` key.

::

    [coatings.AR2]
    reference_wavelength = 0.55          # µm; default: the lens's primary wavelength
    layers = [
        { material = "MgF2", thickness = 1, unit = "qw" },      # a quarter wave
        { material = { index = 2.05, k = 0.001 }, thickness = 120.0 },  # nm (default unit)
    ]

    [coatings.SPLITTER]
    R = 0.5
    T = 0.5

    [[surfaces]]
    coating = "AR2"

docs/coatings.md describes every key.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

from ..errors import LensFileError, OpticsError
from ..materials import material_from_spec
from ._films import ORDERS, UNITS, Coating, Layer
from ._ideal import IdealCoating
from ._media import ComplexIndex, TabulatedIndex

__all__ = [
    "coating_from_spec",
    "coating_to_spec",
    "coatings_from_table",
    "coatings_to_table",
    "surface_coating",
]

STACK_KEYS = ("layers", "reference_wavelength", "order")
IDEAL_KEYS = ("R", "T")
LAYER_KEYS = ("material", "thickness", "unit")


def coatings_from_table(table, where="", *, reference_wavelength=None) -> dict:
    """The named coatings of a lens file's ``[coatings]`` table.

    Parameters
    ----------
    table : mapping
        Coating name -> its table (a stack: ``layers``, optional
        ``reference_wavelength`` and ``order``; an ideal coating: ``R``, ``T``).
    where : str
        Where the table comes from (``"lens.toml"``); it starts every message.
    reference_wavelength : float, optional
        µm, for stacks that give none (the lens's primary wavelength).

    Returns
    -------
    dict
        name -> :class:`Coating` or :class:`IdealCoating`.

    Raises
    ------
    LensFileError
        A bad key or value; the message names the coating and the key.
    """
    prefix = f"{where}: " if where else ""
    if not isinstance(table, Mapping):
        raise LensFileError(f"{prefix}[coatings] must be a table of named coatings")
    return {
        name: coating_from_spec(
            spec, f"{prefix}[coatings.{name}]", name=name, reference_wavelength=reference_wavelength
        )
        for name, spec in table.items()
    }


def coating_from_spec(spec, where="coating", *, name=None, reference_wavelength=None):
    """One coating from its lens-file table (see :func:`coatings_from_table`).

    Parameters
    ----------
    spec : mapping
        A stack (``layers``, optional ``reference_wavelength`` in µm and ``order``) or an
        ideal coating (``R``, optional ``T``; T defaults to 1 − R, nothing absorbed).
    where : str
        Where the table comes from (``"lens.toml: [coatings.AR2]"``); it starts every
        message.
    name : str, optional
        The coating's name (kept by writers).
    reference_wavelength : float, optional
        µm, for a stack that gives none; quarter-wave layers (``unit = "qw"``) need one.

    Returns
    -------
    Coating or IdealCoating

    Raises
    ------
    LensFileError
        A bad key or value (including an unknown ``order`` or layer ``unit``); the message
        starts with ``where`` and names the key.
    """
    if not isinstance(spec, Mapping):
        raise LensFileError(f"{where}: a coating is a table (layers = [...], or R and T)")
    keys = set(spec)
    if keys & set(IDEAL_KEYS):
        _check(keys, IDEAL_KEYS, where)
        reflectance = _number(spec, "R", where, default=0.0)
        transmittance = _number(spec, "T", where, default=1.0 - reflectance)  # nothing absorbed
        return _built(where, lambda: IdealCoating(reflectance, transmittance, name=name))
    _check(keys, STACK_KEYS, where)
    reference = spec.get("reference_wavelength", reference_wavelength)
    if "reference_wavelength" in spec:
        reference = _number(spec, "reference_wavelength", where, positive=True)
    order = spec.get("order", ORDERS[0])
    if order not in ORDERS:
        raise LensFileError(
            f"{where}: key 'order' must be one of {', '.join(ORDERS)}, not {order!r}"
        )
    layers = spec.get("layers")
    if not isinstance(layers, (list, tuple)):
        raise LensFileError(f"{where}: key 'layers' must be a list of layer tables")
    built = [_layer(entry, f"{where}: layers[{i}]") for i, entry in enumerate(layers)]
    if reference is None and any(layer.unit == "qw" for layer in built):
        raise LensFileError(f"{where}: quarter-wave layers need key 'reference_wavelength' (µm)")
    return _built(where, lambda: Coating(built, reference, name=name, order=order))


def surface_coating(value, coatings, where):
    """The coating a surface's ``coating = "NAME"`` names (None when absent).

    Parameters
    ----------
    value : str or None
        The surface's ``coating`` key (None: the key is absent).
    coatings : mapping
        Name -> coating, as :func:`coatings_from_table` returns.
    where : str
        Where the surface is (file and surface); it starts every message.

    Returns
    -------
    Coating, IdealCoating or None
        ``coatings[value]``; None when ``value`` is None.

    Raises
    ------
    LensFileError
        When ``value`` is not a string or names no entry of ``coatings``.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise LensFileError(f"{where}: key 'coating' must be the name of a [coatings] entry")
    if value not in coatings:
        known = ", ".join(sorted(coatings)) or "none defined"
        raise LensFileError(f"{where}: coating {value!r} is not in [coatings] ({known})")
    return coatings[value]


def coating_to_spec(coating) -> dict:
    """The lens-file table of a coating (what :func:`coating_from_spec` reads back)."""
    spec = coating.to_spec()
    return {k: _plain_tree(v) for k, v in spec.items()}


def coatings_to_table(surfaces) -> tuple:
    """(``[coatings]`` table, the name of each surface's coating or None) for a writer.

    A coating keeps its ``name``; one without a name, or whose name another
    coating already took, is called ``coating1``, ``coating2`` ... in surface order.

    Parameters
    ----------
    surfaces : sequence of Surface
        The lens's surfaces, object to image (a surface without a ``coating`` attribute
        counts as uncoated).

    Returns
    -------
    table : dict
        Name -> the coating's lens-file table (what :func:`coating_from_spec` reads back);
        a coating object shared by several surfaces appears once.
    names : list of (str or None)
        One per surface: its coating's name in ``table``, None for an uncoated surface.
    """
    table, names, by_id = {}, [], {}
    for surface in surfaces:
        coating = getattr(surface, "coating", None)
        if coating is None:
            names.append(None)
            continue
        if id(coating) not in by_id:
            name = coating.name if isinstance(coating.name, str) and coating.name else None
            count = 1
            while name is None or name in table:
                name, count = f"coating{count}", count + 1
            by_id[id(coating)] = name
            table[name] = coating_to_spec(coating)
        names.append(by_id[id(coating)])
    return table, names


def _layer(entry, where) -> Layer:
    if not isinstance(entry, Mapping):
        raise LensFileError(f"{where}: a layer is a table {{ material, thickness, unit }}")
    _check(set(entry), LAYER_KEYS, where)
    for key in ("material", "thickness"):
        if key not in entry:
            raise LensFileError(f"{where}: missing key '{key}'")
    unit = entry.get("unit", "nm")
    if unit not in UNITS:
        raise LensFileError(f"{where}: key 'unit' must be one of {', '.join(UNITS)}, not {unit!r}")
    thickness = _number(entry, "thickness", where)
    return _built(where, lambda: Layer(_material(entry["material"], where), thickness, unit))


def _material(spec, where):
    """A film material: an optics material value, ``{index, k}`` or ``{table = [[λ, n, k]]}``."""
    if isinstance(spec, Mapping) and "k" in spec:
        _check(set(spec), ("index", "k"), f"{where}: material")
        n = _number(spec, "index", f"{where}: material", positive=True)
        return ComplexIndex(n, _number(spec, "k", f"{where}: material"))
    if isinstance(spec, Mapping) and "table" in spec:
        _check(set(spec), ("table", "name"), f"{where}: material")
        rows = spec["table"]
        if not isinstance(rows, (list, tuple)) or not all(
            isinstance(r, (list, tuple)) and len(r) == 3 and all(map(_is_number, r)) for r in rows
        ):
            raise LensFileError(f"{where}: material: key 'table' must be rows [wavelength, n, k]")
        columns = [tuple(float(r[i]) for r in rows) for i in range(3)]
        name = str(spec.get("name", "table"))
        return _built(f"{where}: material", lambda: TabulatedIndex(name, *columns))
    return material_from_spec(spec, where=where)


def _plain_tree(value):
    if isinstance(value, Mapping):
        return {k: _plain_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_tree(v) for v in value]
    return (
        float(value) if isinstance(value, numbers.Real) and not isinstance(value, bool) else value
    )


def _check(keys, allowed, where):
    unknown = sorted(map(str, set(keys) - set(allowed)))
    if unknown:
        raise LensFileError(
            f"{where}: unknown key(s) {', '.join(unknown)}; keys: {', '.join(allowed)}"
        )


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _number(spec, key, where, *, default=None, positive=False):
    value = spec.get(key, default)
    if not _is_number(value) or not math.isfinite(value) or value < 0 or (positive and value == 0):
        need = "a positive" if positive else "a finite, non-negative"
        raise LensFileError(f"{where}: key '{key}' must be {need} number, not {value!r}")
    return float(value)


def _built(where, make):
    """``make()``, its OpticsError turned into a LensFileError that says where."""
    try:
        return make()
    except LensFileError:
        raise
    except OpticsError as exc:
        raise LensFileError(f"{where}: {exc}") from exc
