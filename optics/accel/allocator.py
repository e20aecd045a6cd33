"""Keep freed ray-sized buffers in the process heap (glibc), so the next trace reuses them.

A trace at 10^6 rays writes about ten fresh 8 MB result arrays per call.  With
glibc's defaults, memory freed at the top of the heap is returned to the
system once more than a few MB are free, so every call maps those pages anew
and takes one page fault per 4 KiB page: about 2.5 ms per 8 MB array on this
machine, a third of a jitted JAX trace's time.  NumPy escapes most of it
(it asks for transparent huge pages); XLA's and torch's CPU allocators do not.

:func:`keep_freed_memory` raises glibc's trim threshold, so freed memory stays
in the heap for the next call, and fixes the mmap threshold at its largest
(32 MiB), so arrays up to that size come from the heap at all.  It runs once,
when the first backend is loaded (the first array operation) after
:mod:`optics.accel` is imported (the trace imports it); memory the
process once used then stays mapped (up to the threshold) instead of going
back to the system.
``OPTICS_MALLOC_TRIM_MB=0`` leaves glibc's defaults alone; another value sets
the trim threshold in MiB (default 1024, at most 2047).  On other C libraries it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

from ..errors import ConfigurationError

#: glibc's mallopt parameter numbers (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: The largest mmap threshold glibc accepts on 64-bit systems (HEAP_MAX_SIZE / 2).
_MMAP_THRESHOLD = 32 * 2**20
DEFAULT_TRIM_MB = 1024
_DONE = {}


def keep_freed_memory() -> bool:
    """Tune glibc's malloc once per process (see the module docstring).

    Returns
    -------
    bool
        True when the thresholds are set (now or by an earlier call); False
        when ``OPTICS_MALLOC_TRIM_MB=0`` or the C library is not glibc.
    """
    if "result" not in _DONE:
        _DONE["result"] = _tune(trim_megabytes())
    return _DONE["result"]


def trim_megabytes() -> int:
    """The trim threshold asked for by ``OPTICS_MALLOC_TRIM_MB`` (MiB; 0 = leave malloc alone)."""
    text = os.environ.get("OPTICS_MALLOC_TRIM_MB", "").strip()
    if not text:
        return DEFAULT_TRIM_MB
    try:
        value = int(text)
    except ValueError:
        raise ConfigurationError(
            f"OPTICS_MALLOC_TRIM_MB must be a whole number of MiB (0 leaves malloc alone), "
            f"not {text!r}"
        ) from None
    return min(max(value, 0), 2047)  # mallopt takes a C int of bytes


def _tune(trim_mb):
    if trim_mb == 0:
        return False
    mallopt = _glibc_mallopt()
    if mallopt is None:
        return False
    return bool(
        mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, trim_mb * 2**20)
    )


def _glibc_mallopt():
    """glibc's ``mallopt``, or None on another C library."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.gnu_get_libc_version  # noqa: B018  (only glibc has it)
    except (OSError, AttributeError):
        return None
    mallopt = libc.mallopt
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return mallopt
