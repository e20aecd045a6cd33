"""The intra-op thread count of an eager blocked trace, chosen by timing its blocks.

A thread team is faster on a quiet machine, one thread under load (every barrier waits for
the thread scheduled away), so blocks probe the other count now and then and keep the faster
(docs/performance.md, "Torch threads under load").  Values are the same either way.
"""

from __future__ import annotations

import threading
import time

from .. import backend as be

#: Blocks between two probes of the count not in use.
PROBE_EVERY = 32
#: How much faster per ray a probe must be to switch (block times jitter by a few per cent).
SWITCH_GAIN = 1.1


class ThreadPreference:
    """The process's preferred intra-op thread count, and when to probe the other one."""

    def __init__(self, probe_every=PROBE_EVERY):
        self.probe_every = max(int(probe_every), 1)
        self.preferred: int | None = None
        self._since_probe = 0
        self._lock = threading.Lock()

    def due(self) -> bool:
        """True when the next block should probe (counts the block either way)."""
        with self._lock:
            self._since_probe = (self._since_probe + 1) % self.probe_every
            return self._since_probe == 0

    def compare(self, probe_count, probe_per_ray, usual_per_ray) -> None:
        """Switch to ``probe_count`` when its block was faster per ray by :data:`SWITCH_GAIN`."""
        if probe_per_ray * SWITCH_GAIN < usual_per_ray:
            with self._lock:
                self.preferred = probe_count


#: One preference per process: the load on the machine is the process's, not the trace's.
PREFERENCE = ThreadPreference()


class BlockThreads:
    """The thread counts of the blocks of one blocked trace.

    Parameters
    ----------
    arrays : sequence of arrays
        The trace's inputs: their backend's ``intra_op_threads`` hook (none: blocks run as is).
    preference : ThreadPreference, optional (default: the process's :data:`PREFERENCE`)
    """

    def __init__(self, arrays, preference=None):
        self._preference = PREFERENCE if preference is None else preference
        self._threads = be.hook("intra_op_threads", *arrays) if arrays else None
        self._candidates = ()  # one count or none known: nothing to choose
        if self._threads is not None:
            with self._threads() as most:  # the default hook knows no count (None)
                self._candidates = () if most is None else tuple(sorted({1, int(most)}))
        self._last_per_ray = None  # this trace's last block on the preferred count
        self._usual_blocks = 0  # its blocks on the preferred count (the first one warms up)

    def run(self, run, inputs, rays, full=True):
        """``run(*inputs)`` for one block of ``rays`` rays; ``full``: a block of the usual size."""
        if len(self._candidates) < 2:
            return run(*inputs)
        usual = self._preference.preferred or self._candidates[-1]
        probe = full and self._usual_blocks >= 2 and self._preference.due()
        count = next(c for c in self._candidates if c != usual) if probe else usual
        start = time.perf_counter()
        with self._threads(count):
            out = run(*inputs)
        per_ray = (time.perf_counter() - start) / max(rays, 1)
        if probe:
            self._preference.compare(count, per_ray, self._last_per_ray)
        elif full:
            self._last_per_ray, self._usual_blocks = per_ray, self._usual_blocks + 1
        return out
