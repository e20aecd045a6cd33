"""Measure the real-aiming reference numbers of tests/data/aiming with Optiland 0.6.3.

Run with the Optiland interpreter (not collected by pytest)::

    /work/optiland-venv/bin/python tests/data/aiming/make_reference.py

For every system it writes ``<name>.toml`` (our lens file) and
``<name>.expected.json`` (Optiland's numbers).  Both codes get the same
prescription from the lists below; glasses are replaced by constant indices
(Optiland's catalog index at the one wavelength traced), so both codes trace
exactly the same media.  See README.md for what is measured and how.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
from optiland import optic as optiland_optic
from optiland import physical_apertures
from optiland.materials import IdealMaterial, Material

HERE = Path(__file__).resolve().parent
INF = math.inf

# (radius, thickness, glass or None, extra) rows after the object; extra: dict of
# "stop", "conic", "mirror", "obscuration".  Prescriptions: M. Laikin, Lens Design,
# 4th ed., CRC Press 2007 (wide-angle lenses pp. 108-114, Hubble telescope p. 200);
# the UV projection lens of US patent 5,831,776 (object-space telecentric).
WIDE_100 = [
    (8.0107, 0.2500, "N-SK4"),
    (1.1856, 0.9613, None),
    (1.6747, 0.3578, "SF1"),
    (-7.5157, 0.2136, "N-SK4"),
    (0.9411, 0.4146, None),
    (-1.7688, 0.3333, "SF1"),
    (-1.5531, 0.3863, "N-SK4"),
    (-2.2281, 0.9842, None),
    (INF, 0.1000, None, {"stop": 1}),
    (13.6803, 0.1400, "N-SK4"),
    (-3.4279, 0.0605, None),
    (20.0257, 0.3332, "N-SK4"),
    (-0.9258, 0.4374, "SF1"),
    (-3.2233, 0.2679, None),
    (10.3847, 0.1400, "SF1"),
    (2.4272, 0.2609, "N-SK4"),
    (-3.8828, 0.0150, None),
    (3.3650, 0.3167, "N-SK4"),
    (-14.7547, 1.5604, None),
]
PROJ_120 = [
    (28.2482, 0.5000, "N-SK4"),
    (2.2027, 1.4379, None),
    (2.7819, 1.1174, "SF1"),
    (-10.4886, 0.3022, "N-SK4"),
    (1.2417, 0.7247, None),
    (-2.8768, 0.5088, "SF1"),
    (-2.0989, 0.4998, "N-SK4"),
    (-4.2448, 0.0150, None),
    (8.4162, 1.1279, "N-SK4"),
    (-1.6294, 0.2486, "SF1"),
    (-4.5056, 0.5412, None),
    (INF, 0.0200, None, {"stop": 1}),
    (INF, 0.1689, "N-SK4"),
    (-3.8691, 0.1065, None),
    (-6.6827, 0.2007, "N-SK4"),
    (-2.2167, 0.2822, None),
    (-1.6444, 0.1827, "SF1"),
    (-3.3466, 0.0149, None),
    (-36.4599, 0.5235, "SF1"),
    (5.3765, 0.0373, None),
    (6.4204, 0.6243, "N-SK4"),
    (-2.7537, 0.0150, None),
    (5.1876, 0.8475, "N-SK4"),
    (INF, 2.0000, None),
]
PROJ_160 = [
    (38.9150, 0.5459, "N-BK7"),
    (3.6152, 1.6595, None),
    (INF, 0.6927, "N-BK7"),
    (5.2515, 1.4576, None),
    (-5.2515, 0.6927, "N-BK7"),
    (INF, 4.1494, None),
    (5.1075, 0.7000, "SF4"),
    (-10.8385, 0.0162, None),
    (2.3897, 0.7443, "SF4"),
    (2.2789, 0.1136, None),
    (INF, 0.1040, None, {"stop": 1}),
    (-2.3536, 0.7038, "SF1"),
    (2.7829, 0.5423, "N-LAK7"),
    (-2.8287, 0.2506, None),
    (13.1578, 0.6350, "N-LAK7"),
    (-1.4944, 0.2922, "SF4"),
    (-4.8082, 0.0668, None),
    (4.3447, 0.5059, "N-LAK21"),
    (72.8673, 2.2376, None),
]
WIDE_170 = [
    (6.0515, 0.1796, "N-BK7"),
    (1.2087, 0.9182, None),
    (-9.4697, 0.1939, "N-SK5"),
    (1.0053, 0.6402, None),
    (1.6634, 0.4518, "SF1"),
    (-1.6712, 0.1825, "N-LAK9"),
    (1.1206, 2.5272, None),
    (1.3895, 0.2500, "N-LAK9"),
    (0.5522, 0.6047, "N-PSK3"),
    (-0.8844, 0.0196, None),
    (-0.8804, 0.0800, "SF1"),
    (-2.1545, 0.1200, None),
    (INF, 0.1200, None, {"stop": 1}),
    (1.0354, 0.4830, "N-PSK3"),
    (-0.8443, 0.0546, None),
    (-0.7386, 0.1076, "SF1"),
    (-1.5285, 0.8308, None),
]
HUBBLE = [
    (INF, 4910.01016, None),
    (
        -11040.02286,
        -4910.01016,
        None,
        {"mirror": 1, "stop": 1, "conic": -1.001152, "obscuration": 177.80035},
    ),
    # A dummy plane at the secondary's vertex (see README: needed by optics' conic
    # intersection before main's a1eb37a; kept so both codes trace this prescription).
    (INF, 0.0, None),
    (-1349.31166, 6365.20955, None, {"mirror": 1, "conic": -1.483014}),
]
COOKE = [  # the optics sample Cooke triplet, aperture set by the stop's diameter
    (22.01359, 3.25896, "N-SK16"),
    (-435.76044, 6.00755, None),
    (-22.21328, 0.99997, "F2"),
    (20.29192, 4.75041, None, {"stop": 1}),
    (79.6836, 2.95208, "N-SK16"),
    (-18.39533, 42.20778, None),
]
UV_ROWS = [
    (-737.7847, 27.484),
    (-235.2891, 0.916),
    (211.1786, 36.646),
    (-461.3986, 0.916),
    (412.6778, 21.071),
    (160.5391, 16.197),
    (-604.1283, 7.215),
    (218.1877, 23.941),
    (-3586.063, 11.978),
    (251.8168, 47.506),
    (-85.2817, 11.961),
    (584.8597, 9.968),
    (4074.801, 35.291),
    (-162.0185, 0.923),
    (629.544, 41.227),
    (-226.7397, 0.916),
    (522.2739, 27.842),
    (-582.424, 0.916),
    (423.729, 22.904),
    (-1385.36, 0.916),
    (212.039, 33.646),
    (802.3695, 55.304),
    (-776.5697, 8.703),
    (106.1728, 24.09),
    (-200.683, 11.452),
    (311.8264, 59.54),
    (-77.2276, 11.772),
    (2317.8032, 11.862),
    (-290.8859, 22.904),
    (-148.3577, 1.373),
    (-5658.5043, 41.227),
    (-151.9858, 0.916),
    (678.1005, 32.981),
    (-358.554, 0.916),
    (264.2734, 32.814),
    (2309.6884, 0.916),
    (171.2681, 29.015),
    (364.7765, 0.918),
    (113.37, 76.259),
    (78.6982, 54.304),
    (49.5443, 18.65),
    (109.8136, 13.07647896),
]
UV = [
    (r, t, "SiO2" if i % 2 == 0 else None, {"stop": 1} if i == 19 else {})
    for i, (r, t) in enumerate(UV_ROWS)
]

SYSTEMS = {
    # name: (rows, object distance, aperture (type, value), field type, fields, wavelength)
    "wide_angle_100": (WIDE_100, INF, ("image_fno", 4.0), "angle", [0, 35, 50], 0.5876),
    "projection_120": (PROJ_120, INF, ("image_fno", 2.8), "angle", [0, 42, 60], 0.5876),
    "projection_160": (PROJ_160, INF, ("image_fno", 2.0), "angle", [0, 56, 80], 0.5876),
    "wide_angle_170": (WIDE_170, INF, ("image_fno", 1.8), "angle", [0, 60, 85], 0.5876),
    "hubble_obscured": (HUBBLE, INF, ("epd", 2400.0), "angle", [0, 0.1, 0.15], 0.55),
    "cooke_stop_diameter": (COOKE, INF, ("stop_diameter", 8.0), "angle", [0, 14, 20], 0.55),
    "uv_telecentric": (UV, 110.85883544, ("object_na", 0.133), "object_height", [0, 32, 48], 0.248),
}
#: Systems traced with real aiming (the others have nothing to aim: the telecentric
#: lens launches by NA; the others are traced both ways).
REAL = (
    "wide_angle_100",
    "projection_120",
    "projection_160",
    "wide_angle_170",
    "hubble_obscured",
    "cooke_stop_diameter",
)
RINGS = 6
SIO2_248 = 1.5084  # the patent's fused silica at 248 nm (the Optiland sample's value)


def hexapolar(rings):
    """Our hexapolar pattern: the centre, then ring i of 6i points at radius i/R."""
    px, py = [0.0], [0.0]
    for i in range(1, rings + 1):
        angles = 2 * np.pi * np.arange(6 * i) / (6 * i)
        px.extend(np.cos(angles) * i / rings)
        py.extend(np.sin(angles) * i / rings)
    return np.array(px), np.array(py)


def index_of(glass, wavelength):
    if glass == "SiO2":
        return SIO2_248
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(np.squeeze(Material(glass, catalog="schott").n(wavelength)))


def build(name):
    rows, distance, (ap_type, ap_value), field_type, fields, wavelength = SYSTEMS[name]
    op = optiland_optic.Optic()
    op.surfaces.add(index=0, radius=INF, thickness=distance)
    toml = [f'name = "{name}"', "", "[aperture]", f'type = "{ap_type}"', f"value = {ap_value!r}"]
    toml += ["", "[fields]", f'type = "{field_type}"', f"values = {[float(f) for f in fields]}"]
    if name == "uv_telecentric":
        toml.append("object_telecentric = true")
    toml += ["", "[wavelengths]", f"values = [{wavelength}]", "primary = 0", ""]
    toml += ["[[surfaces]]", f"thickness = {'inf' if distance == INF else repr(distance)}", ""]
    for i, row in enumerate(rows, start=1):
        radius, thickness, glass = row[:3]
        extra = row[3] if len(row) > 3 else {}
        kwargs = dict(index=i, radius=radius, thickness=thickness)
        lines = ["[[surfaces]]"]
        if radius != INF:
            lines.append(f"radius = {radius!r}")
        lines.append(f"thickness = {thickness!r}")
        if extra.get("mirror"):
            kwargs["material"] = "mirror"
            lines.append('material = "mirror"')
        elif glass:
            n = index_of(glass, wavelength)
            kwargs["material"] = IdealMaterial(n=n)
            lines.append(f"material = {{ index = {n!r} }}")
        if "conic" in extra:
            kwargs["conic"] = extra["conic"]
            lines.append(f"conic = {extra['conic']!r}")
        if extra.get("stop"):
            kwargs["is_stop"] = True
            lines.append("stop = true")
        if "obscuration" in extra:
            kwargs["aperture"] = physical_apertures.RadialAperture(
                r_max=INF, r_min=extra["obscuration"]
            )
            lines.append(f"obscuration = {extra['obscuration']!r}")
        op.surfaces.add(**kwargs)
        toml += lines + [""]
    op.surfaces.add(index=len(rows) + 1, radius=INF, thickness=0.0)
    toml += ["[[surfaces]]", ""]
    kind = {
        "image_fno": "imageFNO",
        "epd": "EPD",
        "object_na": "objectNA",
        "stop_diameter": "float_by_stop_size",
    }[ap_type]
    op.set_aperture(aperture_type=kind, value=ap_value)
    if ap_type == "stop_diameter":  # Optiland's real aim reads the stop radius from here
        op.surfaces[op.surfaces.stop_index].semi_aperture = ap_value / 2
    op.fields.set_type(field_type=field_type)
    for f in fields:
        op.fields.add(y=f)
    op.wavelengths.add(value=wavelength, is_primary=True)
    if name == "uv_telecentric":
        op.obj_space_telecentric = True
    return op, "\n".join(toml), [f / max(fields) for f in fields], wavelength


def measure(op, fields, wavelength):
    """Stop and image points of chief and marginal rays; hexapolar image points and RMS."""
    stop = op.surfaces.stop_index
    px_m = np.array([0.0, 0.0, 0.0, 1.0, -1.0])
    py_m = np.array([0.0, 1.0, -1.0, 0.0, 0.0])
    hx, hy = hexapolar(RINGS)
    out = []
    for h in fields:
        rays = op.trace_generic(0.0, h, px_m, py_m, wavelength)
        s = op.surfaces[stop]
        record = {
            "field": [0.0, h],
            "pupil": [px_m.tolist(), py_m.tolist()],
            "stop_xyz": [
                np.asarray(s.x).tolist(),
                np.asarray(s.y).tolist(),
                np.asarray(s.z).tolist(),
            ],
            "image_xy": [np.asarray(rays.x).tolist(), np.asarray(rays.y).tolist()],
        }
        spot = op.trace_generic(0.0, h, hx, hy, wavelength)
        x, y = np.asarray(spot.x, float), np.asarray(spot.y, float)
        ok = np.isfinite(x) & np.isfinite(y) & (np.asarray(spot.i) > 0)
        cx, cy = record["image_xy"][0][0], record["image_xy"][1][0]
        record["rms_about_chief"] = float(np.sqrt(np.mean((x[ok] - cx) ** 2 + (y[ok] - cy) ** 2)))
        record["n_valid"] = int(ok.sum())
        record["spot_xy"] = [np.where(ok, x, np.nan).tolist(), np.where(ok, y, np.nan).tolist()]
        out.append(record)
    return out


def main():
    for name in SYSTEMS:
        op, toml, fields, wavelength = build(name)
        result = {"name": name, "wavelength": wavelength, "rings": RINGS, "modes": {}}
        result["paraxial"] = {
            "epd": float(np.squeeze(op.paraxial.EPD())),
            "efl": float(np.squeeze(op.paraxial.f2())),
        }
        modes = ("paraxial", "real") if name in REAL else ("paraxial",)
        for mode in modes:
            if mode == "real":
                # Optiland's robust aimer (its iterative one cannot start on the wide
                # angles) to round-off: the targets are (px, py) * r_stop on the stop.
                op.ray_tracer.set_aiming("robust", max_iter=100, tol=1e-14, cache=False)
            else:
                op.ray_tracer.set_aiming("paraxial")
            result["modes"][mode] = measure(op, fields, wavelength)
        if name in REAL:
            toml = toml.replace("[[surfaces]]", '[aiming]\nmode = "real"\n\n[[surfaces]]', 1)
        (HERE / f"{name}.toml").write_text(toml)
        (HERE / f"{name}.expected.json").write_text(json.dumps(result, indent=1) + "\n")
        print(name, "done")


if __name__ == "__main__":
    main()
