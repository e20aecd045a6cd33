"""Every corpus .zmx file loads and matches Optiland's numbers, or fails with a clear message.

The references (tests/data/zemax/corpus_reference.json) were measured with
Optiland 0.6.3 after correcting its known misreadings (see
tests/data/zemax/README.md).  Values are compared to 1e-9 (mm, or relative
for values above 1).
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from _zemax_corpus import corpus_dir, needs_corpus

import optics
from optics import paraxial
from optics.cli import main
from optics.errors import LensFileError
from optics.frames import surface_frames
from optics.io.zemax import ZemaxWarning
from optics.surfaces import media
from optics.trace import refract

REFERENCE = json.loads(
    (Path(__file__).parent / "data" / "zemax" / "corpus_reference.json").read_text()
)["files"]
CORPUS = corpus_dir()
pytestmark = needs_corpus
TOLERANCE = 1e-9

# Files whose Optiland reading cannot be corrected: their rays are not compared.
OPTILAND_MISREADS = {
    "skzemax-e07_tilt_decenter.zmx": "Optiland ignores the coordinate-break order flag (PARM 6)",
}


def _load(name, fallback):
    """The corpus file, its vignetting factors dropped: the references fill the whole pupil.

    (The factors are read, traced and checked against Optiland in test_zemax_vignetting.py.)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        optic = optics.load(CORPUS / name, glass_fallback=fallback)
    optic.fields.vignetting = None
    return optic


def test_the_reference_covers_every_corpus_file():
    assert sorted(p.name for p in CORPUS.iterdir()) == sorted(REFERENCE)


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_corpus_file_loads_or_fails_with_a_clear_message(name):
    entry = REFERENCE[name]
    path = CORPUS / name
    if "error" in entry:
        with pytest.raises(LensFileError) as info:
            _load(name, None)
        message = str(info.value)
        assert message.startswith(str(path) + ": ")
        assert message.split(": ", 1)[1] == entry["error"].split(": ", 1)[1]
        return
    optic = _load(name, entry["glass_fallback"])
    assert len(optic.surfaces) >= 3
    if entry["glass_fallback"]:
        with pytest.raises(LensFileError, match=r"surface \d+: unknown glass '.+': not in"):
            _load(name, None)


def _with_rays():
    return sorted(n for n, e in REFERENCE.items() if "rays" in e and n not in OPTILAND_MISREADS)


@pytest.mark.parametrize("name", _with_rays())
def test_corpus_rays_match_optiland(name):
    entry = REFERENCE[name]
    optic = _load(name, entry["glass_fallback"])
    # Rays Optiland loses (a miss: NaN) and rays that graze the image plane (both codes
    # then divide by a direction cosine of ~1e-17) are not compared.
    image = surface_frames(optic.surfaces)[-1]
    rays = [
        r
        for r in entry["rays"]
        if math.isfinite(r["x"]) and abs(image.to_local(0, 0, 0, r["L"], r["M"], r["N"])[5]) > 1e-6
    ]
    # A few files lose the pupil's rim at the outer fields in both codes (rays miss).
    assert len(rays) >= (3 if name == "optiland-lens_floa.zmx" else 6)
    # The references were traced with paraxial aiming: override the file's RAIM mode
    # (on the optic, so that a real-image-height field is solved with it too).
    optic.aiming = "paraxial"
    traced = optics.trace_rays(
        optic,
        tuple(np.array([r[k] for r in rays]) for k in ("hx", "hy")),
        tuple(np.array([r[k] for r in rays]) for k in ("px", "py")),
    )
    traced = _refracted_into_image_material(optic, traced)
    # A ray blocked by a clear aperture (CLAP, FLAP, and in optics also OBSC, SQAP, ELAP
    # and decentered ones, which Optiland does not read) is flagged invalid but traced on
    # to the image in both codes, so every ray's path is compared.
    for key in "xyzLMN":
        expected = np.array([r[key] for r in rays])
        got = np.asarray(getattr(traced, key))
        np.testing.assert_allclose(got, expected, rtol=TOLERANCE, atol=TOLERANCE, err_msg=key)


def _refracted_into_image_material(optic, rays):
    """``rays`` as Optiland reports them: refracted into the image surface's own material.

    optics ends a trace in the medium the rays reach the image in (docs/tracing.md);
    Optiland refracts them once more, into whatever material the file gives the image
    surface (patent-US20030048547A1-t3.zmx: n' = 0.999982 into air, 1.8e-5 in L, M).
    Only flat, untilted image surfaces need this here.
    """
    arriving = media(optic.surfaces)[-1][0]
    own = optic.surfaces[-1].material
    if own is arriving:
        return rays
    image = optic.surfaces[-1]
    assert image.geometry.base_curvature == 0 and not image.has_frame
    mu = arriving.index(optic.primary_wavelength) / own.index(optic.primary_wavelength)
    L, M, N, _ = refract(rays.L, rays.M, rays.N, 0.0, 0.0, -1.0, mu)
    return rays.replace(L=L, M=M, N=N)


