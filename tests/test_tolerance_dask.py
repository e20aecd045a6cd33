"""Monte Carlo on a separately started Dask cluster: `dask scheduler` + two `dask worker` processes.

The cluster listens on 127.0.0.1 only and is torn down with timeouts.  The
trials it runs must equal the in-process ones exactly, also when a worker is
killed in the middle of the run (its trials rerun elsewhere, none lost or
duplicated).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from optics import backend as be
from optics.cli import main
from optics.io import load, save
from optics.optimize import Operand, Problem, Variable
from optics.optimize.global_search import global_search
from optics.tolerance import ToleranceModel, monte_carlo

distributed = pytest.importorskip("distributed")

from test_tolerance_sensitivity import ITEMS, cooke, section  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 90.0  # seconds for the scheduler and both workers to come up (a loaded CI box)


def _scheduler_address(path, processes, deadline):
    """The address the scheduler wrote to ``path`` once it listens (its port chosen by the OS)."""
    while True:
        try:
            return json.loads(path.read_text())["address"]
        except (OSError, ValueError, KeyError):
            pass
        if time.monotonic() > deadline or any(p.poll() is not None for p in processes):
            return None
        time.sleep(0.2)


def _stop(process):
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """(address, [worker processes]) of a scheduler and two single-threaded workers."""
    logs = tmp_path_factory.mktemp("dask")
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    )
    env.update(OMP_NUM_THREADS="1")
    dask = [sys.executable, "-m", "dask"]
    processes = []

    def start(args, name):
        log = open(logs / f"{name}.log", "w")
        processes.append(subprocess.Popen(dask + args, env=env, stdout=log, stderr=log))
        return processes[-1]

    try:
        # Port 0: the OS picks a free port (no race with anything else on the machine);
        # the scheduler writes the address it got to the scheduler file.
        scheduler_file = logs / "scheduler.json"
        scheduler = ["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
        start([*scheduler, "--scheduler-file", str(scheduler_file)], "scheduler")
        deadline = time.monotonic() + START_TIMEOUT
        address = _scheduler_address(scheduler_file, processes, deadline)
        if address is None:
            pytest.fail("the Dask test scheduler did not start: see " + str(logs))
        worker = ["worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"]
        workers = [
            start([*worker, "--host", "127.0.0.1", "--name", f"w{i}"], f"w{i}") for i in (0, 1)
        ]
        with distributed.Client(address, timeout=f"{START_TIMEOUT}s") as client:
            while len(client.scheduler_info()["workers"]) < 2:
                if time.monotonic() > deadline or any(p.poll() is not None for p in processes):
                    pytest.fail("the Dask test cluster did not start: see " + str(logs))
                time.sleep(0.2)
        yield address, workers
    finally:
        for process in reversed(processes):
            _stop(process)


def _model():
    return ToleranceModel(cooke(section(ITEMS[:5])))


def test_a_separately_started_cluster_gives_the_in_process_values(cluster):
    address, _ = cluster
    model = _model()
    here = monte_carlo(model, 8, seed=4, workers=1)
    there = monte_carlo(model, 8, seed=4, scheduler=address)
    np.testing.assert_array_equal(there.draws, here.draws)
    np.testing.assert_array_equal(there.values, here.values)  # identical, not close
    assert np.isfinite(here.values).all()


@pytest.mark.skipif("torch" not in be.available_backends(), reason="torch is not installed")
def test_the_command_runs_its_monte_carlo_on_the_cluster_with_torch(cluster, tmp_path, capsys):
    """The sensitivity analysis runs in the command's process; the trials go to the cluster."""
    address, _ = cluster
    path = save(cooke(section(ITEMS[1:3])), tmp_path / "lens.toml")
    argv = ["tolerance", str(path), "--monte-carlo", "4", "--seed", "2", "--backend", "torch"]
    argv += ["--json"]
    assert main([*argv, "--scheduler", address]) == 0
    there = json.loads(capsys.readouterr().out)
    assert main([*argv, "--workers", "1"]) == 0
    here = json.loads(capsys.readouterr().out)
    assert there == here
    assert len(there["monte_carlo"]["values"]) == 4


def test_a_global_search_on_the_cluster_gives_the_one_process_result(cluster):
    """Global search (issue 26): the same starts and results on two separate workers.

    Built-in operands only: the worker processes know no operand this test registers.
    """
    address, _ = cluster

    def problem():
        optic = load("cooke_triplet")
        variables = [Variable("surfaces[1].radius", 15.0, 30.0)]
        return Problem(optic, variables, [Operand("efl", target=50.0)])

    here = global_search(problem(), starts=4, seed=3, steps=5, workers=1)
    there = global_search(problem(), starts=4, seed=3, steps=5, scheduler=address)
    assert there.best_index == here.best_index
    assert [s["index"] for s in there.starts] == [0, 1, 2, 3]
    for x, y in zip(here.starts, there.starts):
        np.testing.assert_array_equal(x["values"], y["values"])
        assert x["merit_after"] == y["merit_after"]  # identical, not close


def test_a_worker_killed_mid_run_loses_and_duplicates_no_trial(cluster):
    address, workers = cluster
    model = _model()
    trials = 16
    here = monte_carlo(model, trials, seed=9, workers=1)
    seen = []

    def progress(done, total):
        seen.append(done)
        if len(seen) == 1:  # one batch back, the rest still running or queued
            workers[1].send_signal(signal.SIGKILL)
            workers[1].wait(timeout=10)

    there = monte_carlo(model, trials, seed=9, scheduler=address, progress=progress)
    assert workers[1].poll() is not None
    assert seen[0] < trials and seen[-1] == trials  # killed mid-run; each trial counted once
    np.testing.assert_array_equal(there.draws, here.draws)
    np.testing.assert_array_equal(there.values, here.values)
