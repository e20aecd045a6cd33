"""Fuzz the command with generated lens files, ray files and pictures (hypothesis, derandomized).

Whatever the input, ``optics analyze``/``optics trace`` either exit 0 with one
valid JSON document on stdout (no NaN or infinity in it) or exit 2 with
exactly one line on stderr and nothing on stdout: never a traceback, never a
bug report (exit 1); a spot with valid rays has statistics (not null).  The
command's ``main()`` runs in-process, so each example costs milliseconds.
"""

from __future__ import annotations

import contextlib
import io
import json
import math

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from optics.cli import main  # noqa: E402

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,  # the same examples on every run: CI stays deterministic
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)

BASE = {
    "name": "fuzz",
    "aperture": {"type": "epd", "value": 10.0},
    "fields": {"type": "angle", "values": [0.0, 5.0]},
    "wavelengths": {"values": [0.5, 0.6], "primary": 0},
    "surfaces": [
        {"thickness": "inf"},
        {"radius": 50.0, "thickness": 5.0, "material": {"index": 1.5}, "stop": True},
        {"radius": -50.0, "thickness": 45.0, "semi_diameter": 8.0},
        {},
    ],
}

NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-300, 1e308, -1e308, 1e12, 0.5, 90.0, -1.0]),
    st.integers(min_value=-(10**400), max_value=10**400),
)
PLAUSIBLE = st.one_of(
    st.floats(min_value=-200.0, max_value=200.0),
    st.floats(min_value=-1e-3, max_value=1e-3),
    NUMBERS,
)
SCALARS = st.one_of(
    NUMBERS,
    st.booleans(),
    st.none(),
    st.text(max_size=12),
    st.sampled_from(["inf", "-inf", "N-BK7", "BK7", "mirror", "air", "angle", "epd", "nope"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)


def _paths(value, prefix=()):
    """Every (path, value) inside a lens-file dict, the root included."""
    yield prefix, value
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*prefix, index))


@st.composite
def lens_data(draw):
    """BASE with a few values replaced, keys deleted or unknown keys added."""
    data = json.loads(json.dumps(BASE))
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p, _ in _paths(data) if p]
        path = draw(st.sampled_from(paths))
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "replace":
            parent[path[-1]] = draw(VALUES)
        elif action == "delete":
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = draw(VALUES)
        else:
            parent.append(draw(VALUES))
    return data


@st.composite
def lens_numbers(draw):
    """BASE with some of its numbers replaced by other numbers (mostly plausible ones)."""
    data = json.loads(json.dumps(BASE))
    numeric = [p for p, v in _paths(data) if isinstance(v, (int, float)) and p]
    numeric += [("surfaces", i, key) for i in (1, 2) for key in ("conic", "decenter", "tilt")]
    for path in draw(st.lists(st.sampled_from(numeric), min_size=1, max_size=3, unique=True)):
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        if path[-1] in ("decenter", "tilt"):
            size = 2 if path[-1] == "decenter" else 3
            parent[path[-1]] = draw(st.lists(PLAUSIBLE, min_size=size, max_size=size))
        else:
            parent[path[-1]] = draw(PLAUSIBLE)
    return data


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _no_constants(name):
    raise AssertionError(f"{name} in the JSON output")


def _check(argv):
    status, out, err = _run(argv)
    assert "Traceback" not in err
    if status == 0:
        report = json.loads(out, parse_constant=_no_constants)  # one document, no NaN/inf
        for spot in report.get("spot", []) if isinstance(report, dict) else []:
            if spot["n_invalid"] < spot["n_rays"]:  # valid rays give statistics, never null
                assert spot["rms_radius_centroid"] is not None, spot
        assert all(": warning: " in line for line in err.splitlines()), err
    else:
        assert status == 2, f"exit {status}: {err}"
        assert out == "" and err.count("\n") == 1 and ": error: " in err, err
    return status


@FUZZ
@given(data=lens_data())
def test_any_json_lens_file_gives_a_result_or_one_line(tmp_path, data):
    path = tmp_path / "lens.json"
    path.write_text(json.dumps(data, allow_nan=True))
    _check(["analyze", str(path), "--json", "--rings", "1"])


