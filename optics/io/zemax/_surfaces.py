"""SURF blocks to lens-file surface tables: shapes, thicknesses, materials, apertures.

Every length is scaled from the file's unit to mm here (``scale`` mm per file
unit); a coefficient of r^p, whose term is a length, scales by scale^(1 − p).
"""

from __future__ import annotations

import math
import warnings

from ...errors import LensFileError
from . import _freeforms, _glass
from ._glass import ZemaxWarning
from ._solves import read_solves
from ._text import indexed

# TYPE names read, and the ones refused with a reason.
READ_TYPES = (
    "STANDARD",
    "EVENASPH",
    "ODDASPH",
    "TOROIDAL",
    "BICONICX",
    "COORDBRK",
    "PARAXIAL",
    "XPOLYNOM",
    "SZERNSAG",
    "FZERNSAG",
    "QED_TYPE",
    "DGRATING",
    "BINARY_2",
)
_REFUSED = {
    "ELGRATIN": "an elliptical grating",
    "VARLSGRT": "a variable line-space grating",
    "NONSEQCO": "a non-sequential component",
    "USERSURF": "a user-defined surface (a DLL)",
    "GRID_SAG": "a grid sag surface (needs its external data file)",
    "GRIDPHAS": "a grid phase surface (needs its external data file)",
    "BINARY_1": "a binary optic (diffractive phase)",
    "FRESNELS": "a Fresnel surface",
}
_OBSCURATION_WARNINGS = {
    "SQOB": "a rectangular obscuration",
    "ELOB": "an elliptical obscuration",
}


def surface_table(block, context, medium):
    """(lens-file surface table, medium after it) of one SURF block.

    ``medium`` is the lens-file material of the medium before the surface
    (never "mirror"); a coordinate break keeps it.
    """
    where = f"{context.source}: surface {block.number}"
    kind = _type(block, where)
    scale = context.scale
    entry: dict = {}
    is_last = block.number == context.last
    if kind == "COORDBRK":
        entry.update(_coordinate_break(block, where, scale))
    else:
        entry.update(_shape(kind, block, where, scale))
    thickness = _thickness(block, where, scale)
    if block.number == 0:
        entry["thickness"] = thickness
        if entry.get("radius", math.inf) != math.inf:
            raise LensFileError(f"{where} (object): a curved object surface is not supported")
        entry.pop("radius", None)
    elif not is_last and thickness != 0:
        entry["thickness"] = thickness
    if kind == "COORDBRK":
        material = medium
    else:
        record = block.get("GLAS")
        material = (
            "air"
            if record is None
            else _glass.material(
                record, where, context.catalogs, context.glass_fallback, context.substituted
            )
        )
    if material != "air" and block.number != context.last:
        entry["material"] = material
    stop = block.get("STOP")
    if stop is not None:
        if not 0 < block.number < context.last:
            what = "object" if block.number == 0 else "image"
            raise LensFileError(
                f"{where}: line {stop.line}: STOP on the {what} surface: the stop must be one "
                f"of surfaces 1 to {context.last - 1}"
            )
        entry["stop"] = True
    if 0 < block.number < context.last:
        read_solves(block, where, entry, scale)
    if kind != "COORDBRK" and 0 < block.number:
        _apertures(block, where, scale, entry)
        _surface_tilt(block, where, scale, entry, is_last)
    after = medium if material == "mirror" else material
    return entry, after


def semi_diameter(block, where, scale):
    """The DIAM value (a semi-diameter, despite the name) in mm, or None."""
    record = block.get("DIAM")
    if record is None:
        return None
    return record.number(0, where) * scale


def _type(block, where):
    record = block.get("TYPE")
    kind = record.args[0].upper() if record is not None and record.args else "STANDARD"
    if kind in READ_TYPES:
        return kind
    reason = _REFUSED.get(kind, "a surface type optics does not read")
    raise LensFileError(
        f"{where}: surface type {kind} is {reason}; read types: {', '.join(READ_TYPES)}"
    )


#: Highest PARM number of each surface type (the parameters OpticStudio gives it).
PARM_COUNTS = {"COORDBRK": 6, "PARAXIAL": 2, "BICONICX": 16, "DGRATING": 2}
DEFAULT_PARM_COUNT = 8
#: A PARM beyond its type's parameters is tolerated up to this number when it is 0
#: (a writer that fills every parameter column with zeros); beyond, or nonzero, refused.
ZERO_PARM_LIMIT = 24


def _params(block, where, kind="STANDARD") -> dict:
    """{n: value} of the PARM lines (each n once, within the type's parameters)."""
    highest = PARM_COUNTS.get(kind, DEFAULT_PARM_COUNT)
    return indexed(
        block.all("PARM"), where, 0, highest, f"a {kind} surface", zeros_up_to=ZERO_PARM_LIMIT
    )


