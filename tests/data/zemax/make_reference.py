"""Measure the Zemax corpus references with Optiland 0.6.3: writes corpus_reference.json.

Run from the repository root with optics' interpreter (it starts Optiland's):

    OPTICS_SHARED_DIR=/work/shared PYTHONPATH=$PWD /work/venv/bin/python \
        tests/data/zemax/make_reference.py /work/optiland-venv/bin/python

For every file of ../shared/zemax/files/ it records whether optics loads it
(as is, or only with ``glass_fallback="model"``) and otherwise the error.  For
every file that loads, optiland_side.py reads the same file with Optiland's
reader, corrects Optiland's known misreadings (see its docstring: indices,
floating stop, vignetting) and measures paraxial data and 15 named real rays
at the primary wavelength (Optiland's default paraxial ray aiming: rays aimed
at the paraxial entrance pupil, as optics does with ``[aiming] mode =
"paraxial"``, which the test sets whatever a file's RAIM says).  The paraxial values and the
rays are stored as Optiland computes them; tests/test_zemax_corpus.py compares
optics with them.
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

import optics
from optics import backend as be
from optics import paraxial
from optics.errors import OpticsError
from optics.io import zemax
from optics.io.zemax import _system, _text
from optics.surfaces import media
from optics.trace.aim import launch
from optics.trace.real_image_height import field_parameters

HERE = Path(__file__).resolve().parent
FIELDS = {"f0": 0.0, "f07": 0.7, "f1": 1.0}
PUPILS = {
    "chief": (0.0, 0.0),
    "top": (0.0, 1.0),
    "bottom": (0.0, -1.0),
    "side": (1.0, 0.0),
    "half": (0.0, 0.5),
}
RAYS = [(f"{f}_{p}", 0.0, hy, px, py) for f, hy in FIELDS.items() for p, (px, py) in PUPILS.items()]


def corpus() -> Path:
    shared = os.environ.get("OPTICS_SHARED_DIR")
    root = Path(shared) if shared else HERE.parents[3] / "shared"
    return root / "zemax" / "files"


def toroids(optic):
    """{Optiland surface index: radius of rotation in file units} of the toroidal surfaces."""
    out, index = {}, 0
    for surface in optic.surfaces:
        if getattr(surface.geometry, "is_coordinate_break", False):
            continue
        if surface.geometry.type_name == "toroidal":
            out[index] = float(surface.geometry.radius_rotation)
        index += 1
    return out


def unit_scale(path) -> float:
    """mm per file unit (Optiland reads every length in the file's unit as mm)."""
    text = _text.parse(_text.decode(path.read_bytes(), str(path)), str(path))
    return _system.unit_scale(text, str(path))


def indices(optic):
    """The index after every non-coordinate-break surface at the primary wavelength."""
    wavelength = be.asarray(optic.primary_wavelength)
    out = []
    for surface, (material, _) in zip(optic.surfaces, media(optic.surfaces)):
        if getattr(surface.geometry, "is_coordinate_break", False):
            continue
        out.append(float(material.index(wavelength)))
    return out


def overrides(path, optic):
    """What Optiland is given where optics reads a file by a documented approximation.

    - FLOA with no stop DIAM (optics sizes the stop from the other surfaces' DIAM):
      Optiland gets optics' entrance pupil diameter (``epd``);
    - image-height fields in telecentric object space (optics' field solve finds their
      object points): Optiland gets those object heights, telecentric (``fields``).
    """
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = zemax.read(path, glass_fallback="model")
    if data["aperture"]["type"] == "floating":
        # Optiland refuses FLOA without the stop's DIAM (and misreads this file's WAVL
        # line): it reads a copy with ENPD and WAVM lines instead.
        epd = float(paraxial(optic).epd) / unit_scale(path)
        text = _text.decode(path.read_bytes(), str(path))
        lines = []
        for line in text.split("\n"):
            words = line.split()
            if words == ["FLOA"]:
                line = f"ENPD {epd!r}"
            elif words[:1] == ["WAVL"]:  # Optiland's reader needs WAVM lines here
                line = "\n".join(f"WAVM {i} {w} 1" for i, w in enumerate(words[1:], 1))
            lines.append(line)
        copy = Path(tempfile.gettempdir()) / f"optics-reference-{path.name}"
        copy.write_bytes(codecs.BOM_UTF16_LE + "\n".join(lines).encode("utf-16-le"))
        out["file"], out["epd"] = str(copy), epd
    if optic.fields.object_telecentric:
        # The object heights of the fields (optics' field solve for image-height fields).
        hx, hy = (np.array([f[i] for f in optic.fields.normalized()]) for i in (0, 1))
        qx, qy = (be.to_numpy(q) for q in field_parameters(optic, hx, hy))
        values = [[x / unit_scale(path), y / unit_scale(path)] for x, y in zip(qx, qy)]
        out["fields"] = {"type": "object_height", "values": values, "telecentric": True}
        # Optiland's normalized field is linear in object height, an image height's object
        # point is not: each named ray gets the normalized object height of its own point.
        top = max(abs(float(v)) for v in np.concatenate([qx, qy]))
        rx, ry = (
            be.to_numpy(q)
            for q in field_parameters(optic, *map(np.array, zip(*[r[1:3] for r in RAYS])))
        )
        out["rays"] = [[x / top, y / top, *r[3:]] for x, y, r in zip(rx, ry, RAYS)]
    return out


def launched(optic):
    """optics' object-space rays (paraxial aiming) for RAYS, global x, y, z, L, M, N.

    optiland_side.py traces these through Optiland's surfaces only where Optiland's
    own launch fails (its paraxial trace refuses a folded geometry): a check of the
    surfaces, mirrors and coordinate breaks, not of the launch.
    """
    aiming, optic.aiming = optic.aiming, "paraxial"
    try:
        first_order = paraxial(optic)
        hx, hy, px, py = (be.asarray([r[i] for r in RAYS]) for i in range(1, 5))
        qx, qy = field_parameters(optic, hx, hy)[:2]
        wavelength = be.asarray(optic.primary_wavelength)
        rays = launch(optic, qx, qy, px, py, wavelength, first_order)
    finally:
        optic.aiming = aiming
    return {k: be.to_numpy(getattr(rays, k)).tolist() for k in "xyzLMN"}


def load(path):
    """(optic, fallback, error): optics' reading of one file, with the fallback if needed."""
    first_error = None
    for fallback in (None, "model"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return optics.load(path, glass_fallback=fallback), fallback, None
            except OpticsError as exc:
                error = str(exc)
        first_error = first_error or error
        if "unknown glass" not in error:
            return None, None, first_error
    return None, None, first_error


def main(optiland_python, only=(), own=False):
    """Measure the corpus (or, with ``own``, our files ours-*.zmx here) into its JSON."""
    helper = subprocess.Popen(
        [optiland_python, str(HERE / "optiland_side.py")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    out_path = HERE / ("own_reference.json" if own else "corpus_reference.json")
    results = json.loads(out_path.read_text())["files"] if only else {}
    paths = sorted(HERE.glob("ours-*.zmx")) if own else sorted(corpus().iterdir())
    for path in paths:
        if only and path.name not in only:
            continue
        optic, fallback, error = load(path)
        entry = {"glass_fallback": fallback}
        if optic is None:
            entry["error"] = error
            results[path.name] = entry
            print(path.name, "error:", error[:100])
            continue
        if fallback is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    optics.load(path)
                except OpticsError as exc:
                    entry["error_without_fallback"] = str(exc)
        request = {
            "file": str(path),
            "indices": indices(optic),
            "rays": [list(r[1:]) for r in RAYS],
            "wavelength": optic.primary_wavelength,
            "toroids": {k: v / unit_scale(path) for k, v in toroids(optic).items()},
        }
        request.update(overrides(path, optic))
        request["launch"] = launched(optic)
        for key in "xyz":  # Optiland reads lengths in the file's unit
            request["launch"][key] = [v / unit_scale(path) for v in request["launch"][key]]
        helper.stdin.write(json.dumps(request) + "\n")
        helper.stdin.flush()
        reply = json.loads(helper.stdout.readline())
        if "error" in reply:
            entry["optiland_error"] = reply["error"]
            print(path.name, "optiland error:", reply["error"][:100])
        if "rays" in reply:
            scale = unit_scale(path)
            if scale != 1.0:
                entry["optiland_lengths_scaled_by"] = scale
                for key in ("efl", "epd", "ep_position", "xpd", "xp_position"):
                    if "paraxial" in reply:
                        reply["paraxial"][key] *= scale
                for key in "xyz":
                    reply["rays"][key] = [v * scale for v in reply["rays"][key]]
            if "paraxial" in reply:
                entry["paraxial"] = reply["paraxial"]
                entry["optiland_aperture"] = reply["aperture"]
            else:
                entry["optiland_traced"] = "optics' launched object-space rays (see README)"
            entry["indices"] = request["indices"]
            entry["optiland_indices"] = reply["optiland_indices"]
            entry["rays"] = [
                {"name": name, "hx": hx, "hy": hy, "px": px, "py": py}
                | {k: reply["rays"][k][i] for k in "xyzLMN"}
                for i, (name, hx, hy, px, py) in enumerate(RAYS)
            ]
            print(path.name, "measured")
        results[path.name] = entry
    helper.stdin.close()
    helper.wait()
    out = {
        "measured_with": "Optiland 0.6.3 (tests/data/zemax/optiland_side.py)",
        "primary_wavelength_only": True,
        "files": results,
    }
    out["files"] = dict(sorted(results.items()))
    out_path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    # make_reference.py [OPTILAND_PYTHON [--own] [FILE NAME ...]]: only the files named are
    # remeasured (the others kept as they are) when names are given; --own measures our
    # own files tests/data/zemax/ours-*.zmx into own_reference.json instead of the corpus.
    args = sys.argv[2:]
    own = "--own" in args
    names = [a for a in args if a != "--own"]
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/optiland-venv/bin/python", names, own)