@FUZZ
@given(data=lens_numbers())
def test_any_numbers_in_a_lens_file_give_a_result_or_one_line(tmp_path, data):
    path = tmp_path / "lens.json"
    path.write_text(json.dumps(data, allow_nan=True))
    _check(["analyze", str(path), "--json", "--rings", "1"])


@FUZZ
@given(text=st.text(max_size=200))
def test_any_text_as_a_lens_file_gives_a_result_or_one_line(tmp_path, text):
    for suffix in (".toml", ".json"):
        path = tmp_path / f"lens{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        assert _check(["analyze", str(path), "--json", "--rings", "1"]) == 2


@FUZZ
@given(value=VALUES, key=st.sampled_from(["radius", "thickness", "conic", "semi_diameter"]))
def test_any_toml_surface_value_gives_a_result_or_one_line(tmp_path, value, key):
    surface = {"radius": "50.0", "thickness": "5.0", "material": "{ index = 1.5 }"}
    surface[key] = _toml(value)
    lines = "\n".join(f"{k} = {v}" for k, v in surface.items())
    text = (
        '[aperture]\ntype = "epd"\nvalue = 10.0\n\n[[surfaces]]\nthickness = inf\n\n'
        f"[[surfaces]]\n{lines}\n\n"
        "[[surfaces]]\nradius = -50.0\nthickness = 45.0\n\n[[surfaces]]\n"
    )
    path = tmp_path / "lens.toml"
    path.write_text(text)
    _check(["analyze", str(path), "--json", "--rings", "1"])


def _toml(value):
    """A TOML value for plain data (None as an empty inline table, which TOML can hold)."""
    if value is None:
        return "{}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    return str(value)


NUMBER_CELLS = st.one_of(
    st.floats(min_value=-2.0, max_value=2.0), st.floats(allow_nan=True, allow_infinity=True)
).map(repr)
CELLS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["", " ", "nan", "-inf", "1e400", "0.55", "-0.55", "x", '"1"', "1,2"]),
)
COLUMNS = st.lists(
    st.sampled_from(["hx", "hy", "px", "py", "wavelength", "hz", " hx", ""]), max_size=6
)


@FUZZ
@given(
    header=st.one_of(st.just(["hx", "hy", "px", "py", "wavelength"]), COLUMNS),
    rows=st.lists(
        st.one_of(st.lists(NUMBER_CELLS, min_size=4, max_size=5), st.lists(CELLS, max_size=6)),
        max_size=5,
    ),
    bom=st.booleans(),
)
def test_any_ray_file_gives_a_result_or_one_line(tmp_path, header, rows, bom):
    lens = tmp_path / "lens.json"
    lens.write_text(json.dumps(BASE))
    text = "\n".join(",".join(cells) for cells in [header, *rows]) + "\n"
    rays = tmp_path / "rays.csv"
    rays.write_text(("\ufeff" if bom else "") + text)
    _check(["trace", str(lens), "--rays", str(rays), "--json"])


# -- optics simulate: the picture ---------------------------------------------------------

#: Modes each format can be written in by Pillow (what the generated pictures use).
IMAGE_MODES = {
    "PNG": ("1", "L", "LA", "P", "RGB", "RGBA", "I;16"),
    "GIF": ("L", "P"),
    "TIFF": ("1", "L", "LA", "P", "RGB", "RGBA", "CMYK", "I;16", "F"),
    "BMP": ("1", "L", "P", "RGB"),
    "JPEG": ("L", "RGB", "CMYK"),
    "PPM": ("1", "L", "RGB"),
}
PICTURE_FUZZ = settings(FUZZ, max_examples=40)  # about 0.15 s each (lens, scene, PNG written)
CHEAP_SIMULATE = ["--psf-grid", "1", "--wavelengths-per-channel", "1", "--pupil-samples", "8"]


