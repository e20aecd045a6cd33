"""Header lines to the lens file's system data: unit, aperture, fields, wavelengths.

UNIT MM|CM|IN|METER sets the file's length unit (every length is scaled to mm).
Apertures: ENPD (entrance pupil diameter), FNUM (image-space F/#), OBNA (object
NA), FLOA (the stop's semi-diameter sets the beam: a ``stop_diameter``
aperture of twice it, resolved by the reader once the stop is known).
Fields: FTYP's first value is the type (0 angle, 1 object height, 2 paraxial
image height, 3 real image height), its second the object-space telecentric
flag and its third the number of fields; XFLN/YFLN hold the values, FWGN
the weights.  Wavelengths: WAVM lines (number, µm, weight; or the older WAVL
line, without weights), the active count being FTYP's fourth value, and PWAV
the 1-based primary.  Weights that are all 1 are left out (the default).  RAIM's second value is the
ray-aiming mode.  Environment: ENVD <temperature °C> <pressure atm> <adjust index flag>,
or the TEMP and PRES lines of some files, become ``[environment]`` (docs/thermal.md).
"""

from __future__ import annotations

import math
import warnings

from ...errors import LensFileError
from ...limits import MAX_FIELDS, MAX_WAVELENGTHS
from ._glass import ZemaxWarning

UNITS = {"MM": 1.0, "CM": 10.0, "IN": 25.4, "METER": 1000.0, "M": 1000.0}
IMAGE_HEIGHTS = ("paraxial_image_height", "real_image_height")
FIELD_TYPES = {
    0: "angle",
    1: "object_height",
    2: "paraxial_image_height",
    3: "real_image_height",
}


def unit_scale(zmx, source) -> float:
    """mm per file unit from the UNIT line (mm when there is none)."""
    record = zmx.get("UNIT")
    if record is None or not record.args:
        return 1.0
    unit = record.args[0].upper()
    if unit not in UNITS:
        raise LensFileError(
            f"{source}: line {record.line}: UNIT {unit!r} is not one of MM, CM, IN, METER"
        )
    return UNITS[unit]


def aperture(zmx, source, scale) -> dict:
    """The [aperture] table; FLOA gives ``{"type": "floating"}`` for the reader to resolve."""
    for keyword, kind, is_length in (
        ("ENPD", "epd", True),
        ("FNUM", "image_fno", False),
        ("OBNA", "object_na", False),
    ):
        record = zmx.get(keyword)
        if record is not None:
            value = record.number(0, source)
            if not value > 0:
                raise LensFileError(
                    f"{source}: line {record.line}: {keyword} {record.args[0]}: the system "
                    "aperture must be a positive number"
                )
            if keyword == "OBNA" and not value < 1:
                raise LensFileError(
                    f"{source}: line {record.line}: OBNA {record.args[0]}: an object-space "
                    "numerical aperture must be below 1"
                )
            return {"type": kind, "value": value * scale if is_length else value}
    if zmx.get("FLOA") is not None:
        return {"type": "floating"}
    for keyword in ("EFNO", "PWFN", "OBSA"):
        if zmx.get(keyword) is not None:
            raise LensFileError(
                f"{source}: line {zmx.get(keyword).line}: system aperture {keyword} is not "
                "supported (ENPD, FNUM, OBNA and FLOA are)"
            )
    raise LensFileError(f"{source}: no system aperture (ENPD, FNUM, OBNA or FLOA line)")


def fields(zmx, source, scale) -> dict:
    """The [fields] table: type, then [x, y] pairs (or y values when every x is 0)."""
    ftyp = zmx.get("FTYP")
    kind, count = 0, None
    if ftyp is not None:
        kind = ftyp.integer(0, source)
        count = ftyp.integer(2, source, 1.0, lowest=1, highest=MAX_FIELDS)
    if kind not in FIELD_TYPES:
        raise LensFileError(
            f"{source}: line {ftyp.line}: field type {kind} (FTYP) is not supported "
            "(0 angle, 1 object height, 2 paraxial image height, 3 real image height)"
        )
    xs = _values(zmx, "XFLN", source)
    ys = _values(zmx, "YFLN", source)
    if count is None:
        count = max(len(xs), len(ys), 1)
        if count > MAX_FIELDS:
            raise LensFileError(
                f"{source}: {count} field values (XFLN/YFLN), more than the limit of "
                f"{MAX_FIELDS} fields (optics.limits)"
            )
    xs = (xs + [0.0] * count)[:count]
    ys = (ys + [0.0] * count)[:count]
    unit = 1.0 if kind == 0 else scale
    if kind == 0:
        _check_angles(zmx, xs, ys, source)
    vignetting = _vignetting(zmx, source, count)
    if all(x == 0 for x in xs):
        values = [y * unit for y in ys]
    else:
        values = [[x * unit, y * unit] for x, y in zip(xs, ys)]
    table = {"type": FIELD_TYPES[kind], "values": values}
    weights = _values(zmx, "FWGN", source)
    if weights:
        where = f"{source}: line {zmx.get('FWGN').line}: FWGN"
        _set_weights(table, (weights + [1.0] * count)[:count], "field", where)
    if vignetting is not None:
        table["vignetting"] = vignetting
    return table


