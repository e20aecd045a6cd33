"""CODE V system data to lens-file tables: the pupil (EPD, FNO, NAO), fields, wavelengths."""

from __future__ import annotations

from ...errors import LensFileError


def aperture(lens) -> dict:
    """The ``[aperture]`` table: EPD (mm), FNO (image-space F/#) or NAO (object NA)."""
    if lens.pupil is None:
        raise LensFileError(f"{lens.source}: no EPD, FNO or NAO: the system aperture is not given")
    kind, value, command = lens.pupil
    if not value > 0:
        raise LensFileError(f"{command.where}: must be positive, not {value!r}")
    return {"type": kind, "value": value * lens.unit if kind == "epd" else value}


def fields(lens) -> dict:
    """The ``[fields]`` table (one on-axis angle when the file gives none)."""
    if lens.field_type is None:
        return {"type": "angle", "values": [0.0]}
    command = lens.field_command
    xs, ys = lens.field_x, lens.field_y
    count = len(xs if xs is not None else ys)
    xs = xs if xs is not None else [0.0] * count
    ys = ys if ys is not None else [0.0] * count
    if len(xs) != len(ys) or not count:
        raise LensFileError(
            f"{command.where}: {len(xs)} x and {len(ys)} y field values: they must pair up"
        )
    scale = 1.0 if lens.field_type == "angle" else lens.unit
    if all(x == 0.0 for x in xs):
        values = [y * scale for y in ys]
    else:
        values = [[x * scale, y * scale] for x, y in zip(xs, ys)]
    table = {"type": lens.field_type, "values": values}
    weights = lens.field_weights
    if weights is not None and any(w != 1.0 for w in weights):
        if len(weights) != count:
            raise LensFileError(f"{lens.source}: WTF has {len(weights)} weights for {count} fields")
        table["weights"] = weights
    vignetting = _vignetting(lens, count)
    if vignetting is not None:
        table["vignetting"] = vignetting
    return table


def _vignetting(lens, count):
    """The fields' vignetting factors as OpticStudio's (VDXN ... VCYN lists), or None.

    CODE V's VUX, VLX (VUY, VLY) move the upper and lower pupil edges inward by those
    fractions: px' = px (1 − (VUX + VLX)/2) + (VLX − VUX)/2, so VCX = (VUX + VLX)/2 and
    VDX = (VLX − VUX)/2 (optics.fields_vignetting).
    """
    columns = {}
    for key in ("VUX", "VLX", "VUY", "VLY"):
        values, command = lens.vignetting.get(key, ([0.0] * count, None))
        if len(values) != count:
            raise LensFileError(
                f"{command.where}: {key} has {len(values)} values for {count} fields"
            )
        columns[key] = values
    if not any(v for values in columns.values() for v in values):
        return None
    pairs = {"X": (columns["VUX"], columns["VLX"]), "Y": (columns["VUY"], columns["VLY"])}
    table = {}
    for axis, (upper, lower) in pairs.items():
        table[f"VD{axis}N"] = [(lo - up) / 2.0 for up, lo in zip(upper, lower)]
        table[f"VC{axis}N"] = [(up + lo) / 2.0 for up, lo in zip(upper, lower)]
        if any(c >= 1.0 for c in table[f"VC{axis}N"]):
            raise LensFileError(
                f"{lens.source}: VU{axis}/VL{axis}: the pupil is vignetted to nothing "
                "((VU + VL)/2 must be below 1)"
            )
    return table


def wavelengths(lens) -> dict:
    """The ``[wavelengths]`` table: µm, the REF wavelength primary, WTW weights."""
    values = lens.wavelengths
    if not values:
        raise LensFileError(f"{lens.source}: no WL command: the wavelengths are not given")
    reference = lens.reference if lens.reference is not None else 1
    if not 1 <= reference <= len(values):
        raise LensFileError(
            f"{lens.source}: REF {reference} is not one of the {len(values)} wavelengths"
        )
    table = {"values": values, "primary": reference - 1}
    weights = lens.wavelength_weights
    if weights is not None and any(w != 1.0 for w in weights):
        if len(weights) != len(values):
            raise LensFileError(
                f"{lens.source}: WTW has {len(weights)} weights for {len(values)} wavelengths"
            )
        table["weights"] = weights
    return table