@st.composite
def pictures(draw):
    """(file bytes, format) of a small picture of a random size, mode and content."""
    np = pytest.importorskip("numpy")
    image_module = pytest.importorskip("PIL.Image")
    file_format = draw(st.sampled_from(sorted(IMAGE_MODES)))
    mode = draw(st.sampled_from(IMAGE_MODES[file_format]))
    width, height = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    seed = draw(st.integers(0, 2**32 - 1))
    values = np.random.default_rng(seed).random((height, width, 4))
    if mode == "F":
        special = draw(st.sampled_from([0.5, 2.0, -1.0, float("nan"), float("inf")]))
        plane = values[:, :, 0].astype(np.float32)
        plane[0, 0] = special
        picture = image_module.fromarray(plane, mode="F")
    elif mode == "I;16":
        picture = image_module.fromarray((values[:, :, 0] * 65535).astype(np.uint16))
    else:
        picture = image_module.fromarray((values[:, :, :3] * 255).astype(np.uint8)).convert(mode)
    extra = {}
    if file_format == "GIF" and draw(st.booleans()):  # an animation of two frames
        extra = {"save_all": True, "append_images": [picture.copy()]}
    buffer = io.BytesIO()
    picture.save(buffer, format=file_format, **extra)
    return buffer.getvalue(), file_format


@st.composite
def picture_bytes(draw):
    """A picture's bytes as made, cut short, with bytes changed or with junk after it; or noise."""
    data, _format = draw(pictures())
    action = draw(st.sampled_from(["keep", "cut", "flip", "append", "noise"]))
    if action == "cut":
        return data[: draw(st.integers(0, max(len(data) - 1, 0)))]
    if action == "flip":
        data = bytearray(data)
        for _ in range(draw(st.integers(1, 4))):
            index = draw(st.integers(0, len(data) - 1))
            data[index] = draw(st.integers(0, 255))
        return bytes(data)
    if action == "append":
        return data + draw(st.binary(min_size=1, max_size=64))
    if action == "noise":
        return data[:8] + draw(st.binary(max_size=200))  # a known signature, then anything
    return data


def _fake_render(seen):
    """A stand-in for simulate_image that records the picture it is given (milliseconds)."""
    import types

    from optics import backend as be

    def render(optic, scene, *, sensor, **options):
        picture = be.to_numpy(scene.image)
        seen.append(picture)
        return types.SimpleNamespace(image=picture, info={})

    return render


@PICTURE_FUZZ
@given(data=picture_bytes(), suffix=st.sampled_from([".png", ".jpg", ".tif", ".gif", ".bin", ""]))
def test_any_bytes_as_the_picture_give_a_result_or_one_line(tmp_path, monkeypatch, data, suffix):
    import numpy as np

    seen = []
    monkeypatch.setattr("optics.imaging.simulate_image", _fake_render(seen))
    path = tmp_path / f"scene{suffix}"
    path.write_bytes(data)
    out = tmp_path / "out.png"
    out.unlink(missing_ok=True)
    argv = ["simulate", "singlet", str(path), "-o", str(out), *CHEAP_SIMULATE, "--json"]
    status = _check(argv)
    hypothesis.event(f"exit {status}")  # --hypothesis-show-statistics: both outcomes occur
    assert path.read_bytes() == data  # the input is never written
    if status == 0:  # the picture that reached the simulation: finite radiance, (H, W, 3)
        (picture,) = seen
        assert picture.ndim == 3 and picture.shape[2] == 3 and min(picture.shape[:2]) >= 1
        assert np.all(np.isfinite(picture)) and np.all(picture >= 0)
        assert out.is_file()
    else:
        assert not out.exists()


SIMULATE_FUZZ = settings(FUZZ, max_examples=4)  # the real simulation: about 0.7 s each


@SIMULATE_FUZZ
@given(made=pictures())
def test_any_small_picture_simulates_to_the_sensor_or_one_line(tmp_path, made):
    from optics.io.image import read_image

    data, file_format = made
    path = tmp_path / f"scene.{file_format.lower()}"
    path.write_bytes(data)
    out = tmp_path / "out.png"
    out.unlink(missing_ok=True)
    argv = ["simulate", "singlet", str(path), "-o", str(out), *CHEAP_SIMULATE]
    if _check([*argv, "--sensor", "6x4@0.05", "--json"]) == 0:
        assert read_image(out).shape == (4, 6, 3)
