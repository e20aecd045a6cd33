"""Lens-file data to .zmx text in the keywords OpticStudio reads (UTF-16 LE with a BOM, CRLF).

Numbers are written with Python's shortest round-trip repr, so reading the
file back gives every float bit for bit.  A radius is written as a curvature
chosen so that 1/curvature is the radius exactly.  A per-surface decenter or
tilt (ours: for that surface alone) becomes four coordinate breaks around the
surface: decenter, tilts (order 1: z, y, x), the surface, the tilts undone,
the decenter undone.
"""

from __future__ import annotations

import codecs
import math
import warnings

from ... import backend as be
from ..._glass_catalog import UnknownGlassError, resolve
from ..._paraxial import paraxial
from ...errors import LensFileError
from ...surfaces import media
from .._serialize import optic_to_dict
from . import _freeforms, _multiconfig
from ._glass import ZemaxWarning, zemax_name
from ._solves import curvature_line, thickness_lines

_HEADER = ("VERS 190513 80 123457 L123457", "MODE SEQ")
_FIELD_CODES = {"angle": 0, "object_height": 1, "paraxial_image_height": 2, "real_image_height": 3}


def dumps(optic, source="<optic>") -> str:
    """The .zmx text of an Optic (str; :func:`encode` gives the bytes to write)."""
    data = optic_to_dict(optic)
    if data.get("optimize"):
        warnings.warn(
            f"{source}: the [optimize] section has no .zmx form and is not written",
            ZemaxWarning,
            stacklevel=2,
        )
    lines = list(_HEADER)
    if data.get("name"):
        lines.append(f"NAME {data['name']}")
    lines.append("UNIT MM X W X CM MR CPMM")
    lines.append(_aperture(optic, data["aperture"], source))
    aiming = data.get("aiming", {}).get("mode", "paraxial")
    lines.append(f"RAIM 0 {2 if aiming == 'real' else 0} 1 1 0 0 0 0 0")
    if data.get("environment"):
        lines.append(_environment(data["environment"], source))
    data["surfaces"] = [_zemax_glass(spec) for spec in data["surfaces"]]
    catalogs = _catalogs(data["surfaces"], source)
    if catalogs:
        lines.append("GCAT " + " ".join(c.upper() for c in catalogs))
    lines += _fields(data["fields"], len(data["wavelengths"]["values"]))
    lines += _vignetting(optic.fields.vignetting)
    stop = optic.stop_index if data["aperture"]["type"] == "stop_diameter" else None
    waves = data["wavelengths"]
    weights = waves.get("weights") or [1] * len(waves["values"])
    for i, (value, weight) in enumerate(zip(waves["values"], weights), start=1):
        lines.append(f"WAVM {i} {_num(value)} {_num(weight)}")
    lines.append(f"PWAV {data['wavelengths']['primary'] + 1}")
    number, numbers = 0, []
    for spec in data["surfaces"]:  # SURF number of each of our surfaces (pickups name them)
        numbers.append(number + (2 if _own_frame(spec) else 0))
        number += 5 if _own_frame(spec) else 1
    number = 0
    for index, spec in enumerate(data["surfaces"]):
        if index == stop:  # FLOA: the stop's DIAM is half the stop diameter
            spec = dict(spec, stop=True, stop_semi_diameter=data["aperture"]["value"] / 2.0)
        blocks = _surface_blocks(spec, index, len(data["surfaces"]) - 1, source, numbers)
        for block in blocks:
            lines.append(f"SURF {number}")
            lines += ["  " + line for line in block]
            number += 1
    if optic.configurations is not None:
        if number != len(data["surfaces"]):
            raise LensFileError(
                f"{source}: configurations cannot be written to .zmx for a lens whose tilts "
                "or decenters become coordinate breaks (the surface numbers would shift)"
            )
        lines += _multiconfig.configuration_lines(optic, source)
    return "\r\n".join(lines) + "\r\n"


def _environment(table, source) -> str:
    """The ENVD line (temperature °C, pressure atm, indices adjusted) of ``[environment]``."""
    if {"mount_cte", "cte", "mirror_cte"} & set(table):
        warnings.warn(
            f"{source}: [environment] mount_cte, cte and mirror_cte have no .zmx form here "
            "and are not written (OpticStudio keeps expansion in per-surface TCE values)",
            ZemaxWarning,
            stacklevel=3,
        )
    return f"ENVD {_num(table['temperature'])} {_num(table['pressure'])} 1"


def encode(text: str) -> bytes:
    """UTF-16 little-endian bytes with a byte-order mark, as OpticStudio writes."""
    return codecs.BOM_UTF16_LE + text.encode("utf-16-le")


def _num(value) -> str:
    if math.isinf(value):
        return "INFINITY" if value > 0 else "-INFINITY"
    return repr(float(value))


