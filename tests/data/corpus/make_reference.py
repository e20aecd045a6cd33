"""Measure the corpus reference numbers with Optiland 0.6.3 (run by Optiland's interpreter).

    /work/optiland-venv/bin/python tests/data/corpus/make_reference.py

For every NAME.toml in this folder it builds the same system in Optiland from the
lens file (our schema, read with tomllib; optics is never imported) and writes
NAME.expected.json: the per-surface indices at every wavelength (so a test can check
that both codes describe the same system), the paraxial data, hexapolar 6-ring RMS
spots about the primary-wavelength chief ray and about the centroid, and real rays
(image intercepts and direction cosines), all paraxially aimed.  Conventions are those
of tests/data/reference/README.md.  Only Optiland's public API is used.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import sys
from pathlib import Path

import numpy as np
import optiland.backend as obe
import tomllib
from optiland.materials import IdealMaterial
from optiland.optic import Optic

HERE = Path(__file__).resolve().parent
APERTURES = {"epd": "EPD", "image_fno": "imageFNO", "object_na": "objectNA"}
FIELD_POINTS = [(0.0, 0.0), (0.0, 0.7), (0.0, 1.0), (0.6, 0.6)]
PUPIL_POINTS = [(0.0, 0.0), (0.0, 1.0), (0.0, -1.0), (1.0, 0.0), (0.5, -0.5), (-0.3, 0.7)]
OTHER_WAVELENGTH_PUPILS = [(0.0, 1.0), (1.0, 0.0), (-0.3, 0.7)]


def _material(spec):
    if spec is None or spec == "air":
        return None
    if spec == "mirror":
        return "mirror"
    if isinstance(spec, dict) and set(spec) == {"index"}:
        return IdealMaterial(float(spec["index"]))
    if isinstance(spec, dict) and set(spec) == {"name", "catalog"}:
        return (spec["name"], spec["catalog"])
    raise ValueError(f"unsupported material {spec!r} (use an index or a name and catalog)")


def build(spec):
    """An Optiland Optic from one of our lens files (as a dict)."""
    lens = Optic()
    surfaces = spec["surfaces"]
    for index, surface in enumerate(surfaces):
        kwargs = {
            "index": index,
            "radius": float(surface.get("radius", math.inf)),
            "thickness": float(surface.get("thickness", 0.0)),
        }
        if surface.get("conic"):
            kwargs["conic"] = float(surface["conic"])
        material = _material(surface.get("material"))
        if material is not None:
            kwargs["material"] = material
        if surface.get("stop"):
            kwargs["is_stop"] = True
        lens.surfaces.add(**kwargs)
    lens.set_aperture(
        aperture_type=APERTURES[spec["aperture"]["type"]], value=spec["aperture"]["value"]
    )
    lens.fields.set_type(field_type=spec["fields"]["type"])
    for value in spec["fields"]["values"]:
        lens.fields.add(y=float(value))
    waves = spec["wavelengths"]
    for i, value in enumerate(waves["values"]):
        lens.wavelengths.add(value=float(value), is_primary=i == waves.get("primary", 0))
    lens.ray_tracer.set_aiming("paraxial")
    return lens


def _f(value):
    return float(np.asarray(value).reshape(-1)[0])


def paraxial_data(lens, spec):
    p = lens.paraxial
    thicknesses = [float(s.get("thickness", 0.0)) for s in spec["surfaces"]]
    t_last = thicknesses[-2]
    y_chief, _ = p.chief_ray()
    return {
        "efl": _f(p.f2()),
        "bfl": _f(p.F2()) + t_last,
        "fno": _f(p.FNO()),
        "epd": _f(p.EPD()),
        "ep_position": _f(p.EPL()),
        "xpd": _f(p.XPD()),
        "xp_position": _f(p.XPL()),
        "image_height": _f(np.asarray(y_chief)[-1]),
        "magnification": _f(p.magnification()),
        "total_track": sum(thicknesses[1:-1]),
    }


def hexapolar(rings=6):
    px, py = [0.0], [0.0]
    for i in range(1, rings + 1):
        for j in range(6 * i):
            angle = 2 * math.pi * j / (6 * i)
            px.append(i / rings * math.cos(angle))
            py.append(i / rings * math.sin(angle))
    return np.array(px), np.array(py)


def trace(lens, hx, hy, px, py, wavelength):
    rays = lens.trace_generic(hx, hy, np.asarray(px, float), np.asarray(py, float), wavelength)
    return {k: np.asarray(getattr(rays, k), dtype=float).reshape(-1) for k in "xyzLMN"}


def spots(lens, fields, wavelengths, primary):
    px, py = hexapolar()
    out = []
    for hx, hy in fields:
        chief = trace(lens, hx, hy, [0.0], [0.0], primary)
        for wavelength in wavelengths:
            r = trace(lens, hx, hy, px, py, wavelength)
            if not (np.isfinite(r["x"]).all() and np.isfinite(r["y"]).all()):
                raise RuntimeError(f"non-finite rays at field {(hx, hy)}, {wavelength} um")
            cx, cy = r["x"].mean(), r["y"].mean()
            out.append(
                {
                    "field": [hx, hy],
                    "wavelength": wavelength,
                    "rms_radius_chief": math.sqrt(
                        np.mean((r["x"] - chief["x"][0]) ** 2 + (r["y"] - chief["y"][0]) ** 2)
                    ),
                    "rms_radius_centroid": math.sqrt(
                        np.mean((r["x"] - cx) ** 2 + (r["y"] - cy) ** 2)
                    ),
                    "centroid": [cx, cy],
                }
            )
    return out


def rays(lens, wavelengths, primary):
    cases = [(h, p, primary) for h in FIELD_POINTS for p in PUPIL_POINTS]
    cases += [
        ((0.0, 1.0), p, w) for w in wavelengths if w != primary for p in OTHER_WAVELENGTH_PUPILS
    ]
    out = []
    for (hx, hy), (px, py), wavelength in cases:
        r = trace(lens, hx, hy, [px], [py], wavelength)
        row = {"hx": hx, "hy": hy, "px": px, "py": py, "wavelength": wavelength}
        row.update({k: float(v[0]) for k, v in r.items()})
        out.append(row)
    return out


def indices(lens, wavelengths):
    return {
        str(w): [float(v) for v in np.asarray(lens.surfaces.n(w)).reshape(-1)] for w in wavelengths
    }


def _normalized_fields(spec):
    values = [float(v) for v in spec["fields"]["values"]]
    top = max(abs(v) for v in values)
    return [(0.0, v / top) for v in values]


def measure(path):
    spec = tomllib.loads(path.read_text())
    lens = build(spec)
    waves = [float(w) for w in spec["wavelengths"]["values"]]
    primary = waves[spec["wavelengths"].get("primary", 0)]
    return {
        "source": f"Optiland {importlib.metadata.version('optiland')}, NumPy float64, "
        "paraxial aiming",
        "primary_wavelength": primary,
        "indices": indices(lens, waves),
        "paraxial": paraxial_data(lens, spec),
        "spot": spots(lens, _normalized_fields(spec), waves, primary),
        "rays": rays(lens, waves, primary),
    }


def main(names):
    obe.set_backend("numpy")
    paths = [HERE / f"{n}.toml" for n in names] if names else sorted(HERE.glob("*.toml"))
    for path in paths:
        result = measure(path)
        target = path.with_suffix("").with_suffix(".expected.json")
        target.write_text(json.dumps(result, indent=1) + "\n")
        print(path.name, "rays:", len(result["rays"]), "spots:", len(result["spot"]))


if __name__ == "__main__":
    main(sys.argv[1:])