def _base(block, where, scale) -> dict:
    """radius (mm; omitted for a plane) and conic of the base surface."""
    entry = {}
    record = block.get("CURV")
    curvature = record.number(0, where) if record is not None else 0.0
    if curvature != 0:
        # In mm 1/CURV is exact; a scaled radius is nudged (by an ulp at most) to one
        # that some curvature gives exactly, so that a written file reads back the same.
        entry["radius"] = 1.0 / curvature if scale == 1 else 1.0 / (curvature / scale)
    conic = block.get("CONI")
    if conic is not None and conic.number(0, where) != 0:
        entry["conic"] = conic.number(0, where)
    return entry


def _coefficients(params, first, last, power, scale):
    """PARM first..last as coefficients of r^power(i), scaled, trailing zeros dropped."""
    values = []
    for n in range(first, last + 1):
        p = power(n - first)
        values.append(params.get(n, 0.0) * scale ** (1 - p))
    while values and values[-1] == 0:
        values.pop()
    return values


def _shape(kind, block, where, scale) -> dict:
    entry = _base(block, where, scale)
    params = _params(block, where, kind)
    if kind == "STANDARD":
        return entry
    if kind == "EVENASPH":
        entry["type"] = "even_asphere"
        coefficients = _coefficients(params, 1, 8, lambda i: 2 * (i + 1), scale)
    elif kind == "ODDASPH":
        entry["type"] = "odd_asphere"
        coefficients = _coefficients(params, 1, 8, lambda i: i + 1, scale)
    elif kind == "TOROIDAL":
        entry["type"] = "toroidal"
        _no_zernike(block, where)
        rotation = params.get(1, 0.0)
        if rotation != 0:
            entry["radius_rotation"] = rotation * scale
        coefficients = _coefficients(params, 2, 8, lambda i: 2 * (i + 1), scale)
    elif kind == "BICONICX":
        entry["type"] = "biconic"
        radius_x = params.get(1, 0.0)
        if radius_x != 0:
            entry["radius_x"] = radius_x * scale
        if params.get(2, 0.0) != 0:
            entry["conic_x"] = params[2]
        return entry
    elif kind == "PARAXIAL":
        return _paraxial(params, where, scale)
    elif kind == "DGRATING":
        return _grating(entry, params, block, where)
    elif kind == "BINARY_2":
        return _binary_2(entry, params, block, where, scale)
    elif kind in _freeforms.KINDS:
        return _freeforms.freeform(kind, block, params, where, scale, entry)
    if coefficients:
        entry["coefficients"] = coefficients
    return entry


def _paraxial(params, where, scale):
    focal = params.get(1, 0.0)
    if focal == 0:
        raise LensFileError(f"{where}: PARAXIAL surface with focal length 0 (PARM 1)")
    return {"type": "paraxial", "focal_length": focal * scale}


def _grating(entry, params, block, where):
    """DGRATING: PARM 1 lines per µm (whatever the lens unit), PARM 2 the order."""
    density = params.get(1, 0.0)
    if not density > 0:
        raise LensFileError(
            f"{where}: DGRATING with line density {density:g} per µm (PARM 1): it must be positive"
        )
    _whole_order(params.get(2, 0.0), 2, block, where)
    return {**entry, "type": "grating", "lines_per_um": density, "order": int(params.get(2, 0.0))}


def _binary_2(entry, params, block, where, scale):
    """BINARY_2: PARM 0 the order, PARM 1..8 the even-asphere sag, XDAT 1 the term
    count, XDAT 2 the norm radius, XDAT 3.. the phase's Aᵢ (radians: no unit).
    """
    _whole_order(params.get(0, 0.0), 0, block, where)
    extra = _freeforms.xdat(block, where)
    terms = _freeforms.term_count(block, extra, 1, where)
    norm = extra.get(2, 0.0) * scale
    if not norm > 0:
        raise LensFileError(
            f"{where}: BINARY_2 with normalization radius {extra.get(2, 0.0):g} (XDAT 2): "
            "it must be positive"
        )
    phase = [extra.get(n, 0.0) for n in range(3, 3 + terms)]
    while phase and phase[-1] == 0:
        phase.pop()
    entry = {**entry, "type": "radial_phase"}
    sag = _coefficients(params, 1, 8, lambda i: 2 * (i + 1), scale)
    if sag:
        entry.update(type="even_asphere_phase", coefficients=sag)
    order = int(params.get(0, 0.0))
    return {**entry, "phase_coefficients": phase, "norm_radius": norm, "order": order}


def _whole_order(order, n, block, where):
    if not float(order).is_integer():
        line = next(r.line for r in block.all("PARM") if r.integer(0, where) == n)
        raise LensFileError(
            f"{where}: line {line}: PARM {n} {order:g}: a diffraction order is a whole number"
        )


def _no_zernike(block, where):
    extra = _freeforms.xdat(block, where)
    terms = _freeforms.term_count(block, extra, 1, where)
    if terms and any(extra.get(n, 0.0) != 0 for n in range(3, 3 + terms)):
        raise LensFileError(
            f"{where}: TOROIDAL surface with {terms} Zernike terms (XDAT): the Zernike "
            "departure of a toroid is not supported"
        )