def curvature_for(radius) -> float:
    """A float c with 1/c == radius exactly when one lies within a few ulps of 1/radius."""
    if math.isinf(radius):
        return 0.0
    c = 1.0 / radius
    candidates = [c]
    up = down = c
    for _ in range(4):
        up, down = math.nextafter(up, math.inf), math.nextafter(down, -math.inf)
        candidates += [up, down]
    for candidate in candidates:
        if 1.0 / candidate == radius:
            return candidate
    return c


def _aperture(optic, aperture, source):
    kind, value = aperture["type"], aperture["value"]
    if kind == "stop_diameter":
        return "FLOA"
    if kind == "epd":
        return f"ENPD {_num(value)}"
    if kind == "object_na":
        return f"OBNA {_num(value)} 0"
    medium = media(optic.surfaces)[-2][0]
    in_air = float(medium.index(be.asarray(optic.primary_wavelength))) == 1.0
    if optic.object_at_infinity and in_air:  # there OpticStudio's FNUM is ours
        return f"FNUM {_num(value)} 0"
    # Elsewhere our F/# (1 / 2|n'u'|) is not OpticStudio's EFL / EPD: write the EPD.
    return f"ENPD {_num(float(paraxial(optic).epd))}"


def _catalogs(surfaces, source) -> list:
    """The GCAT order that resolves every glass to its own catalog.

    A reader takes a name from the first GCAT catalog that has it, so a glass's
    catalog must come before every other used catalog holding the same name.
    """
    used, glasses = [], {}
    for index, spec in enumerate(surfaces):
        material = spec.get("material")
        if isinstance(material, str) and material not in ("air", "mirror"):
            material = dict(zip(("name", "catalog"), resolve(material)))
        if not isinstance(material, dict) or "name" not in material:
            continue
        name, catalog = material["name"], material.get("catalog") or resolve(material["name"])[1]
        if glasses.setdefault(name.upper(), (catalog, index))[0] != catalog:
            raise LensFileError(
                f"{source}: surface {index}: glass {name} of catalog {catalog} and of catalog "
                f"{glasses[name.upper()][0]} in one lens cannot both be written to a .zmx file"
            )
        if catalog not in used:
            used.append(catalog)
    before = {c: set() for c in used}  # before[c]: catalogs that must precede c
    for name, (catalog, _) in glasses.items():
        for other in used:
            if other != catalog and _has(other, name):
                before[other].add(catalog)
    order = []
    while len(order) < len(used):
        ready = [c for c in used if c not in order and before[c] <= set(order)]
        if not ready:
            raise LensFileError(
                f"{source}: the glasses' catalogs shadow each other both ways; no GCAT "
                "order resolves every glass name to its own catalog"
            )
        order.append(ready[0])
    return order


def _zemax_glass(spec):
    """The surface spec with a database glass that stands in for an OpticStudio one renamed.

    ``fused_silica/Malitson`` (glass) is written as F_SILICA of OpticStudio's MISC
    catalog, which the reader maps back to it (``_glass.SUBSTITUTES``).
    """
    material = spec.get("material")
    if isinstance(material, str) and material not in ("air", "mirror"):
        material = dict(zip(("name", "catalog"), resolve(material)))
    if not isinstance(material, dict) or "catalog" not in material:
        return spec
    renamed = zemax_name(material["name"], material["catalog"])
    if renamed is None:
        return spec
    return dict(spec, material=dict(zip(("name", "catalog"), renamed)))


def _has(catalog, name) -> bool:
    try:
        found, _ = resolve(name, catalog)
    except UnknownGlassError:
        return False
    return found.upper() == name


def _fields(fields, wavelength_count) -> list:
    values = fields["values"]
    pairs = [(0.0, v) if not isinstance(v, list) else tuple(v) for v in values]
    code = _FIELD_CODES[fields["type"]]
    telecentric = 1 if fields.get("object_telecentric") else 0
    return [
        f"FTYP {code} {telecentric} {len(pairs)} {wavelength_count} 0 0 0",
        "XFLN " + " ".join(_num(x) for x, _ in pairs),
        "YFLN " + " ".join(_num(y) for _, y in pairs),
        "FWGN " + " ".join(_num(w) for w in fields.get("weights") or [1] * len(pairs)),
    ]


def _vignetting(vignetting) -> list:
    """VDXN, VDYN, VCXN, VCYN lines of the fields' vignetting factors (none when absent)."""
    if vignetting is None or vignetting.is_zero:
        return []
    return [
        f"{keyword} " + " ".join(_num(v) for v in column)
        for keyword, column in zip(("VDXN", "VDYN", "VCXN", "VCYN"), vignetting.columns())
    ]