def check_finite_conjugate(zmx, data, source):
    """OBNA and object-height fields (FTYP 1) need a finite DISZ on SURF 0: say so by line."""
    if math.isfinite(data["surfaces"][0].get("thickness", 0.0)):
        return
    needs = (
        ("OBNA", data["aperture"]["type"] == "object_na", "an object-space NA needs"),
        ("FTYP", data["fields"]["type"] == "object_height", "object-height fields (1) need"),
    )
    for keyword, used, what in needs:
        if used:
            raise LensFileError(
                f"{source}: line {zmx.get(keyword).line}: {keyword}: {what} an object at a "
                "finite distance, but SURF 0 has DISZ INFINITY"
            )


def wavelengths(zmx, source) -> dict:
    """The [wavelengths] table (µm) with the 0-based primary."""
    ftyp = zmx.get("FTYP")
    count = None
    if ftyp is not None and len(ftyp.args) > 3:
        count = ftyp.integer(3, source, 0.0, lowest=0, highest=MAX_WAVELENGTHS)
    values, weights = [], None
    seen = {}
    for record in zmx.all("WAVM"):
        index = record.integer(0, source, lowest=1, highest=MAX_WAVELENGTHS)
        if index in seen:
            raise LensFileError(
                f"{source}: line {record.line}: WAVM {index} is given twice (lines "
                f"{seen[index]} and {record.line})"
            )
        seen[index] = record.line
        if count is None or index <= count:
            wavelength = record.number(1, source)
            if not wavelength > 0:
                raise LensFileError(
                    f"{source}: line {record.line}: WAVM {index}: wavelength {record.args[1]} "
                    "must be a positive number of micrometres"
                )
            values.append((index, wavelength, record.number(2, source, 1.0), record.line))
    lines = []
    if values:
        values.sort()
        weights = [weight for _, _, weight, _ in values]
        lines = [line for *_, line in values]
        values = [value for _, value, _, _ in values]
    else:
        values = _values(zmx, "WAVL", source)
        if count:
            values = values[:count]
        if len(values) > MAX_WAVELENGTHS or not all(v > 0 for v in values):
            raise LensFileError(
                f"{source}: line {zmx.get('WAVL').line}: WAVL: the wavelengths must be at "
                f"most {MAX_WAVELENGTHS} positive numbers of micrometres"
            )
    if not values:
        raise LensFileError(f"{source}: no wavelengths (WAVM or WAVL lines)")
    record = zmx.get("PWAV")
    primary = record.integer(0, source) if record is not None else 1
    if not 1 <= primary <= len(values):
        raise LensFileError(
            f"{source}: line {record.line}: primary wavelength PWAV {primary} is not one of "
            f"the {len(values)} active wavelengths"
        )
    table = {"values": values, "primary": primary - 1}
    if weights:
        bad = [i for i, w in enumerate(weights) if not (math.isfinite(w) and w >= 0)]
        line = lines[bad[0]] if bad else lines[0]
        where = f"{source}: line {line}: WAVM {bad[0] + 1 if bad else ''}".rstrip()
        _set_weights(table, weights, "wavelength", where)
    return table


def _set_weights(table, weights, what, where):
    """Keep ``weights`` in ``table`` unless every one is 1 (the default).

    ``what`` is "field" or "wavelength" (numbered from 1, as OpticStudio does).
    """
    if all(w == 1 for w in weights):
        return
    for number, weight in enumerate(weights, start=1):
        if not (math.isfinite(weight) and weight >= 0):
            raise LensFileError(
                f"{where}: the weight {weight:g} of {what} {number} must be a non-negative number"
            )
    if not sum(weights) > 0:
        raise LensFileError(f"{where}: every {what} weight is 0: at least one must be positive")
    table["weights"] = weights


def _check_angles(zmx, xs, ys, source):
    """Field angles (FTYP 0) under 90 degrees, or LensFileError naming the line and field."""
    for keyword, values in (("XFLN", xs), ("YFLN", ys)):
        for number, value in enumerate(values, start=1):
            if not abs(value) < 90:
                raise LensFileError(
                    f"{source}: line {zmx.get(keyword).line}: {keyword}: field {number} at "
                    f"{value:g} degrees: field angles must be under 90 degrees"
                )


def ray_aiming(zmx, source) -> str:
    """Our aiming mode for RAIM: "real" when ray aiming is on (paraxial or real), else "paraxial".

    OpticStudio's RAIM second value is 0 (off: rays aimed at the paraxial entrance
    pupil, our "paraxial"), 1 (aimed at the stop, its size from the paraxial
    marginal ray) or 2 (aimed at the stop, its size from a real marginal ray).
    Both aim real rays at the stop, which is our "real" mode (docs/zemax.md).
    """
    record = zmx.get("RAIM")
    if record is None or len(record.args) < 2:
        return "paraxial"
    return "paraxial" if record.integer(1, source, 0.0, lowest=0, highest=2) == 0 else "real"


