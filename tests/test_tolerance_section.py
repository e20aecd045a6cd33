"""The lens file's [tolerance] section: it round-trips, and every bad key is an error naming it."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

import optics
from optics.errors import LensFileError
from optics.io import load, optic_from_dict, optic_to_dict, save
from optics.io.lensfile import loads
from optics.tolerance import ToleranceModel, read_section

SECTION = {
    "criterion": {"type": "rms_spot", "fields": [0, 1, 2], "rings": 3},
    "compensators": ["surfaces[6].thickness"],
    "items": [
        {"path": "surfaces[1].radius", "plus_minus": 0.02, "distribution": "normal"},
        {"path": "surfaces[2].thickness", "relative": 0.01, "distribution": "uniform"},
        {"kind": "decenter", "surfaces": [1, 2], "plus_minus": 0.02},
        {"kind": "tilt", "surfaces": [1, 2], "plus_minus": 0.05},
        {"kind": "index", "surface": 1, "plus_minus": 0.001},
        {"kind": "abbe", "surface": 3, "relative": 0.008},
        {"kind": "power", "surface": 4, "plus_minus": 2.0, "aperture": 5.0},
    ],
    "trials": 10,
    "seed": 3,
    "threshold": 0.02,
}


def cooke_with(section):
    data = optic_to_dict(optics.load("cooke_triplet"))
    data["tolerance"] = section
    return optic_from_dict(data, "lens.toml")


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_the_section_round_trips_through_save_and_load(tmp_path, suffix):
    lens = cooke_with(copy.deepcopy(SECTION))
    path = save(lens, tmp_path / f"lens{suffix}")
    again = load(path)
    assert again.tolerance == SECTION
    section = read_section(again.tolerance)
    assert [item.kind for item in section.items] == [
        "parameter",
        "parameter",
        "decenter",
        "tilt",
        "index",
        "abbe",
        "power",
    ]
    assert (section.trials, section.seed, section.threshold) == (10, 3, 0.02)


def test_a_good_section_builds_a_model_with_x_and_y_components():
    model = ToleranceModel(cooke_with(copy.deepcopy(SECTION)))
    assert len(model) == 9  # decenter and tilt have x and y
    assert model.labels[2:4] == ["decenter x surfaces[1-2]", "decenter y surfaces[1-2]"]
    assert model.half_widths[1] == pytest.approx(0.01 * 6.00755)


def _with(change):
    section = copy.deepcopy(SECTION)
    change(section)
    return section


def test_two_items_on_one_parameter_get_distinct_labels():
    section = copy.deepcopy(SECTION)
    section["items"].append({"path": "surfaces[1].radius", "plus_minus": 0.01})
    model = ToleranceModel(cooke_with(section))
    assert model.labels[0] == "surfaces[1].radius (items[0])"
    assert model.labels[-1] == "surfaces[1].radius (items[7])"
    assert len(set(model.labels)) == len(model.labels)


BAD = [
    (lambda s: s.update(critrion={}), "unknown key 'critrion'"),
    (lambda s: s.pop("criterion"), "key 'criterion'"),
    (lambda s: s["criterion"].update(type="rms_spott"), "key 'type'"),
    (lambda s: s["criterion"].update(target=1.0), "unknown key 'target'"),
    (lambda s: s["criterion"].update(feilds=[0]), "unknown key 'feilds'"),
    (lambda s: s.update(compensators="surfaces[6].thickness"), "key 'compensators'"),
    (lambda s: s.update(compensator_driver="newton"), "key 'compensator_driver'"),
    (lambda s: s.update(compensator_steps=0), "key 'compensator_steps'"),
    (lambda s: s.update(trials=-1), "key 'trials'"),
    (lambda s: s.update(threshold="small"), "key 'threshold'"),
    (lambda s: s.update(items=[]), "key 'items'"),
    (lambda s: s["items"][0].update(plus_minos=1.0), "items[0]: unknown key 'plus_minos'"),
    (lambda s: s["items"][0].pop("plus_minus"), "items[0]: give exactly one of"),
    (lambda s: s["items"][0].update(relative=0.1), "items[0]: give exactly one of"),
    (lambda s: s["items"][0].update(plus_minus=-1.0), "items[0]: key 'plus_minus'"),
    (lambda s: s["items"][0].update(distribution="gauss"), "items[0]: key 'distribution'"),
    (lambda s: s["items"][1].update(kind="wobble"), "items[1]: key 'kind'"),
    (lambda s: s["items"][2].update(surfaces=[1, 3]), "items[2]: key 'surfaces'"),
    (lambda s: s["items"][3].update(surface=1), "items[3]: unknown key 'surface'"),
    (lambda s: s["items"][3].update(relative=0.1), "items[3]: unknown key 'relative'"),
    (lambda s: s["items"][4].update(surface=0), "items[4]: key 'surface'"),
]


@pytest.mark.parametrize(("change", "message"), BAD)
def test_a_bad_key_is_an_error_naming_it(change, message):
    with pytest.raises(LensFileError, match="lens.toml: \\[tolerance\\]") as info:
        read_section(_with(change), "lens.toml: [tolerance]")
    assert message in str(info.value)


BAD_FOR_THE_OPTIC = [
    (lambda s: s["items"][0].update(path="surfaces[1].radiu"), "items[0]: key 'path'"),
    (lambda s: s["items"][2].update(surfaces=[6, 7]), "items[2]: key 'surfaces'"),
    (lambda s: s["items"][4].update(surface=2), "items[4]: key 'surface': surface 2 is followed"),
    (lambda s: s["items"][6].pop("aperture"), "items[6]: key 'aperture'"),
    (lambda s: s["items"][6].update(kind="irregularity"), "irregularity needs a 'zernike'"),
    (lambda s: s.update(compensators=["surfaces[6].thicknes"]), "compensators[0]"),
    (lambda s: s["criterion"].update(fields=[0, 5]), "criterion"),
]


@pytest.mark.parametrize(("change", "message"), BAD_FOR_THE_OPTIC)
def test_a_key_that_does_not_fit_the_optic_is_an_error_naming_it(change, message):
    lens = cooke_with(_with(change))
    with pytest.raises(LensFileError, match="lens.toml: \\[tolerance\\]") as info:
        ToleranceModel(lens, where="lens.toml: [tolerance]")
    assert message in str(info.value)


def test_a_section_that_is_not_a_table_is_a_load_error():
    data = optic_to_dict(optics.load("cooke_triplet"))
    data["tolerance"] = [1, 2]
    with pytest.raises(LensFileError, match=r"\[tolerance\] must be a table"):
        optic_from_dict(data, "lens.toml")


@pytest.mark.parametrize("doc", ["tolerancing.md", "lens-files.md"])
def test_the_documented_sections_are_valid(doc):
    text = (Path(__file__).resolve().parents[1] / "docs" / doc).read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```toml\n(.*?)```", text, re.S) if "[tolerance]" in b]
    assert blocks
    for block in blocks:
        section = read_section(loads(block, "toml")["tolerance"])
        assert section.items and section.criterion.type == "rms_spot"
