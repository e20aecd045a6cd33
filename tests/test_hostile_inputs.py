"""Hostile input, third round (issue 37.4): environments, configurations, global search, glasses.

Temperatures below absolute zero or above 1000 °C and pressures outside 0..100 atm
(``[environment]``, configuration rows, ``optics thermal``), configuration counts
beyond the budget, global-search seeds, workers and local drivers that make no
sense, glass substitution that has nothing to substitute, constraints that no
design can meet: each is one line on stderr with exit status 2 naming the key or
option, or a result with a warning, within seconds, and the input is untouched.
"""

from __future__ import annotations

import hashlib
import math
import time

import pytest

import optics
from optics.cli import main
from optics.errors import ConfigurationError
from optics.thermal import MAX_PRESSURE, MAX_TEMPERATURE, Environment

SINGLET = optics.samples.path("singlet").read_text()
ZOOM = """
name = "zoom"
[aperture]
type = "epd"
value = 5.0
[fields]
type = "angle"
values = [0.0, 10.0]
[wavelengths]
values = [0.5875618]
[[surfaces]]
thickness = inf
[[surfaces]]
radius = -100.0
thickness = 2.0
material = "N-BK7"
[[surfaces]]
radius = 18.35
thickness = 10.0
[[surfaces]]
stop = true
thickness = 1.0
[[surfaces]]
radius = 25.8
thickness = 4.0
material = "N-BK7"
[[surfaces]]
radius = -25.8
thickness = 60.0
[[surfaces]]
"""


def _run(capsys, argv):
    start = time.perf_counter()
    status = main(argv)
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert "Traceback" not in err and status in (0, 2), (status, err)
    assert elapsed < 30
    return status, out, err


def _refused(capsys, argv, *parts):
    status, out, err = _run(capsys, argv)
    lines = [line for line in err.splitlines() if ": warning:" not in line]
    assert status == 2 and out == "" and len(lines) == 1, (status, err)
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


def _write(tmp_path, text, name="lens.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _digest(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


# --- temperatures and pressures -------------------------------------------------------


@pytest.mark.parametrize(
    "table, part",
    [
        ("temperature = -300.0", "temperature"),
        ("temperature = -273.15", "temperature"),
        ("temperature = 1000.5", "<= 1000"),
        ("temperature = nan", "'temperature'"),
        ("pressure = -1.0", "pressure"),
        ("pressure = 1e9", "<= 100"),
        ("pressure = inf", "'pressure'"),
    ],
)
@pytest.mark.parametrize("command", [["analyze"], ["thermal", "--steps", "2"], ["seidel"]])
def test_an_environment_out_of_range_is_refused_naming_the_key(
    tmp_path, capsys, table, part, command
):
    lens = _write(tmp_path, SINGLET + f"\n[environment]\n{table}\n")
    _refused(capsys, [command[0], lens, *command[1:]], lens, "[environment]", part)


@pytest.mark.parametrize(
    "row, part",
    [
        ("temperature = [20.0, -300.0]", "temperature"),
        ("temperature = [20.0, 5000.0]", "<= 1000"),
        ("pressure = [1.0, 1000.0]", "<= 100"),
        ("pressure = [1.0, -1.0]", "pressure"),
    ],
)
def test_a_configuration_row_out_of_range_is_refused(tmp_path, capsys, row, part):
    lens = _write(tmp_path, ZOOM + f"\n[configurations.values]\n{row}\n")
    _refused(capsys, ["seidel", lens, "--config", "all"], lens, "[configurations]", part)


@pytest.mark.parametrize(
    "option, value, part",
    [
        ("--from", "-300", "-273.15"),
        ("--to", "5000", "1000"),
        ("--to", "nan", "finite"),
        ("--pressure", "-1", "0 to 100 atm"),
        ("--pressure", "1e9", "0 to 100 atm"),
        ("--pressure", "nan", "finite"),
    ],
)
def test_thermal_options_out_of_range_are_refused(capsys, option, value, part):
    _refused(capsys, ["thermal", "singlet", f"{option}={value}"], option, part)


def test_the_bounds_themselves_are_accepted():
    hot = Environment(temperature=MAX_TEMPERATURE, pressure=MAX_PRESSURE)
    assert (hot.temperature, hot.pressure) == (1000.0, 100.0)
    for bad in (dict(temperature=math.nextafter(MAX_TEMPERATURE, 2e3)), dict(pressure=100.01)):
        with pytest.raises(ConfigurationError):
            Environment(**bad)


THERMAL_CALLS = {
    "steps 1e9": (lambda t, o: t.thermal_focus_shift(o, -20, 60, steps=10**9), "1 to 1000"),
    "steps 0": (lambda t, o: t.thermal_focus_shift(o, -20, 60, steps=0), "1 to 1000"),
    "start nan": (lambda t, o: t.thermal_focus_shift(o, math.nan, 60, steps=2), "temperature"),
    "2000 C": (lambda t, o: t.at_environment(o, 2000.0), "<= 1000"),
    "1e5 atm": (lambda t, o: t.at_environment(o, 20.0, pressure=1e5), "<= 100"),
}


@pytest.mark.parametrize("case", THERMAL_CALLS)
def test_the_thermal_api_refuses_what_the_command_refuses(case):
    from optics import thermal

    call, part = THERMAL_CALLS[case]
    with pytest.raises(ConfigurationError, match=part):
        call(thermal, optics.load("singlet"))


def test_the_command_and_the_api_share_the_step_limit():
    from optics.cli._thermal import MAX_STEPS as COMMAND
    from optics.thermal._focus import MAX_STEPS as API

    assert COMMAND == API


# --- configurations -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "table, part",
    [
        ("[configurations]\ncount = 1000000000\n[configurations.values]\n", "'count' is 1000000"),
        (
            '[configurations.values]\n"surfaces[2].thickness" = [' + "9.0, " * 1500 + "9.0]\n",
            "more than the limit of 1000",
        ),
        ("[configurations.values]\nstop = [3, 9]\n", "configuration 2: key 'stop'"),
        ("[configurations.values]\nstop = [3, 0]\n", "configuration 2: key 'stop'"),
        ("[configurations.values]\nstop = [3, 2.5]\n", "key 'stop'"),
        ('[configurations.values]\n"surfaces[99].thickness" = [9.0, 19.0]\n', "surfaces[99]"),
    ],
    ids=["count", "long-row", "stop-9", "stop-0", "stop-2.5", "surface-99"],
)
def test_configurations_out_of_range_are_refused_when_read(tmp_path, capsys, table, part):
    lens = _write(tmp_path, ZOOM + "\n" + table)
    _refused(capsys, ["field-curvature", lens, "--config", "1"], lens, part)


