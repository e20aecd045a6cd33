"""Lens files: exact round trips (TOML, JSON), samples, [optimize] passthrough, atomic saves."""

from __future__ import annotations

import copy
import json
import math
import os
from pathlib import Path

import numpy as np
import pytest
from helpers import REFERENCE
from hypothesis import given, settings
from hypothesis import strategies as st

import optics
from optics import backend as be
from optics import paraxial, samples
from optics.errors import LensFileError
from optics.io import load, optic_from_dict, optic_to_dict, save
from optics.io._toml_writer import dumps as toml_dumps
from optics.io.lensfile import loads
from optics.trace import trace_rays

SAMPLE_FILES = [pytest.param(samples.path(name), id=name) for name in samples.names()]
LENS_FILES = [*SAMPLE_FILES, pytest.param(REFERENCE / "cooke_triplet.toml", id="reference")]

OPTIMIZE = {
    "method": "lbfgs",
    "max_steps": 200,
    "variables": [
        {"surface": 1, "key": "radius", "bounds": [10.0, math.inf]},
        {"surface": 3, "key": "thickness", "bounds": [-math.inf, 8.5]},
    ],
    "operands": [
        {"type": "efl", "target": 50.0, "weight": 1.0},
        {"type": "rms_spot", "fields": [[0.0, 0.0], [0.0, 1.0]], "weight": 0.5},
    ],
    "settings": {
        "note": 'quotes " and \\ and unicode µm',
        "tolerance": 1e-12,
        "nested": {"flag": True},
    },
}


def _files_in(directory: Path) -> list:
    return sorted(p.name for p in directory.iterdir())