def _own_frame(spec) -> bool:
    """True when a surface is written between coordinate breaks (decentred or tilted)."""
    kind = spec.get("type", "standard")
    return kind != "coordinate_break" and ("decenter" in spec or "tilt" in spec)


def _surface_blocks(spec, index, last, source, numbers=None) -> list:
    """The SURF blocks (lists of lines) of one of our surfaces: one, or five when tilted."""
    where = f"{source}: surface {index}"
    kind = spec.get("type", "standard")
    body = _shape(spec, kind, where)
    thickness = spec.get("thickness", 0.0)
    own_frame = _own_frame(spec)
    solved = ("solve" in spec or "pickup" in spec) and numbers is not None
    if solved:
        body = [
            curvature_line(line.split()[1], spec, numbers, where)
            if line.startswith("CURV ")
            else line
            for line in body
        ]
    body.append(f"DISZ {_num(0.0 if own_frame else thickness)}")
    if solved and not own_frame:
        body += thickness_lines(spec, numbers, where)
    body += _material(spec.get("material", "air"), where)
    body += _clear_aperture(spec, where)
    if spec.get("stop"):
        body.insert(0, "STOP")
    if not own_frame:
        return [body]
    dx, dy = spec.get("decenter", [0.0, 0.0])
    rx, ry, rz = spec.get("tilt", [0.0, 0.0, 0.0])
    return [
        _break(dx, dy, 0.0, 0.0, 0.0, 0, 0.0),
        _break(0.0, 0.0, rx, ry, rz, 1, 0.0),
        body,
        _break(0.0, 0.0, -rx, -ry, -rz, 0, 0.0),
        _break(-dx, -dy, 0.0, 0.0, 0.0, 0, thickness),
    ]


def _clear_aperture(spec, where) -> list:
    """DIAM and the one aperture line (CLAP, SQAP, ELAP or OBSC, with OBDC) of a surface.

    A semi-diameter with an obscuration is the annulus CLAP obscuration semi-diameter.
    """
    sd, obscuration = spec.get("semi_diameter"), spec.get("obscuration")
    aperture = spec.get("aperture")
    diam = spec.get("stop_semi_diameter", sd)
    lines = [] if diam is None else [f'DIAM {_num(diam)} 1 0 0 1 ""']
    if aperture is None:
        if sd is None:
            return lines + ([] if obscuration is None else [f"OBSC 0 {_num(obscuration)} 0"])
        return lines + [f"CLAP {_num(obscuration or 0.0)} {_num(sd)} 0"]
    shape = aperture["shape"]
    if obscuration is not None and (shape != "circle" or "decenter" in aperture):
        raise LensFileError(
            f"{where}: an obscuration with a {shape} aperture"
            f"{' (decentered)' if 'decenter' in aperture else ''} has no .zmx form "
            "(one aperture per surface)"
        )
    if shape == "circle":
        lines.append(f"CLAP {_num(obscuration or 0.0)} {_num(aperture['radius'])} 0")
    elif shape == "annulus":
        lines.append(f"CLAP {_num(aperture['inner'])} {_num(aperture['outer'])} 0")
    else:
        keyword = "SQAP" if shape == "rectangle" else "ELAP"
        lines.append(f"{keyword} {_num(aperture['half_x'])} {_num(aperture['half_y'])} 0")
    if "decenter" in aperture:
        dx, dy = aperture["decenter"]
        lines.append(f"OBDC {_num(dx)} {_num(dy)}")
    return lines


def _break(dx, dy, rx, ry, rz, order, thickness) -> list:
    values = (dx, dy, rx, ry, rz, order)
    lines = ["TYPE COORDBRK", 'CURV 0.0 0 0 0 0 ""']
    lines += [f"PARM {i} {_num(v)}" for i, v in enumerate(values, start=1)]
    return lines + [f"DISZ {_num(thickness)}"]


