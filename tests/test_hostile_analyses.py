"""Hostile input, third round (issue 37.4): the newer analysis commands run carelessly.

Each case ends within seconds either with a result (exit 0, one JSON document
without NaN or infinity) or with exit status 2 and one line on stderr naming
the option, key or file: degenerate lenses (afocal, one plane surface, one
wavelength, on-axis only), point counts beyond the budget, frequencies beyond
any cutoff, temperatures and pressures out of range, configurations out of
range.  Nothing here may be a traceback or a bug report (exit 1).
"""

from __future__ import annotations

import json
import time

import pytest

from optics.cli import main

HEADER = """
name = "hostile"
[aperture]
type = "epd"
value = 10.0
[fields]
type = "angle"
values = {fields}
[wavelengths]
values = {waves}
primary = 0
"""

SINGLET = """
[[surfaces]]
thickness = inf
[[surfaces]]
radius = 50.0
thickness = 5.0
material = "N-BK7"
stop = true
[[surfaces]]
radius = -50.0
thickness = 48.0
[[surfaces]]
"""

# Two ideal lenses f = 100 and 50 mm, 150 mm apart: a Keplerian telescope, exactly afocal.
AFOCAL = """
[[surfaces]]
thickness = inf
[[surfaces]]
type = "paraxial"
focal_length = 100.0
thickness = 150.0
stop = true
[[surfaces]]
type = "paraxial"
focal_length = 50.0
thickness = 20.0
[[surfaces]]
"""

# One plane surface in air (a stop and nothing else).
PLANE = """
[[surfaces]]
thickness = inf
[[surfaces]]
thickness = 10.0
stop = true
[[surfaces]]
"""

FOCUS_COMMANDS = [
    ["field-curvature"],
    ["illumination"],
    ["chromatic-focal-shift"],
    ["thermal", "--steps", "2"],
    ["through-focus", "--frequency", "20", "--steps", "3"],
    ["through-focus", "--spot", "--steps", "3"],
    ["mtf-field", "--frequencies", "20", "--points", "3"],
]
# These have a meaning without a focus (angles, heights, surface data): a result.
NO_FOCUS_COMMANDS = [
    ["distortion"], ["lateral-color"], ["footprint"], ["fan"], ["spots"], ["seidel"]
]  # fmt: skip
POINTS_COMMANDS = [
    "field-curvature",
    "distortion",
    "lateral-color",
    "illumination",
    "fan",
    "chromatic-focal-shift",
]


def _lens(tmp_path, surfaces=SINGLET, fields="[0.0, 5.0]", waves="[0.5, 0.6]", extra=""):
    path = tmp_path / "lens.toml"
    path.write_text(HEADER.format(fields=fields, waves=waves) + surfaces + extra)
    return str(path)


def _no_constants(name):
    raise AssertionError(f"{name} in the JSON output")


def _run(capsys, argv):
    start = time.perf_counter()
    status = main(argv)
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert "Traceback" not in err and status in (0, 2), (status, err)
    assert elapsed < 30, elapsed
    return status, out, err


def _refused(capsys, argv, *parts):
    status, out, err = _run(capsys, argv)
    lines = [line for line in err.splitlines() if ": warning:" not in line]
    assert status == 2 and out == "" and len(lines) == 1, (status, err)
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


def _result(capsys, argv):
    status, out, err = _run(capsys, [*argv, "--json"])
    assert status == 0, err
    return json.loads(out, parse_constant=_no_constants)