# Files with RAIM on (1 or 2: our real aiming), traced with their own mode.
REAL_AIMED = (
    "kbg-DoubleGauss.zmx",
    "rayoptics-US00583336-2-scaled.zmx",
    "kbg-MicroscopeObjective.zmx",
)


@pytest.mark.parametrize("name", REAL_AIMED)
def test_real_aimed_corpus_chief_rays_pass_the_stop_centre(name):
    entry = REFERENCE[name]
    optic = _load(name, entry["glass_fallback"])
    assert optic.aiming == "real"
    hy = np.array([0.0, 0.7, 1.0, 0.0, 0.7, 1.0])
    px = np.zeros(6)
    py = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    path = optics.trace_surfaces(optic, (0.0 * hy, hy), (px, py))
    stop = optic.stop_index
    frame = surface_frames(optic.surfaces)[stop]
    at_stop = path[stop]
    x, y = frame.to_local(at_stop.x, at_stop.y, at_stop.z, at_stop.L, at_stop.M, at_stop.N)[:2]
    assert np.all(np.asarray(path[-1].valid)[:3])
    np.testing.assert_allclose(np.asarray(x)[:3], 0.0, atol=TOLERANCE)
    np.testing.assert_allclose(np.asarray(y)[:3], 0.0, atol=TOLERANCE)
    assert np.all(np.isfinite(np.asarray(path[-1].y)))


@pytest.mark.parametrize("name", [n for n in _with_rays() if "paraxial" in REFERENCE[n]])
def test_corpus_paraxial_data_match_optiland(name):
    entry = REFERENCE[name]
    optic = _load(name, entry["glass_fallback"])
    ours = paraxial(optic).as_floats()
    keys = ["epd", "ep_position"]
    image_medium = media(optic.surfaces)[-2][0].index(np.asarray(optic.primary_wavelength))
    in_air = float(image_medium) == 1.0  # Optiland's EFL carries the image-space index
    if in_air:
        keys.append("efl")
    if optic.object_at_infinity:
        keys.append("fno")  # at finite conjugates Optiland's F/# is EFL/EPD
    tilted = any(s.geometry.type_name == "coordinate_break" for s in optic.surfaces)
    if in_air and not tilted:
        keys += ["xpd", "xp_position"]  # Optiland follows the tilted axis; ours ignores tilts
    for key in keys:
        expected, got = entry["paraxial"][key], ours[key]
        if key in ("xpd", "fno"):
            expected, got = abs(expected), abs(got)  # Optiland signs them after mirrors
        if not math.isfinite(expected):  # afocal: Optiland's EFL is ±inf
            assert not math.isfinite(got), key
            continue
        assert got == pytest.approx(expected, rel=TOLERANCE, abs=TOLERANCE), key


def test_the_q_type_asphere_of_asl5040_focuses_to_a_diffraction_limited_spot():
    # The file's glass, Corning C79-80 (7980 fused silica), is read as Malitson's fused
    # silica.  Read with our Q^bfs convention the Thorlabs asphere focuses a collimated
    # 405 nm beam to 0.2 µm RMS (its base conic alone leaves 430 µm), which confirms the
    # surface mapping.  (Optiland does not read QED_TYPE: no reference rays.)
    optic, messages = _load_recording("rayoptics-ASL5040-UV.zmx", None)
    assert any("'C79-80' (CORNING catalog)" in m and "fused_silica/Malitson" in m for m in messages)
    assert optic.surfaces[1].geometry.type_name == "qbfs"
    rho, angle = np.sqrt(np.linspace(0.01, 1.0, 40)), np.linspace(0.0, 6.0, 40)
    rays = optics.trace_rays(optic, (0.0, 0.0), (rho * np.cos(angle), rho * np.sin(angle)))
    assert np.all(rays.valid)
    # Best focus within +-5 µm of the image plane: the file's image distance is in focus.
    best = min(
        np.sqrt(
            np.mean((rays.x + dz * rays.L / rays.N) ** 2 + (rays.y + dz * rays.M / rays.N) ** 2)
        )
        for dz in np.linspace(-0.005, 0.005, 101)
    )
    assert best < 1e-3  # mm


# Reference rays that the apertures Optiland does not read (annular CLAP, OBSC, SQAP and
# decentered apertures) block in optics, with paraxial aiming.
BLOCKED = {
    "kbg-RC_Lens.zmx": {f"{f}_{p}" for f in ("f0", "f07", "f1") for p in ("chief", "half")},
    "rayoptics-US05331467-1.zmx": {"f0_chief", "f07_chief", "f1_chief"},
    "rayoptics-zmax_37992.zmx": {
        f"{f}_{p}" for f in ("f0", "f07", "f1") for p in ("top", "bottom")
    },
    "optiland-LJ1598L1.zmx": set(),
}


