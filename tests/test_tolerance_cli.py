"""``optics tolerance``: both analyses end to end on NumPy and Torch, files, JSON and errors."""

from __future__ import annotations

import copy
import csv
import json
import socket

import numpy as np
import pytest
from test_tolerance_sensitivity import ITEMS, cooke, section

from optics import backend as be
from optics.cli import main
from optics.io import save
from optics.tolerance import _runner

DECENTER = ["decenter x surfaces[3-4]", "decenter y surfaces[3-4]"]


@pytest.fixture
def lens(tmp_path):
    optic = cooke(section(ITEMS[1:3], trials=6, seed=5, threshold=0.0145))
    return save(optic, tmp_path / "cooke.toml")


def _json(capsys, argv):
    assert main(argv) == 0
    printed = capsys.readouterr()
    # no progress bar when stderr is not a terminal; the nominal lens's aiming warning once
    lines = printed.err.splitlines()
    assert len(lines) <= 1 and all(line.startswith("optics tolerance: warning:") for line in lines)
    return json.loads(printed.out)


@pytest.mark.parametrize("backend", ["numpy", "torch", None])
def test_both_analyses_print_the_documented_json(lens, capsys, backend):
    """None: the default split, derivatives on torch (when installed), the rest on numpy."""
    if backend == "torch" and backend not in be.available_backends():
        pytest.skip("torch is not installed")
    argv = ["tolerance", str(lens), "--sensitivity", "--monte-carlo", "3", "--workers", "1"]
    out = _json(capsys, [*argv, "--json", *(["--backend", backend] if backend else [])])
    assert list(out) == ["criterion", "nominal", "sensitivity", "monte_carlo"]
    assert out["criterion"] == "rms_spot(fields=[0, 1, 2], rings=3)"
    assert len(out["sensitivity"]) == 3  # a thickness, decenter x and y
    for row in out["sensitivity"]:
        assert list(row) == ["item", "minus", "plus", "derivative"]
        assert max(row["minus"], row["plus"]) >= out["nominal"] - 1e-12
    mc = out["monte_carlo"]
    assert list(mc) == ["trials", "seed", "mean", "std", "p50", "p90", "p98", "yield", "values"]
    assert (mc["trials"], mc["seed"], len(mc["values"])) == (3, 5, 3)
    assert mc["mean"] == pytest.approx(np.mean(mc["values"]), rel=1e-12)
    assert mc["yield"] == np.count_nonzero(np.array(mc["values"]) <= 0.0145) / 3


def test_one_and_two_workers_give_identical_values_and_files(lens, tmp_path, capsys):
    """--workers 2 starts the embedded LocalCluster; --workers 1 runs in this process."""
    base = ["tolerance", str(lens), "--backend", "numpy", "--json", "--monte-carlo", "6"]
    one = _json(capsys, [*base, "--workers", "1", "-o", str(tmp_path / "one.csv")])
    two = _json(
        capsys,
        [
            *base,
            "--workers",
            "2",
            "-o",
            str(tmp_path / "two.csv"),
            "--plot",
            str(tmp_path / "mc.png"),
        ],
    )
    assert one["sensitivity"] is None  # --monte-carlo without --sensitivity
    assert one["monte_carlo"]["values"] == two["monte_carlo"]["values"]
    assert (tmp_path / "one.csv").read_text() == (tmp_path / "two.csv").read_text()
    rows = list(csv.DictReader(open(tmp_path / "one.csv")))
    assert [float(r["criterion"]) for r in rows] == one["monte_carlo"]["values"]
    assert list(rows[0]) == ["trial", "criterion", "surfaces[3].thickness", *DECENTER]
    assert (tmp_path / "mc.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_trials_can_be_written_as_parquet(lens, tmp_path, capsys):
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "trials.parquet"
    argv = ["tolerance", str(lens), "--monte-carlo", "6", "--workers", "1", "--json"]
    argv += ["-o", str(out)]
    result = _json(capsys, argv)
    table = pq.read_table(out).to_pydict()
    assert table["criterion"] == result["monte_carlo"]["values"]
    assert table["trial"] == list(range(6))


def test_the_text_report_has_the_sorted_table_and_the_rss(lens, capsys):
    assert main(["tolerance", str(lens), "--sensitivity", "--backend", "numpy"]) == 0
    out = capsys.readouterr().out
    assert "worst change" in out and "RSS of worst increases" in out
    assert "Monte Carlo" not in out


def test_without_options_both_analyses_run_with_the_sections_trials(lens, capsys):
    out = _json(capsys, ["tolerance", str(lens), "--backend", "numpy", "--workers", "1", "--json"])
    assert len(out["sensitivity"]) == 3
    assert out["monte_carlo"]["trials"] == 6 and out["monte_carlo"]["seed"] == 5


def _error(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    err = [line for line in err if not line.startswith("optics tolerance: warning:")]
    assert len(err) == 1, err
    return err[0]


def test_a_bad_key_is_one_line_naming_it(tmp_path, capsys):
    bad = copy.deepcopy(section(ITEMS[:2]))
    bad["items"][1]["plus_minos"] = 0.1
    path = save(cooke(bad), tmp_path / "bad.toml")
    message = _error(capsys, ["tolerance", str(path), "--backend", "numpy"])
    assert "[tolerance] items[1]: unknown key 'plus_minos'" in message


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--monte-carlo", "0"], "argument --monte-carlo: must be at least 1, not 0"),
        (["--sensitivity", "-o", "t.csv"], "need a Monte Carlo"),
        (["--workers", "0"], "--workers must be >= 1"),
    ],
)
def test_bad_options_are_one_line(lens, capsys, options, message):
    assert message in _error(capsys, ["tolerance", str(lens), *options])


def test_an_unreachable_scheduler_is_one_line(lens, capsys, monkeypatch):
    monkeypatch.setattr(_runner, "CONNECT_TIMEOUT", 1.0)
    # A port the OS gives us, held but not listening: connecting is refused, and nothing
    # else on the machine can be listening there.
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{held.getsockname()[1]}"
        argv = ["tolerance", str(lens), "--backend", "numpy", "--scheduler", address]
        assert f"no Dask scheduler answered at {address!r}" in _error(capsys, argv)