@pytest.mark.parametrize("surfaces", [AFOCAL, PLANE], ids=["afocal", "plane"])
@pytest.mark.parametrize("command", FOCUS_COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_an_analysis_at_a_focus_refuses_an_afocal_lens(tmp_path, capsys, command, surfaces):
    lens = _lens(tmp_path, surfaces)
    _refused(capsys, [command[0], lens, *command[1:]], "needs a focus, but the system is afocal")


@pytest.mark.parametrize("command", NO_FOCUS_COMMANDS, ids=lambda c: c[0])
def test_an_analysis_without_a_focus_gives_a_result_for_an_afocal_lens(tmp_path, capsys, command):
    _result(capsys, [command[0], _lens(tmp_path, AFOCAL), *command[1:]])


def test_require_focus_is_the_public_guard(tmp_path):
    import optics
    from optics.analysis import require_focus
    from optics.errors import ConfigurationError

    require_focus(optics.load(_lens(tmp_path)), "a test")  # the singlet has a focus
    with pytest.raises(ConfigurationError, match="a test needs a focus.*at 0.6 µm"):
        require_focus(optics.load(_lens(tmp_path, AFOCAL)), "a test", 0.6)


@pytest.mark.parametrize("command", POINTS_COMMANDS)
@pytest.mark.parametrize("points", ["1000000000", "100000"])
def test_a_point_count_beyond_the_budget_is_refused_at_once(tmp_path, capsys, command, points):
    line = _refused(capsys, [command, _lens(tmp_path), "--points", points], "points", "limit")
    assert points in line


@pytest.mark.parametrize("points", ["0", "-1", "1e9"])
@pytest.mark.parametrize("command", POINTS_COMMANDS + ["mtf-field"])
def test_a_point_count_that_is_no_positive_integer_is_refused(tmp_path, capsys, command, points):
    argv = [command, _lens(tmp_path), f"--points={points}"]
    if command == "mtf-field":
        argv += ["--frequencies", "10"]
    _refused(capsys, argv, "--points")


@pytest.mark.parametrize(
    "argv",
    [
        ["lateral-color"],
        ["chromatic-focal-shift"],
        ["through-focus", "--frequency", "20", "--steps", "2"],
        ["through-focus", "--spot", "--steps", "2"],
        ["mtf-field", "--frequencies", "20", "--points", "2"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_one_wavelength_gives_a_result_where_colour_is_asked(tmp_path, capsys, argv, as_json):
    lens = _lens(tmp_path, waves="[0.55]")
    status, out, err = _run(capsys, [argv[0], lens, *argv[1:], *(["--json"] if as_json else [])])
    assert status == 0, err
    if as_json:
        record = json.loads(out, parse_constant=_no_constants)
        if argv[0] == "lateral-color":  # the shortest minus the longest wavelength: itself
            assert all(d == 0.0 for d in record["difference"])
        if argv[0] == "chromatic-focal-shift":
            assert all(abs(s) == 0.0 for s in record["shift"])
    else:
        assert "0.55 um" in out or argv[0] in ("lateral-color", "chromatic-focal-shift")


@pytest.mark.parametrize(
    "argv, part",
    [
        (["mtf-field", "--frequencies", "1e308", "--points", "2"], "at most 1e+06 cycles/mm"),
        (["mtf-field", "--frequencies", "nan", "--points", "2"], "--frequencies"),
        (["mtf-field", "--frequencies", "-5", "--points", "2"], "--frequencies"),
        (["through-focus", "--frequency", "1e308", "--steps", "2"], "at most 1e+06 cycles/mm"),
        (["through-focus", "--frequency", "-1", "--steps", "2"], "--frequency"),
        (["through-focus", "--frequency", "nan", "--steps", "2"], "--frequency"),
        (["mtf", "--frequencies", "1e20"], "at most 1e+06 cycles/mm"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_a_frequency_beyond_every_cutoff_or_not_finite_is_refused(tmp_path, capsys, argv, part):
    _refused(capsys, [argv[0], _lens(tmp_path), *argv[1:]], part)


def test_frequency_zero_is_a_contrast_of_one(tmp_path, capsys):
    record = _result(capsys, ["mtf-field", _lens(tmp_path), "--frequencies", "0", "--points", "2"])
    values = [v for key in ("tangential", "sagittal") for row in record[key] for v in row]
    assert len(values) == 4 and all(v == pytest.approx(1.0, abs=1e-9) for v in values)


@pytest.mark.parametrize(
    "argv",
    [
        ["through-focus", "--frequency", "20", "--steps", "3", "--defocus=0.1,-0.1"],
        ["through-focus", "--spot", "--steps", "3", "--defocus=0.1,-0.1"],
        ["thermal", "--from", "60", "--to", "-20", "--steps", "2"],
    ],
    ids=["mtf", "spot", "thermal"],
)
def test_a_reversed_range_runs_in_the_order_given(tmp_path, capsys, argv):
    record = _result(capsys, [argv[0], _lens(tmp_path), *argv[1:]])
    axis = record.get("defocus") or record.get("temperatures")
    assert axis[0] > axis[-1] and len(axis) == 3


@pytest.mark.parametrize(
    "options",
    [["--plot", "{out}", "--grid", "{out}"], ["--plot", "{out}", "--opd-plot", "{dot}"]],
    ids=["distortion", "fan"],
)
def test_two_figures_to_one_file_are_refused_before_the_work(tmp_path, capsys, options):
    out = tmp_path / "figure.png"
    dot = tmp_path / "." / "figure.png"
    command = "distortion" if "--grid" in options else "fan"
    argv = [command, _lens(tmp_path), *(o.format(out=out, dot=dot) for o in options)]
    _refused(capsys, argv, "name the same file")
    assert not out.exists()


ALL_COMMANDS = [c for c in FOCUS_COMMANDS if c[1:2] != ["--spot"]] + NO_FOCUS_COMMANDS


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=lambda c: c[0])
def test_an_on_axis_only_lens_gives_every_analysis_a_result(tmp_path, capsys, command):
    record = _result(capsys, [command[0], _lens(tmp_path, fields="[0.0]"), *command[1:]])
    assert record


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=lambda c: c[0])
def test_a_field_of_90_degrees_is_refused_naming_the_key(tmp_path, capsys, command):
    lens = _lens(tmp_path, fields="[0.0, 90.0]")
    _refused(capsys, [command[0], lens, *command[1:]], lens, "values[1]", "under 90 degrees")


SIZE_CASES = {
    "illumination rings": (lambda a, o: a.relative_illumination(o, rings=0), "rings must be"),
    "illumination angles": (lambda a, o: a.relative_illumination(o, angles=2), "angles must be"),
    "illumination samples": (lambda a, o: a.relative_illumination(o, samples=10**9), "samples is"),
    "field curvature": (lambda a, o: a.field_curvature(o, points=10**6), "points is 1000000"),
    "distortion": (lambda a, o: a.distortion(o, points=1), "points must be at least 2"),
    "lateral colour": (lambda a, o: a.lateral_color(o, points=True), "points must be an integer"),
    "focal shift": (lambda a, o: a.chromatic_focal_shift(o, points=10**9), "points is 1000000000"),
    "fans": (lambda a, o: a.fans(o, n=0), "pupil points per fan must be at least 1"),
    "grid": (lambda a, o: a.grid_distortion(o, points=10**7), "grid points is 10000000"),
    "grid of 1": (lambda a, o: a.grid_distortion(o, points=1), "grid points must be at least 2"),
}


@pytest.mark.parametrize("case", SIZE_CASES)
def test_the_python_analyses_check_their_sizes_before_tracing(case):
    import optics
    from optics import analysis
    from optics.limits import BudgetError

    call, part = SIZE_CASES[case]
    with pytest.raises(BudgetError, match=part):
        call(analysis, optics.load("singlet"))