def object_telecentric(zmx, source) -> bool:
    """FTYP's second value: 1 when object space is telecentric."""
    ftyp = zmx.get("FTYP")
    return ftyp is not None and len(ftyp.args) > 1 and ftyp.flag(1, source, 0.0) == 1


def telecentric_and_aiming(data, zmx, source):
    """Set ``[fields] object_telecentric`` and ``[aiming]`` from FTYP and RAIM.

    Telecentric object space is kept only where the lens file allows it (a
    finite object, an ``object_na`` aperture, object-height or image-height fields,
    the image heights solved for their object points by the field solve); there the
    aiming mode does not apply.  Otherwise a warning names FTYP.
    """
    mode = ray_aiming(zmx, source)
    if object_telecentric(zmx, source):
        needs = []
        if math.isinf(data["surfaces"][0].get("thickness", 0.0)):
            needs.append("a finite object")
        if data["aperture"]["type"] != "object_na":
            needs.append("an object NA (OBNA) aperture")
        if data["fields"]["type"] not in ("object_height", *IMAGE_HEIGHTS):
            needs.append(f"object-height fields, not {data['fields']['type']}")
        if needs:
            warnings.warn(
                f"{source}: FTYP: telecentric object space is not applied: optics needs "
                f"{', '.join(needs)}; chief rays go through the pupil's centre instead",
                ZemaxWarning,
                stacklevel=3,
            )
        else:
            data["fields"]["object_telecentric"] = True
            if mode == "real":
                warnings.warn(
                    f"{source}: RAIM: ray aiming does not apply in telecentric object space "
                    "(chief rays leave the object parallel to the axis); it is not kept",
                    ZemaxWarning,
                    stacklevel=3,
                )
            mode = "paraxial"
    if mode != "paraxial":
        data["aiming"] = {"mode": mode}


def _values(zmx, keyword, source) -> list:
    record = zmx.get(keyword)
    if record is None:
        return []
    if len(record.args) > MAX_FIELDS:
        raise LensFileError(
            f"{source}: line {record.line}: {keyword} has {len(record.args)} values, more than "
            f"the limit of {MAX_FIELDS} (optics.limits)"
        )
    return [record.number(i, source) for i in range(len(record.args))]


VIGNETTING_KEYWORDS = ("VDXN", "VDYN", "VCXN", "VCYN")
"""The per-field vignetting factors read (optics.fields_vignetting): VDX, VDY, VCX, VCY."""


def _vignetting(zmx, source, count):
    """{keyword: [one factor per field]} of VDXN ... VCYN, or None when all are 0.

    The factors are kept on the fields (``optic.fields.vignetting``), applied by the
    tracer to every pupil sample, and written back.  VANN (the vignetting
    angle) and the ZVDX ... lines (vignetting per zoom position) are not read: a nonzero
    one is a warning too.
    """
    for keyword in ("VANN", "ZVDX", "ZVDY", "ZVCX", "ZVCY"):
        values = _values(zmx, keyword, source)[:count]
        if any(v != 0 for v in values):
            warnings.warn(
                f"{source}: {keyword}: {values} is not read (only VDXN, VDYN, VCXN and VCYN)",
                ZemaxWarning,
                stacklevel=4,
            )
    factors = {k: (_values(zmx, k, source) + [0.0] * count)[:count] for k in VIGNETTING_KEYWORDS}
    if not any(v for values in factors.values() for v in values):
        return None
    for keyword, values in factors.items():
        if keyword.startswith("VC") and any(v >= 1.0 for v in values):
            raise LensFileError(
                f"{source}: {keyword}: vignetting compression {values} must be below 1 "
                "(1 − VC is the pupil's semi-axis)"
            )
    return factors


def environment(zmx, source):
    """The ``[environment]`` table of the ENVD line (or TEMP / PRES lines), or None.

    ENVD's third value is OpticStudio's "adjust index data to environment" flag: with 0
    the indices are the catalogs' whatever the temperature, so no table is made; so
    also for 20 °C and 1 atm (the catalogs' conditions, as without a table).  TEMP and
    PRES lines, where a file has them, give the temperature (°C) and pressure (atm).
    """
    temperature, pressure = 20.0, 1.0
    adjust = False
    envd = zmx.get("ENVD")
    if envd is not None and envd.args:
        temperature = envd.number(0, source)
        pressure = envd.number(1, source, 1.0)
        adjust = len(envd.args) > 2 and envd.number(2, source) != 0
    for keyword in ("TEMP", "PRES"):
        record = zmx.get(keyword)
        if record is not None and record.args:
            adjust = True
            if keyword == "TEMP":
                temperature = record.number(0, source)
            else:
                pressure = record.number(0, source)
    if not adjust or (temperature, pressure) == (20.0, 1.0):
        return None
    return {"temperature": temperature, "pressure": pressure}
