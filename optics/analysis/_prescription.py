"""The prescription table: one row per surface, as a designer reads a lens.

Surfaces are numbered as in the lens file (the object is 0, the image last).
``radius`` is in mm (``inf`` for a plane; the vertex radius of conics and
aspheres), ``thickness`` the axial distance to the next vertex (mm),
``glass`` the medium after the surface (a catalog glass's name, ``air``,
``mirror``, ``n=…`` or ``nd/vd``) with its source in words
(:func:`optics.materials.material_source`), ``semi_diameter`` the stated
clear semi-aperture (mm; None: none stated), ``conic`` the conic constant
(0 for a sphere) and ``type`` the lens-file surface type.
"""

from __future__ import annotations

import math

from .. import backend as be
from ..materials import Abbe, CatalogGlass, ConstantIndex, Material, material_source
from ..trace.prepared import optic_of, takes_system

__all__ = ["prescription", "prescription_text"]


def _number(value):
    if value is None:
        return None
    value = float(be.item(value))
    return value


def _glass(material):
    if isinstance(getattr(material, "base", None), Material):
        material = material.base  # a thermal wrapper: the glass it wraps
    if isinstance(material, CatalogGlass):
        return material.name
    if isinstance(material, Abbe):
        return f"{_number(material.nd):.6g}/{_number(material.vd):.4g}"
    if isinstance(material, ConstantIndex):
        return f"n={_number(material.value):.6g}"
    spec = material.to_spec()
    return spec if isinstance(spec, str) else str(spec)


def _catalog(material):
    if isinstance(getattr(material, "base", None), Material):
        material = material.base
    return material.catalog if isinstance(material, CatalogGlass) else None


@takes_system
def prescription(system) -> dict:
    """The prescription of a lens as plain data (the ``optics prescription --json`` object).

    Parameters
    ----------
    system : Optic or PreparedSystem

    Returns
    -------
    dict
        ``name``, ``aperture`` ({type, value}), ``fields`` ({type, values,
        unit}), ``wavelengths`` (µm), ``primary`` (µm), ``aiming`` and
        ``surfaces``: one dict per surface with ``surface``, ``type``,
        ``radius``, ``thickness``, ``glass``, ``catalog`` (None unless a
        catalog glass), ``glass_source``,
        ``semi_diameter``, ``conic``, ``stop`` (lengths in mm; None in JSON
        for an infinite radius or thickness).
    """
    optic = optic_of(system)
    rows = []
    for index, surface in enumerate(optic.surfaces):
        geometry = surface.geometry
        radius = getattr(geometry, "radius", math.inf)
        rows.append(
            {
                "surface": index,
                "type": geometry.type_name or type(geometry).__name__,
                "radius": _number(radius),
                "thickness": _number(surface.thickness) if index < len(optic.surfaces) - 1 else 0.0,
                "glass": _glass(surface.material),
                "catalog": _catalog(surface.material),
                "glass_source": material_source(surface.material) or "",
                "semi_diameter": _number(surface.semi_diameter),
                "conic": _number(getattr(geometry, "conic", 0.0)),
                "stop": index == optic.stop_index,
            }
        )
    fields = optic.fields
    return {
        "name": optic.name,
        "aperture": {"type": optic.aperture.type, "value": _number(optic.aperture.value)},
        "fields": {
            "type": fields.type,
            "unit": "deg" if fields.type == "angle" else "mm",
            "values": [[_number(x), _number(y)] for x, y in fields.values],
        },
        "wavelengths": [float(w) for w in optic.wavelengths.values],
        "primary": float(optic.primary_wavelength),
        "aiming": optic.aiming,
        "surfaces": rows,
    }


def _cell(value, digits=6):
    if value is None:
        return "-"
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:.{digits}g}"
    return str(value)


def prescription_text(record) -> str:
    """The prescription table of :func:`prescription`'s record, as text lines.

    Parameters
    ----------
    record : dict
        The dict :func:`prescription` returns (only its ``surfaces`` are read).

    Returns
    -------
    str
        A header row, a rule and one row per surface (columns ``surf``, ``type``,
        ``radius``, ``thickness``, ``glass``, ``semi-diam``, ``conic``,
        ``source``; lengths in mm, ``inf`` for a plane, ``-`` for none stated),
        joined by newlines without a trailing one.
    """
    headers = ["surf", "type", "radius", "thickness", "glass", "semi-diam", "conic", "source"]
    cells = [headers]
    for row in record["surfaces"]:
        label = f"{row['surface']}{' (stop)' if row['stop'] else ''}"
        cells.append(
            [
                label,
                row["type"],
                _cell(row["radius"]),
                _cell(row["thickness"]),
                row["glass"],
                _cell(row["semi_diameter"]),
                _cell(row["conic"]),
                row["glass_source"] if row["glass"] not in ("air", "mirror") else "",
            ]
        )
    widths = [max(len(str(r[i])) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