@pytest.mark.parametrize("name", sorted(BLOCKED))
def test_corpus_apertures_block_the_rays_they_cover(name):
    entry = REFERENCE[name]
    optic = _load(name, entry["glass_fallback"])
    optic.aiming = "paraxial"
    rays = entry["rays"]
    traced = optics.trace_rays(
        optic,
        tuple(np.array([r[k] for r in rays]) for k in ("hx", "hy")),
        tuple(np.array([r[k] for r in rays]) for k in ("px", "py")),
    )
    blocked = {r["name"] for r, ok in zip(rays, np.asarray(traced.valid)) if not ok}
    assert blocked == BLOCKED[name]


def _load_recording(name, fallback):
    """(optic, the ZemaxWarning messages) of a corpus file."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optic = optics.load(CORPUS / name, glass_fallback=fallback)
    return optic, [str(w.message) for w in caught if issubclass(w.category, ZemaxWarning)]


def test_corpus_mappings_of_floa_raim_and_the_telecentric_flag():
    floa = _load("optiland-lens_floa.zmx", None)
    assert (floa.aperture.type, floa.aperture.value) == ("stop_diameter", 17.0)  # DIAM 8.5
    # Real-image-height fields in telecentric object space are kept: the field solve finds
    # the object heights whose axis-parallel chief rays image at 0, 8 and 12 mm (real rays,
    # to round-off), 0, -31.9957 and -47.9946 mm (rayoptics 0.9.10, tracing axis-parallel
    # rays from them through its own reading of the file: 7.99999956 and 11.9999994 mm).
    telecentric, messages = _load_recording("rayoptics-US05831776-1.zmx", None)
    assert telecentric.fields.object_telecentric
    assert telecentric.fields.type == "real_image_height"
    assert not any("FTYP" in m for m in messages)
    hy = np.array([y for _, y in telecentric.fields.normalized()])
    path = optics.trace_surfaces(telecentric, (0.0 * hy, hy), (0.0, 0.0))
    np.testing.assert_allclose(np.asarray(path[-1].y), [0.0, 8.0, 12.0], atol=1e-12)
    np.testing.assert_allclose(np.asarray(path[0].y), [0.0, -31.99571, -47.99459], atol=1e-5)
    patent, messages = _load_recording("patent-US20030048547A1-t3.zmx", None)
    assert patent.aiming == "paraxial"
    assert any("RAIM: ray aiming is not kept" in m for m in messages)
    assert _load("kbg-DoubleGauss.zmx", None).aiming == "real"  # RAIM 0 1
    assert _load("skzemax-e01_quickfocus.zmx", None).aiming == "paraxial"  # RAIM 0 0


# --- glasses OpticStudio's MISC, CORNING and SCHOTT catalogs name that the database lacks


SUBSTITUTED = {
    "patent-EP0770895A2-1.zmx": ("F_SILICA", "fused_silica/Malitson"),
    "rayoptics-US05831776-1.zmx": ("SILICA", "fused_silica/Malitson"),
    "rayoptics-ASL5040-UV.zmx": ("C79-80", "fused_silica/Malitson"),
    "rayoptics-zmax_55278.zmx": ("BK7", "N-BK7"),
    "optiland-fold_mirrors_complicated.zmx": ("BK7", "N-BK7"),
}


@pytest.mark.parametrize("name", sorted(SUBSTITUTED))
def test_corpus_glass_substitutions_are_exact_entries_named_once(name):
    zemax_name, glass = SUBSTITUTED[name]
    optic, messages = _load_recording(name, None)
    said = [m for m in messages if f"glass '{zemax_name}'" in m]
    assert len(said) == 1 and f"using {glass} (" in said[0]
    names = {getattr(s.material, "name", None) for s in optic.surfaces}
    assert glass in names


# --- optics analyze on every file (the two gratings included)


def _analyzable():
    return sorted(REFERENCE)


def test_every_corpus_file_loads_without_an_error():
    refused = {n for n, e in REFERENCE.items() if "error" in e}
    assert refused == set()


@pytest.mark.parametrize("name", _analyzable())
def test_optics_analyze_runs_on_the_corpus_file(name, capsys):
    fallback = ["--glass-fallback", "model"] if REFERENCE[name]["glass_fallback"] else []
    code = main(["analyze", str(CORPUS / name), "--json", "--rings", "2", *fallback])
    out = capsys.readouterr().out
    assert code == 0
    report = json.loads(out)
    assert report["paraxial"]["epd"] > 0 and report["spot"]