def test_a_stop_that_moves_between_configurations_gives_each_its_own_result(tmp_path, capsys):
    import json

    lens = _write(tmp_path, ZOOM + "\n[configurations.values]\nstop = [3, 4]\n")
    status, out, err = _run(capsys, ["seidel", lens, "--config", "all", "--json"])
    assert status == 0, err
    records = json.loads(out)
    per_config = records if isinstance(records, list) else records["configurations"]
    assert len(per_config) == 2 and per_config[0] != per_config[1]


@pytest.mark.parametrize("number, part", [("3", "1 to 2"), ("0", "from 1"), ("-1", "from 1")])
def test_a_config_option_out_of_range_is_refused(tmp_path, capsys, number, part):
    rows = '\n[configurations.values]\n"surfaces[2].thickness" = [9, 19]\n'
    lens = _write(tmp_path, ZOOM + rows)
    _refused(capsys, ["distortion", lens, f"--config={number}"], part)


# --- global search, glass substitution, constraints ----------------------------------------

SEARCH = ["--backend", "numpy", "--vary", "radius:1:15:30", "--operand", "efl=50", "--steps", "2"]


@pytest.mark.parametrize(
    "extra, part",
    [
        (["--workers", "0"], "--workers"),
        (["--workers", "-3"], "--workers"),
        (["--workers", "100000"], "more than the limit of 256"),
        (["--starts", "0"], "--starts"),
        (["--starts", "100000000"], "more than the limit"),
        (["--seed", "-1"], "seed must be an integer >= 0"),
        (["--local-driver", "nope"], "unknown driver 'nope'"),
        (["--scheduler", "nonsense"], "scheduler address 'nonsense'"),
        (["--scheduler", "tcp://:99999"], "no host"),
    ],
)
def test_a_global_search_with_senseless_options_is_refused(tmp_path, capsys, extra, part):
    lens = _write(tmp_path, optics.samples.path("cooke_triplet").read_text())
    before = _digest(lens)
    out = tmp_path / "best.toml"
    argv = ["optimize", lens, *SEARCH, "--driver", "global", "--starts", "2", "-o", str(out)]
    _refused(capsys, argv + extra, part)
    assert not out.exists() and _digest(lens) == before