def _shape(spec, kind, where) -> list:
    lines = []
    radius = spec.get("radius", math.inf)
    conic = spec.get("conic", 0.0)
    params: list = []
    if kind == "standard":
        lines.append("TYPE STANDARD")
    elif kind in ("even_asphere", "odd_asphere"):
        lines.append("TYPE EVENASPH" if kind == "even_asphere" else "TYPE ODDASPH")
        params = list(spec.get("coefficients", []))
        if len(params) > 8:
            raise LensFileError(f"{where}: {kind} with {len(params)} coefficients (8 fit a .zmx)")
    elif kind == "toroidal":
        lines.append("TYPE TOROIDAL")
        rotation = spec.get("radius_rotation", math.inf)
        params = [0.0 if math.isinf(rotation) else rotation] + list(spec.get("coefficients", []))
        if len(params) > 8:
            raise LensFileError(f"{where}: toroidal with more than 7 coefficients")
    elif kind == "biconic":
        lines.append("TYPE BICONICX")
        radius_x = spec.get("radius_x", math.inf)
        params = [0.0 if math.isinf(radius_x) else radius_x, spec.get("conic_x", 0.0)]
    elif kind == "coordinate_break":
        lines.append("TYPE COORDBRK")
        dx, dy = spec.get("decenter", [0.0, 0.0])
        rx, ry, rz = spec.get("tilt", [0.0, 0.0, 0.0])
        params = [dx, dy, rx, ry, rz, spec.get("order", 0)]
    elif kind == "paraxial":
        lines.append("TYPE PARAXIAL")
        params = [spec["focal_length"], 0.0]
    elif kind == "grating":
        lines.append("TYPE DGRATING")
        params = [spec["lines_per_um"], spec.get("order", 1)]
    elif kind in ("radial_phase", "even_asphere_phase"):
        return _binary_2(spec, radius, conic, where)
    elif kind in ("xy_polynomial", "zernike", "qbfs"):
        return _extra_data_shape(spec, kind, where, radius, conic)
    else:
        raise LensFileError(f"{where}: surface type {kind!r} has no .zmx equivalent optics writes")
    lines.append(f'CURV {_num(curvature_for(radius))} 0 0 0 0 ""')
    if conic != 0:
        lines.append(f"CONI {_num(conic)}")
    lines += [f"PARM {i} {_num(v)}" for i, v in enumerate(params, start=1)]
    return lines


def _binary_2(spec, radius, conic, where) -> list:
    """BINARY_2: the order in PARM 0, the sag's terms in PARM 1..8, the phase in XDAT."""
    lines = ["TYPE BINARY_2", f'CURV {_num(curvature_for(radius))} 0 0 0 0 ""']
    if conic != 0:
        lines.append(f"CONI {_num(conic)}")
    sag = list(spec.get("coefficients", []))
    if len(sag) > 8:
        raise LensFileError(f"{where}: even_asphere_phase with {len(sag)} coefficients (8 fit)")
    lines.append(f"PARM 0 {_num(spec.get('order', 1))}")
    lines += [f"PARM {i} {_num(v)}" for i, v in enumerate(sag, start=1)]
    values = list(spec.get("phase_coefficients", []))
    extra = [float(len(values)), spec.get("norm_radius", 1.0), *values]
    return lines + [f'XDAT {i} {_num(v)} 0 0 1 0 0 ""' for i, v in enumerate(extra, start=1)]


def _extra_data_shape(spec, kind, where, radius, conic) -> list:
    """XPOLYNOM (norm radius 1) or SZERNSAG/FZERNSAG lines."""
    if kind == "qbfs":
        lines = ["TYPE QED_TYPE", f'CURV {_num(curvature_for(radius))} 0 0 0 0 ""']
        if conic != 0:
            lines.append(f"CONI {_num(conic)}")
        extra = _freeforms.q_type_xdat(spec)
        return lines + [f'XDAT {i} {_num(v)} 0 0 1 0 0 ""' for i, v in enumerate(extra, start=1)]
    if kind == "xy_polynomial":
        lines = ["TYPE XPOLYNOM"]
        values = _freeforms.polynomial_terms(spec["coefficients"], where)
        norm = 1.0
    else:
        fringe = spec.get("ordering", "noll") == "fringe"
        lines = ["TYPE FZERNSAG" if fringe else "TYPE SZERNSAG"]
        values, norm = list(spec["coefficients"]), spec["norm_radius"]
    lines.append(f'CURV {_num(curvature_for(radius))} 0 0 0 0 ""')
    if conic != 0:
        lines.append(f"CONI {_num(conic)}")
    extra = [float(len(values)), norm, *values]
    return lines + [f'XDAT {i} {_num(v)} 0 0 1 0 0 ""' for i, v in enumerate(extra, start=1)]


def _material(material, where) -> list:
    if material == "air":
        return []
    if material == "mirror":
        return ["GLAS MIRROR 0 0 1.5 40 0 0 0 0 0 0"]
    if isinstance(material, str):
        return [f"GLAS {material} 0 0 0 0 0 0 0 0 0 0"]
    if "name" in material:
        return [f"GLAS {material['name']} 0 0 0 0 0 0 0 0 0 0"]
    if "index" in material:
        return [f"GLAS ___BLANK 1 0 {_num(material['index'])} 0 0 0 0 0 0 0"]
    if "nd" in material:
        return [f"GLAS ___BLANK 1 0 {_num(material['nd'])} {_num(material['vd'])} 0 0 0 0 0 0"]
    raise LensFileError(f"{where}: material {material!r} cannot be written to a .zmx file")
