"""Bad lens files raise LensFileError naming the file, the surface or section, and the key."""

from __future__ import annotations

import json
import math

import pytest
from helpers import REFERENCE

from optics.errors import ConfigurationError, LensFileError
from optics.geometry import GEOMETRY_TYPES, Geometry
from optics.io import load
from optics.io._toml_writer import dumps
from optics.io.lensfile import loads


def _data() -> dict:
    return loads((REFERENCE / "cooke_triplet.toml").read_text(), "toml")


def _error(tmp_path, data, name="cooke.toml") -> str:
    """The message of the LensFileError that loading ``data`` from file ``name`` raises."""
    path = tmp_path / name
    text = json.dumps(data) if name.endswith(".json") else dumps(data)
    path.write_text(text)
    with pytest.raises(LensFileError) as info:
        load(path)
    assert type(info.value) is LensFileError
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    return message


def _with(change) -> dict:
    data = _data()
    change(data)
    return data


# --- surfaces ---------------------------------------------------------------------------


def test_misspelled_surface_key_names_surface_key_and_suggestion(tmp_path):
    data = _with(lambda d: d["surfaces"][3].update(radus=d["surfaces"][3].pop("radius")))
    message = _error(tmp_path, data)
    assert message.endswith(
        "cooke.toml: surface 3: unknown key 'radus' for type 'standard' (did you mean 'radius'?)"
    )


def test_unknown_surface_key_lists_the_keys_of_the_type(tmp_path):
    message = _error(tmp_path, _with(lambda d: d["surfaces"][2].update(colour="blue")))
    assert (
        "surface 2: unknown key 'colour' for type 'standard'; keys for type 'standard': " in message
    )
    assert "radius, conic" in message


def test_key_of_another_surface_type_says_which_type_has_it(tmp_path, monkeypatch):
    class Polished(Geometry):
        type_name = "polished"
        spec_keys = ("polish_depth",)

    monkeypatch.setitem(GEOMETRY_TYPES, "polished", Polished)
    message = _error(tmp_path, _with(lambda d: d["surfaces"][1].update(polish_depth=[1.0])))
    assert (
        "surface 1: unknown key 'polish_depth' for type 'standard' (a key of type 'polished')"
        in message
    )


def test_unknown_surface_type_lists_the_known_types(tmp_path):
    message = _error(tmp_path, _with(lambda d: d["surfaces"][2].update(type="standart")))
    assert (
        "surface 2: unknown surface type 'standart' (did you mean 'standard'?); known types: "
        in message
    )
    assert "standard" in message.rsplit("known types:", 1)[1]


@pytest.mark.parametrize(
    ("index", "key", "value", "expected"),
    [
        (1, "radius", "big", "surface 1: key 'radius' must be a number"),
        (1, "radius", 0.0, "surface 1: key 'radius' must be nonzero"),
        (2, "radius", math.nan, "surface 2: key 'radius' must not be NaN"),
        (2, "thickness", "6 mm", "surface 2: key 'thickness' must be a number, not '6 mm'"),
        (2, "thickness", math.inf, "surface 2: key 'thickness' must be a finite number, not inf"),
        (0, "thickness", -math.inf, "surface 0 (object): key 'thickness' must be finite or inf"),
        (3, "semi_diameter", -1.0, "surface 3: key 'semi_diameter' must be positive, not -1.0"),
        (
            3,
            "decenter",
            [1.0],
            "surface 3: key 'decenter' must be a list [dx, dy] in mm, not [1.0]",
        ),
        (
            3,
            "tilt",
            [1.0, 2.0, "x"],
            "surface 3: key 'tilt' must be a list [rx, ry, rz] in degrees",
        ),
        (4, "stop", "yes", "surface 4: key 'stop' must be true or false, not 'yes'"),
        (5, "material", "SK17", "surface 5: material = 'SK17': unknown glass 'SK17'"),
        (5, "material", {"index": -1.0}, "surface 5: material = {'index': -1.0}: index must be"),
        (1, "type", 3, "surface 1: key 'type' must be a surface type name, not 3"),
    ],
)
def test_bad_surface_values_name_the_surface_and_key(tmp_path, index, key, value, expected):
    message = _error(tmp_path, _with(lambda d: d["surfaces"][index].update({key: value})))
    assert expected in message


def test_object_surface_must_state_its_distance(tmp_path):
    message = _error(tmp_path, _with(lambda d: d["surfaces"][0].pop("thickness")))
    assert (
        "surface 0 (object): missing key 'thickness' (the object distance in mm; inf for" in message
    )


def test_a_surface_that_is_not_a_table_is_named(tmp_path):
    message = _error(
        tmp_path, _with(lambda d: d["surfaces"].__setitem__(2, 4.0)), name="cooke.json"
    )
    assert "surface 2: a surface is a table of keys, not 4.0" in message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.pop("surfaces"), "missing [[surfaces]]"),
        (
            lambda d: d.update(surfaces=d["surfaces"][:2]),
            "[[surfaces]] has 2 entries; at least 3 are needed",
        ),
        (lambda d: d.update(surfaces={"radius": 1.0}), "'surfaces' must be an array of tables"),
    ],
)
def test_missing_or_short_surface_lists_are_refused(tmp_path, change, expected):
    assert expected in _error(tmp_path, _with(change))