def _equal_data(a, b) -> bool:
    """Lens-file data equal, with float and int values compared by type and bits."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _base_data() -> dict:
    return loads((REFERENCE / "cooke_triplet.toml").read_text(), "toml")


# --- round trips --------------------------------------------------------------------------


@pytest.mark.parametrize("path", LENS_FILES)
def test_toml_file_round_trips_to_the_same_data_and_text(path, tmp_path):
    first = load(path)
    save(first, tmp_path / "a.toml")
    second = load(tmp_path / "a.toml")
    save(second, tmp_path / "b.toml")
    assert _equal_data(optic_to_dict(second), optic_to_dict(first))
    assert (tmp_path / "a.toml").read_text() == (tmp_path / "b.toml").read_text()


@pytest.mark.parametrize("path", LENS_FILES)
def test_toml_to_json_to_toml_is_exact(path, tmp_path):
    save(load(path), tmp_path / "a.toml")
    save(load(tmp_path / "a.toml"), tmp_path / "b.json")
    save(load(tmp_path / "b.json"), tmp_path / "c.toml")
    assert (tmp_path / "c.toml").read_text() == (tmp_path / "a.toml").read_text()


@pytest.mark.parametrize("path", LENS_FILES)
def test_bundled_files_are_written_in_canonical_form(path):
    # The data written back equal the data read: radii as given, no defaults added.
    assert _equal_data(optic_to_dict(load(path)), loads(Path(path).read_text(), "toml"))


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_awkward_floats_and_integers_survive_bit_for_bit(suffix, tmp_path):
    data = _base_data()
    values = [0.1 + 0.2, 1 / 3, 5e-324, 1e-300, 1.7976931348623157e308, -2.5e-7, 123456789.00000001]
    data["surfaces"][1]["conic"] = values[0]
    data["surfaces"][2]["radius"] = values[1]
    data["surfaces"][3]["decenter"] = [values[2], values[3]]
    data["surfaces"][4]["tilt"] = [values[4] * 0, values[5], values[6] * 1e-9]
    data["surfaces"][5]["thickness"] = 3  # an integer stays an integer
    original = optic_from_dict(data)
    save(original, tmp_path / f"lens{suffix}")
    assert _equal_data(optic_to_dict(load(tmp_path / f"lens{suffix}")), optic_to_dict(original))
    assert load(tmp_path / f"lens{suffix}").surfaces[5].thickness == 3


def test_json_writes_infinity_as_a_string_and_reads_every_spelling(tmp_path):
    save(load("cooke_triplet"), tmp_path / "lens.json")
    text = (tmp_path / "lens.json").read_text()
    assert '"thickness": "inf"' in text
    for spelling in ('"inf"', "Infinity", '"Infinity"'):
        (tmp_path / "other.json").write_text(text.replace('"inf"', spelling))
        assert math.isinf(load(tmp_path / "other.json").surfaces[0].thickness)


def test_json_keeps_a_glass_called_like_a_number_word(tmp_path):
    data = optic_to_dict(load("cooke_triplet"))
    data["name"] = "inf"
    path = tmp_path / "lens.json"
    path.write_text(json.dumps(data))
    assert load(path).name == "inf"


def test_y_only_fields_are_written_back_as_y_values(tmp_path):
    save(load("cooke_triplet"), tmp_path / "lens.toml")
    assert "values = [0.0, 14.0, 20.0]" in (tmp_path / "lens.toml").read_text()


def test_xy_fields_are_normalized_to_pairs_and_written_back_as_pairs(tmp_path):
    data = _base_data()
    data["fields"]["values"] = [[0.0, 0.0], [0.0, 14.0]]  # all x zero, still pairs
    optic = optic_from_dict(data)
    assert optic.fields.values == [(0.0, 0.0), (0.0, 14.0)]
    save(optic, tmp_path / "lens.toml")
    assert "values = [[0.0, 0.0], [0.0, 14.0]]" in (tmp_path / "lens.toml").read_text()


def test_y_values_become_pairs_with_zero_x():
    data = _base_data()
    assert optic_from_dict(data).fields.values == [(0.0, 0.0), (0.0, 14.0), (0.0, 20.0)]


def test_fields_built_in_python_with_x_are_written_as_pairs():
    optic = load("cooke_triplet")
    optic.fields = optics.Fields("angle", [(0.0, 0.0), (3.0, 4.0)])
    assert optic_to_dict(optic)["fields"]["values"] == [[0.0, 0.0], [3.0, 4.0]]


def test_tensor_parameters_are_written_as_plain_floats(torch_backend):
    optic = load("singlet")
    optic.surfaces[1].geometry.radius = be.parameter(be.asarray(51.5))
    optic.surfaces[2].thickness = be.asarray(97.0)
    surfaces = optic_to_dict(optic)["surfaces"]
    assert surfaces[1]["radius"] == 51.5 and type(surfaces[1]["radius"]) is float
    assert surfaces[2]["thickness"] == 97.0 and type(surfaces[2]["thickness"]) is float


# --- [optimize] passthrough -------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_optimize_section_is_kept_raw_and_written_back_unchanged(suffix, tmp_path):
    data = _base_data()
    data["optimize"] = copy.deepcopy(OPTIMIZE)
    optic = optic_from_dict(data)
    assert optic.optimize == OPTIMIZE and optic.optimize is not data["optimize"]
    save(optic, tmp_path / f"lens{suffix}")
    assert load(tmp_path / f"lens{suffix}").optimize == OPTIMIZE


def test_optimize_section_is_written_as_tables_and_inline_tables(tmp_path):
    data = _base_data()
    data["optimize"] = copy.deepcopy(OPTIMIZE)
    save(optic_from_dict(data), tmp_path / "lens.toml")
    text = (tmp_path / "lens.toml").read_text()
    assert "[optimize]\n" in text and "[optimize.settings]\n" in text
    assert "[optimize.settings.nested]\n" in text
    assert '    { surface = 1, key = "radius", bounds = [10.0, inf] },\n' in text
    assert text.index("[[surfaces]]") < text.index("[optimize]")


def test_materials_are_written_as_inline_tables(tmp_path):
    save(load(REFERENCE / "cooke_triplet.toml"), tmp_path / "lens.toml")
    assert "material = { index = 1.6226085614386923 }\n" in (tmp_path / "lens.toml").read_text()


# --- samples ----------------------------------------------------------------------------


def test_samples_are_listed_and_have_files():
    assert {"cooke_triplet", "double_gauss", "singlet", "achromat"} <= set(samples.names())
    for name in samples.names():
        assert samples.path(name).is_file()


def test_sample_names_load_wherever_a_path_does():
    assert load("cooke_triplet").name == "Cooke triplet"
    assert load("cooke_triplet.toml").name == "Cooke triplet"
    assert optics.load("double_gauss").stop_index == 6


def test_an_unknown_sample_name_lists_the_samples():
    with pytest.raises(
        LensFileError, match="unknown sample 'cooke'.*samples: achromat, cooke_triplet"
    ):
        samples.path("cooke")


def test_a_missing_file_that_is_no_sample_lists_the_samples(tmp_path):
    missing = tmp_path / "nothing.toml"
    with pytest.raises(LensFileError) as info:
        load(missing)
    assert str(missing) in str(info.value) and "cooke_triplet" in str(info.value)


def test_cooke_sample_uses_catalog_glasses_of_the_issue():
    optic = load("cooke_triplet")
    specs = [s.material.to_spec() for s in optic.surfaces]
    assert specs == [
        "air",
        "SK16",
        "air",
        {"name": "F2", "catalog": "schott"},
        "air",
        "SK16",
        "air",
        "air",
    ]
    assert optic.stop_index == 4 and optic.wavelengths.primary_value == 0.55


@pytest.mark.parametrize("name", samples.names())
def test_every_sample_traces_to_a_focus_without_losing_rays(name, backend):
    optic = load(name)
    first_order = paraxial(optic).as_floats()
    t = np.linspace(0.0, 2 * np.pi, 13)
    px, py = be.asarray(np.cos(t)), be.asarray(np.sin(t))
    for hy in (0.0, 0.7, 1.0):
        rays = trace_rays(optic, (0.0, hy), (px, py)).to_numpy()
        assert rays["valid"].all(), (name, hy)
    # On axis the rim of the pupil lands within a small blur of the axis (near focus).
    rays = trace_rays(optic, (0.0, 0.0), (px, py)).to_numpy()
    blur = np.hypot(rays["x"], rays["y"]).max()
    assert blur < 0.01 * first_order["efl"], (name, blur)


# --- atomic saves -----------------------------------------------------------------------


def test_a_failed_serialization_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "lens.toml"
    target.write_text("old contents\n")
    optic = load("cooke_triplet")
    optic.optimize = {"bounds": [1.0, None]}
    with pytest.raises(LensFileError, match=r"lens.toml: .*optimize.bounds\[1\]: TOML has no null"):
        save(optic, target)
    assert target.read_text() == "old contents\n"
    assert _files_in(tmp_path) == ["lens.toml"]


@pytest.mark.parametrize("failing", ["fsync", "replace"])
def test_an_io_failure_while_saving_leaves_the_old_file_and_no_temporary(
    failing, tmp_path, monkeypatch
):
    target = tmp_path / "lens.toml"
    target.write_text("old contents\n")

    def fail(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, fail)
    with pytest.raises(LensFileError, match="lens.toml: cannot write the lens file: No space left"):
        save(load("cooke_triplet"), target)
    monkeypatch.undo()
    assert target.read_text() == "old contents\n"
    assert _files_in(tmp_path) == ["lens.toml"]


def test_a_failed_first_save_leaves_no_file_at_all(tmp_path, monkeypatch):
    monkeypatch.setattr(
        os, "replace", lambda *a: (_ for _ in ()).throw(OSError(13, "Permission denied"))
    )
    with pytest.raises(LensFileError):
        save(load("cooke_triplet"), tmp_path / "lens.json")
    monkeypatch.undo()
    assert _files_in(tmp_path) == []


def test_saving_over_a_file_keeps_its_permissions(tmp_path):
    target = tmp_path / "lens.toml"
    target.write_text("old\n")
    os.chmod(target, 0o640)
    save(load("singlet"), target)
    assert (target.stat().st_mode & 0o777) == 0o640
    assert load(target).name == "Plano-convex singlet"


def test_saving_with_an_unknown_extension_is_refused(tmp_path):
    with pytest.raises(
        LensFileError, match=r"lens.yaml: unknown lens-file extension '.yaml'; use .toml or .json"
    ):
        save(load("singlet"), tmp_path / "lens.yaml")
    assert _files_in(tmp_path) == []


def test_the_examples_in_the_lens_file_docs_load():
    import re

    text = (Path(__file__).parents[1] / "docs" / "lens-files.md").read_text()
    examples = [(fmt, body) for fmt, body in re.findall(r"```(toml|json)\n(.*?)```", text, re.S)]
    complete = [
        optic_from_dict(loads(body, fmt, "docs"), "docs")
        for fmt, body in examples
        if "[[surfaces]]" in body or '"surfaces":' in body  # complete lenses, not [optimize] paths
    ]
    assert len(complete) == 2 and all(o.name == "Cooke triplet" for o in complete)


# --- the TOML writer --------------------------------------------------------------------

_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
_SCALARS = st.one_of(
    st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False), _TEXT
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_TEXT, _VALUES, max_size=6))
def test_the_toml_writer_round_trips_any_document(document):
    text = toml_dumps(document, header="a comment\nover two lines")
    assert _equal_data(loads(text, "toml"), document)


SURFACE_TYPE_EXAMPLES = {
    "even_asphere": {"radius": 20.0, "conic": -1.0, "coefficients": [0.0, -4.7e-6]},
    "odd_asphere": {"radius": 30.0, "coefficients": [1e-4, 2e-6], "tol": 1e-12},
    "biconic": {"radius": 40.0, "radius_x": 60.0, "conic_x": -0.5, "max_iter": 50},
    "toroidal": {"radius": 40.0, "radius_rotation": 80.0, "coefficients": [1e-6]},
    "xy_polynomial": {"radius": 50.0, "coefficients": [[0.0, 0.0, 1e-4], [0.0, 1e-5]]},
    "chebyshev": {"coefficients": [[0.0, 1e-3], [2e-3, 0.0]], "norm_x": 10.0, "norm_y": 12.0},
    "zernike": {"radius": 60.0, "coefficients": [0.0, 0.0, 0.0, 1e-3], "norm_radius": 10.0},
    "qbfs": {"radius": 50.0, "terms": [1e-3, 2e-4], "norm_radius": 10.0},
    "q2d": {
        "radius": 50.0,
        "coefficients": [
            {"type": "a", "m": 0, "n": 0, "value": 1e-3},
            {"type": "b", "m": 1, "n": 1, "value": 2e-4},
        ],
        "norm_radius": 10.0,
    },
}


@pytest.mark.parametrize("kind", sorted(SURFACE_TYPE_EXAMPLES))
@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_every_registered_surface_type_round_trips(kind, suffix, tmp_path):
    from optics.geometry import GEOMETRY_TYPES

    if kind not in GEOMETRY_TYPES:
        pytest.skip(f"surface type {kind!r} is not registered")
    data = _base_data()
    data["surfaces"][2] = {"type": kind, **SURFACE_TYPE_EXAMPLES[kind], "thickness": 6.00755}
    written = optic_to_dict(optic_from_dict(data))
    assert written["surfaces"][2]["type"] == kind
    save(optic_from_dict(data), tmp_path / f"lens{suffix}")
    assert _equal_data(optic_to_dict(load(tmp_path / f"lens{suffix}")), written)