def test_a_global_search_with_an_unknown_driver_in_python_names_it():
    from optics.optimize import Operand, Problem, Variable, global_search

    problem = Problem(
        optics.load("singlet"), [Variable("surfaces[1].radius", 40, 60)], [Operand("efl", 100)]
    )
    with pytest.raises(ConfigurationError, match="unknown local driver 'nope'"):
        global_search(problem, starts=2, local="nope")
    with pytest.raises(ConfigurationError, match="seed"):
        global_search(problem, starts=2, seed=-1)


@pytest.mark.parametrize(
    "extra, part",
    [
        (["--glass-radius", "-1"], "--glass-radius"),
        (["--glass-radius", "nan"], "--glass-radius"),
        (["--glass-catalogs", "nope"], "unknown glass catalog"),
        (["--glass-catalog", "EMPTY"], "no glass records"),
    ],
)
def test_glass_substitution_with_nothing_to_draw_from_is_refused(tmp_path, capsys, extra, part):
    lens = _write(tmp_path, optics.samples.path("cooke_triplet").read_text())
    empty = tmp_path / "empty.agf"
    empty.write_text("CC no glasses at all\n")
    extra = [str(empty) if e == "EMPTY" else e for e in extra]
    out = tmp_path / "best.toml"
    argv = ["optimize", lens, *SEARCH, "--glass-substitute", "1", "-o", str(out), *extra]
    _refused(capsys, argv, part)
    assert not out.exists()


def test_glass_substitution_with_no_glass_in_reach_keeps_the_glass_with_a_warning(tmp_path):
    from optics.optimize import Operand, Problem, Variable, substitute_glasses
    from optics.optimize.diagnostics import OptimizationWarning

    optic = optics.load("singlet")
    problem = Problem(optic, [Variable("surfaces[1].radius", 40, 60)], [Operand("efl", 100)])
    with pytest.warns(OptimizationWarning, match="no other glass of hikari within 0 of N-BK7"):
        result = substitute_glasses(problem, [1], catalogs=["hikari"], radius=0.0, steps=2)
    assert result.surfaces[0]["chosen"] == result.surfaces[0]["before"] == "N-BK7 (schott)"
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ConfigurationError, match="search radius"):
            substitute_glasses(problem, [1], radius=bad)


def test_constraints_that_leave_no_value_are_refused_before_the_run(tmp_path, capsys):
    lens = _write(tmp_path, optics.samples.path("cooke_triplet").read_text())
    out = tmp_path / "best.toml"
    argv = ["optimize", lens, *SEARCH, "-o", str(out),
            "--constraint", "center_thickness>=5,surface=1",
            "--constraint", "center_thickness<=1,surface=1"]  # fmt: skip
    _refused(capsys, argv, "cannot both be met", ">= 5 and <= 1")
    assert not out.exists()


def test_a_constraint_no_design_meets_gives_the_best_infeasible_lens_and_says_so(tmp_path, capsys):
    import json

    lens = _write(tmp_path, optics.samples.path("cooke_triplet").read_text())
    out = tmp_path / "best.toml"
    argv = ["optimize", lens, *SEARCH, "-o", str(out), "--constraint", "total_track<=1", "--json"]
    status, stdout, err = _run(capsys, argv)
    assert status == 0 and "no recorded point meets every constraint" in err
    (row,) = json.loads(stdout)["constraints"]
    assert row["satisfied"] is False and row["value"] > 1.0
    assert out.exists()


# --- CODE V .seq files -------------------------------------------------------------------

SEQ = "tit 'singlet'\ndim m\nso 0. 100.\ns 0.1 1 nbk7_schott\ns -.05 15\nsi 0 0\nfno 5.0\n"


@pytest.mark.parametrize(
    "text, part",
    [
        (SEQ + "wl 550\nyan " + " ".join(["1"] * 1001) + "\n", "1001 fields, more than the limit"),
        (SEQ + "wl " + " ".join(["550"] * 1001) + "\nyan 0\n", "1001 wavelengths, more than"),
        ("\x00" * 5000 + "\n" + SEQ, "line 1: '\\x00\\x00"),
        (SEQ.replace("s 0.1 1", "s 0.1 1\n" + "s 0 1\n" * 10001, 1), "more than 10000 surfaces"),
    ],
    ids=["fields", "wavelengths", "binary", "surfaces"],
)
def test_a_seq_file_beyond_the_budget_or_binary_is_one_short_line(tmp_path, capsys, text, part):
    lens = tmp_path / "hostile.seq"
    lens.write_text(text)
    line = _refused(capsys, ["seidel", str(lens)], str(lens), part)
    assert len(line) < 400 and "\x00" not in line