def test_two_stops_are_a_lens_file_error_naming_the_file(tmp_path):
    message = _error(tmp_path, _with(lambda d: d["surfaces"][2].update(stop=True)))
    assert "only one surface can be the stop; surfaces [2, 4] are marked" in message
    assert isinstance(
        _catch(tmp_path, _with(lambda d: d["surfaces"][2].update(stop=True))).__cause__,
        ConfigurationError,
    )


def _catch(tmp_path, data):
    (tmp_path / "x.toml").write_text(dumps(data))
    with pytest.raises(LensFileError) as info:
        load(tmp_path / "x.toml")
    return info.value


# --- sections ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda d: d.update(aperure={}),
            "unknown top-level key 'aperure' (did you mean 'aperture'?)",
        ),
        (lambda d: d.update(colour=1), "unknown top-level key 'colour'; allowed: name, aperture"),
        (lambda d: d.update(name=3), "key 'name' must be a string"),
        (lambda d: d.pop("aperture"), "missing section [aperture]"),
        (lambda d: d.update(aperture=10.0), "[aperture] must be a table, not 10.0"),
        (
            lambda d: d["aperture"].update(type="epdd"),
            "aperture: key 'type' must be one of 'epd', 'image_fno', "
            "'object_na', 'stop_diameter', not 'epdd' (did you mean 'epd'?)",
        ),
        (
            lambda d: d["aperture"].update(value=-2.0),
            "aperture: key 'value' must be positive, not -2.0",
        ),
        (lambda d: d["aperture"].pop("value"), "aperture: missing key 'value'"),
        (
            lambda d: d["aperture"].update(valu=1),
            "aperture: unknown key 'valu' (did you mean 'value'?)",
        ),
        (lambda d: d["fields"].update(type="height"), "fields: key 'type' must be one of 'angle'"),
        (lambda d: d["fields"].update(values=[]), "fields: key 'values' must be a non-empty list"),
        (
            lambda d: d["fields"].update(values=[0.0, [0.0, 1.0]]),
            "fields: key 'values[1]' must be a y value like values[0] "
            "(use all y values or all [x, y] pairs)",
        ),
        (
            lambda d: d["fields"].update(values=[[0.0, 1.0], [0.0, 1.0, 2.0]]),
            "fields: key 'values[1]' must be an [x, y] pair of numbers",
        ),
        (
            lambda d: d["fields"].update(values=[0.0, 95.0]),
            "fields: key 'values[1]': field angles must be under 90",
        ),
        (
            lambda d: d["wavelengths"].update(primary=1),
            "wavelengths: key 'primary' = 1 is out of range: "
            "it is a 0-based index into 1 wavelength(s), so 0 to 0",
        ),
        (
            lambda d: d["wavelengths"].update(primary=True),
            "wavelengths: key 'primary' must be an integer index",
        ),
        (
            lambda d: d["wavelengths"].update(values=[0.55, -0.4]),
            "wavelengths: key 'values[1]' must be a positive wavelength in µm, not -0.4",
        ),
        (lambda d: d["wavelengths"].pop("values"), "wavelengths: missing key 'values'"),
        (lambda d: d.update(optimize=[1, 2]), "[optimize] must be a table"),
    ],
)
def test_bad_sections_name_the_section_and_key(tmp_path, change, expected):
    assert expected in _error(tmp_path, _with(change))


# --- files ------------------------------------------------------------------------------


def test_toml_syntax_errors_give_file_and_line(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('name = "x"\n[aperture]\ntype = "epd"\nvalue = 10.0.0\n')
    with pytest.raises(
        LensFileError, match=r"broken.toml: line 4, column \d+: TOML syntax error: "
    ):
        load(path)


def test_json_syntax_errors_give_file_and_line(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{\n  "name": "x",\n}\n')
    with pytest.raises(LensFileError, match=r"broken.json: line 3, column 1: JSON syntax error: "):
        load(path)


def test_a_json_file_must_hold_one_object(tmp_path):
    path = tmp_path / "list.json"
    path.write_text("[1, 2]")
    with pytest.raises(LensFileError, match="list.json: a JSON lens file holds one object"):
        load(path)


def test_unreadable_and_non_text_files_are_lens_file_errors(tmp_path):
    (tmp_path / "folder.toml").mkdir()
    with pytest.raises(LensFileError, match="folder.toml: cannot read the lens file"):
        load(tmp_path / "folder.toml")
    (tmp_path / "binary.toml").write_bytes(b'name = "\xff\xfe"\n')
    with pytest.raises(LensFileError, match=r"binary.toml: not UTF-8 text \(byte 8"):
        load(tmp_path / "binary.toml")


def test_an_unknown_extension_is_refused_on_load(tmp_path):
    (tmp_path / "lens.txt").write_text("")
    with pytest.raises(
        LensFileError, match=r"lens.txt: unknown lens-file extension '.txt'; use .toml or .json"
    ):
        load(tmp_path / "lens.txt")


def test_a_non_path_is_refused():
    with pytest.raises(
        LensFileError, match="a lens file is given by a path or a sample name, not 3"
    ):
        load(3)


def test_errors_in_json_files_name_the_json_file(tmp_path):
    data = _with(lambda d: d["surfaces"][3].update(radus=1.0))
    data["surfaces"][0]["thickness"] = "inf"
    assert "cooke.json: surface 3: unknown key 'radus'" in _error(tmp_path, data, name="cooke.json")