def _coordinate_break(block, where, scale) -> dict:
    """PARM 1, 2 the decenter (lens units: scaled to mm), 3-5 the tilts (degrees), 6 the order."""
    params = _params(block, where, "COORDBRK")
    entry: dict = {"type": "coordinate_break"}
    decenter = [params.get(1, 0.0) * scale, params.get(2, 0.0) * scale]
    tilt = [params.get(3, 0.0), params.get(4, 0.0), params.get(5, 0.0)]
    if any(decenter):
        entry["decenter"] = decenter
    if any(tilt):
        entry["tilt"] = tilt
    order = params.get(6, 0.0)
    if order not in (0.0, 1.0):
        line = next(r.line for r in block.all("PARM") if r.integer(0, where) == 6)
        raise LensFileError(
            f"{where}: line {line}: PARM 6 {order:g}: a coordinate break's order flag is 0 "
            "(decenter, then tilt) or 1 (tilt, then decenter)"
        )
    if order == 1:
        entry["order"] = 1
    return entry


def _thickness(block, where, scale):
    record = block.get("DISZ")
    if record is None:
        return 0.0
    value = record.number(0, where)
    return value if math.isinf(value) else value * scale


def _apertures(block, where, scale, entry):
    """Clear apertures to ``semi_diameter``, ``aperture`` or ``obscuration`` (docs/zemax.md).

    A centred CLAP (or FLAP) is ``semi_diameter``; one with an inner radius is
    an annulus; SQAP a rectangle and ELAP an ellipse (half-widths); OBSC with
    no inner radius a central ``obscuration``.  OBDC decenters the shape.
    """
    decenter = block.get("OBDC")
    shift = [decenter.number(i, where, 0.0) * scale for i in (0, 1)] if decenter else [0.0, 0.0]
    aperture = None
    clap = block.get("CLAP")
    if clap is not None or block.get("FLAP") is not None:
        if clap is not None:
            inner, outer = (clap.number(i, where) * scale for i in (0, 1))
            if inner < 0 or outer < 0 or (inner != 0 and not inner < outer):
                raise LensFileError(
                    f"{where}: line {clap.line}: CLAP {clap.args[0]} {clap.args[1]}: the inner "
                    "radius must be at least 0 and smaller than the outer one"
                )
        else:
            inner, outer = 0.0, semi_diameter(block, where, scale)
        if inner != 0:
            aperture = {"shape": "annulus", "inner": inner, "outer": outer}
        elif outer and any(shift):
            aperture = {"shape": "circle", "radius": outer}
        elif outer:
            entry["semi_diameter"] = outer
    for keyword, shape in (("SQAP", "rectangle"), ("ELAP", "ellipse")):
        record = block.get(keyword)
        if record is not None and aperture is None and "semi_diameter" not in entry:
            half_x, half_y = (record.number(i, where) * scale for i in (0, 1))
            if not (half_x > 0 and half_y > 0):
                raise LensFileError(
                    f"{where}: line {record.line}: {keyword} {record.args[0]} {record.args[1]}: "
                    "the half-widths in x and y must be positive"
                )
            aperture = {"shape": shape, "half_x": half_x, "half_y": half_y}
            _no_extra(record, where, keyword)
    obscuration = block.get("OBSC")
    if obscuration is not None:
        inner, outer = (obscuration.number(i, where) * scale for i in (0, 1))
        if inner == 0 and not any(shift) and outer > 0 and aperture is None:
            entry["obscuration"] = outer
        else:
            values = " ".join(obscuration.args)
            _warn(
                where,
                "OBSC",
                f"the obscuration ({values}) is not applied: optics' obscuration is a centred "
                "disc on a surface without another aperture",
            )
    for keyword, what in _OBSCURATION_WARNINGS.items():
        if block.get(keyword) is not None:
            values = " ".join(block.get(keyword).args)
            _warn(where, keyword, f"{what} ({values}) is not applied: rays are not clipped by it")
    if aperture is not None:
        if any(shift):
            aperture["decenter"] = shift
        entry["aperture"] = aperture


def _no_extra(record, where, keyword):
    """Warn when an aperture line's third value (not read) is nonzero."""
    if len(record.args) > 2 and record.number(2, where, 0.0) != 0:
        _warn(where, keyword, f"the third value {record.args[2]} is not applied")


def _surface_tilt(block, where, scale, entry, is_image):
    """SCBD (a per-surface tilt/decenter): refused, except on the image, where it is kept aside.

    The argument layout of SCBD is not documented publicly; rather than guess
    an axis, a nonzero SCBD is an error on an optical surface and a warning on
    the image surface (rays are reported where they cross the untilted image).
    """
    record = block.get("SCBD")
    if record is None or not any(record.number(i, where, 0.0) for i in range(len(record.args))):
        return
    message = f"surface tilt/decenter (SCBD {' '.join(record.args)})"
    if is_image:
        _warn(where, "SCBD", f"{message} of the image surface is not applied")
        return
    raise LensFileError(f"{where}: {message} is not supported: use coordinate breaks")


def _warn(where, keyword, message):
    warnings.warn(f"{where}: {keyword}: {message}", ZemaxWarning, stacklevel=3)
