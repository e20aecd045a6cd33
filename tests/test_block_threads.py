"""optics.accel.BlockThreads: the thread count of each block follows what is faster now."""

from __future__ import annotations

import types

import numpy as np
import pytest

from optics.accel import threads as threads_module
from optics.accel.threads import BlockThreads, ThreadPreference

torch = pytest.importorskip("torch")


class _Clock:
    """A block clock that only the blocks advance: the test's timings are exact, whatever
    else the machine runs (a real sleep of 1 ms can take longer than one of 4 ms there)."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = _Clock()
    monkeypatch.setattr(threads_module, "time", types.SimpleNamespace(perf_counter=fake.perf_counter))
    return fake


def _block(clock, slow_count):
    """A block whose time depends on the calling thread's intra-op thread count."""

    def run(x):
        clock.now += 0.004 if torch.get_num_threads() == slow_count else 0.001
        return x

    return run


def _trace(preference, run, blocks=8):
    threads = BlockThreads([torch.zeros(4)], preference)
    for _ in range(blocks):
        threads.run(run, (1,), rays=1000)


def test_a_loaded_machine_moves_torch_to_one_thread_and_back(clock):
    most = torch.get_num_threads()
    if most < 2:
        pytest.skip("one intra-op thread only: nothing to choose")
    preference = ThreadPreference(probe_every=3)
    _trace(preference, _block(clock, slow_count=1))  # quiet: the team is faster
    assert preference.preferred is None  # never switched from the backend's own count
    _trace(preference, _block(clock, slow_count=most))  # the other core is busy: the team stalls
    assert preference.preferred == 1
    _trace(preference, _block(clock, slow_count=1))  # quiet again
    assert preference.preferred == most
    assert torch.get_num_threads() == most  # every block restored the caller's count


def test_numpy_blocks_run_as_they_are():
    preference = ThreadPreference(probe_every=1)
    threads = BlockThreads([np.zeros(4)], preference)
    assert threads.run(lambda x: x + 1, (np.zeros(2),), rays=2).tolist() == [1.0, 1.0]
    assert preference.preferred is None
