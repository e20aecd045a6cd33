"""The lens file's [optimize] section: a good one builds a problem, a bad one names its key."""

from __future__ import annotations

import copy

import pytest
from helpers import reference_cooke

from optics import backend as be
from optics.errors import LensFileError
from optics.io import load
from optics.optimize import optimize, problem_from_lens, read_section

LENS = """
name = "singlet"

[aperture]
type = "epd"
value = 4.0

[fields]
type = "angle"
values = [0.0, 3.0]

[wavelengths]
values = [0.55]

[[surfaces]]
thickness = inf

[[surfaces]]
radius = 50.0
thickness = 5.0
material = { index = 1.5 }
stop = true

[[surfaces]]
radius = -50.0
thickness = 45.0

[[surfaces]]

[optimize]
driver = "least_squares"
steps = 20
method = "trf"
variables = [
    "surfaces[1].radius",
    { path = "surfaces[2].thickness", min = 40.0, max = 60.0 },
]

[[optimize.operands]]
type = "rms_spot"
fields = [0, 1]
field_weights = [1.0, 0.5]

[[optimize.operands]]
type = "efl"
target = 52.0
weight = 10.0
"""

GOOD = {
    "variables": ["surfaces[1].radius", {"path": "surfaces[2].thickness", "min": 40.0}],
    "operands": [{"type": "rms_spot"}, {"type": "efl", "target": 52.0, "kind": "at_most"}],
}


def test_a_lens_file_section_builds_a_problem_that_optimizes(tmp_path):
    path = tmp_path / "singlet.toml"
    path.write_text(LENS)
    optic = load(path)
    problem, section = problem_from_lens(optic)
    assert section.driver == "least_squares" and section.steps == 20
    assert section.options == {"method": "trf"}
    assert problem.variables.paths == ["surfaces[1].radius", "surfaces[2].thickness"]
    assert [op.type for op in problem.merit.operands] == ["rms_spot", "efl"]
    assert problem.merit.operands[0].args == {"fields": [0, 1], "field_weights": [1.0, 0.5]}
    with be.using("numpy"):
        result = optimize(
            problem, section.driver, steps=section.steps, **section.run_options("least_squares")
        )
    assert result.merit_after < 0.1 * result.merit_before
    assert 40.0 <= optic.surfaces[2].thickness <= 60.0


def test_run_options_keep_only_what_the_driver_takes():
    section = read_section({**GOOD, "learning_rate": 0.1, "method": "lm"})
    assert section.run_options("adam") == {"learning_rate": 0.1}
    assert section.run_options("least_squares") == {"method": "lm"}
    assert section.run_options("minimize") == {}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.update(drivr="adam"), r"\[optimize\]: unknown key 'drivr'"),
        (lambda s: s.update(driver="sgd"), "key 'driver' must be one of"),
        (lambda s: s.update(steps=-3), "key 'steps' must be a non-negative integer"),
        (lambda s: s.update(steps=2.5), "key 'steps'"),
        (lambda s: s.update(merit_tol="small"), "key 'merit_tol' must be a number"),
        (lambda s: s.update(learning_rate=0.0), "key 'learning_rate' must be positive"),
        (lambda s: s.update(method="dogbox"), "key 'method' must be 'trf' or 'lm'"),
        (lambda s: s.pop("variables"), "key 'variables' must be a non-empty list"),
        (lambda s: s.update(operands=[]), "key 'operands' must be a non-empty list"),
        (lambda s: s["variables"].append(3), r"variables\[2\]: must be a path string"),
        (lambda s: s["variables"].append({"paht": "x"}), r"variables\[2\]: unknown key 'paht'"),
        (
            lambda s: s["variables"].append({"path": 1}),
            r"variables\[2\]: key 'path' must be a string",
        ),
        (
            lambda s: s["variables"][1].update(max=10.0),
            r"variables\[1\]: key 'max' \(10.0\) must be greater",
        ),
        (
            lambda s: s["variables"][1].update(min=True),
            r"variables\[1\]: key 'min' must be a number",
        ),
        (
            lambda s: s["variables"][1].update(scale=-1.0),
            r"variables\[1\]: key 'scale' must be positive",
        ),
        (
            lambda s: s["operands"].append({"target": 1.0}),
            r"operands\[2\]: key 'type' must be one of",
        ),
        (lambda s: s["operands"][1].update(wieght=2.0), r"operands\[1\]: unknown key 'wieght'"),
        (
            lambda s: s["operands"][1].update(kind="below"),
            r"operands\[1\]: key 'kind' must be one of",
        ),
        (
            lambda s: s["operands"][1].update(weight=-1.0),
            r"operands\[1\]: key 'weight' must be >= 0",
        ),
        (
            lambda s: s["operands"][1].update(target="50"),
            r"operands\[1\]: key 'target' must be a number",
        ),
        (
            lambda s: s["operands"].append({"type": "center_thickness"}),
            r"operands\[2\]: .*missing argument.*surface",
        ),
    ],
)
def test_bad_section_raises_naming_the_key(change, message):
    section = copy.deepcopy(GOOD)
    change(section)
    with pytest.raises(LensFileError, match=message):
        read_section(section, "lens.toml: [optimize]")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda s: s["variables"].append("surfaces[12].radius"),
            r"variables\[2\]: key 'path': .*out of range",
        ),
        (
            lambda s: s["variables"].append("surfaces[1].radus"),
            r"variables\[2\]: key 'path': .*radus",
        ),
        (
            lambda s: s["variables"].append("surfaces[1].radius"),
            "listed twice: surfaces\\[1\\].radius",
        ),
        (
            lambda s: s["operands"].append({"type": "rms_spot", "fields": [5]}),
            r"operands\[2\] \(rms_spot\): field index 5",
        ),
        (
            lambda s: s["operands"].append({"type": "edge_thickness", "surface": 9}),
            r"operands\[2\] \(edge_thickness\): surface index 9",
        ),
    ],
)
def test_section_that_does_not_fit_the_optic_names_the_entry(change, message):
    optic = reference_cooke()
    optic.optimize = copy.deepcopy(GOOD)
    change(optic.optimize)
    with pytest.raises(LensFileError, match=message):
        problem_from_lens(optic, "cooke.toml: [optimize]")


def test_missing_section_is_reported():
    with pytest.raises(LensFileError, match="no \\[optimize\\] section"):
        problem_from_lens(reference_cooke())


def test_the_optimize_example_in_the_lens_file_docs_is_valid():
    import re
    from pathlib import Path

    from optics.io.lensfile import loads

    text = (Path(__file__).parents[1] / "docs" / "lens-files.md").read_text()
    (body,) = [
        b for b in re.findall(r"```toml\n(.*?)```", text, re.S) if b.startswith("[optimize]\n")
    ]
    section = read_section(loads(body, "toml", "docs")["optimize"])
    assert (
        section.driver == "minimize" and len(section.variables) == 3 and len(section.operands) == 3
    )
    optic = reference_cooke()
    optic.optimize = loads(body, "toml", "docs")["optimize"]
    problem, _ = problem_from_lens(optic)
    assert problem.variables.paths[2] == "surfaces[6].curvature"
