"""Keep freed ray-sized buffers in the process heap (glibc), so the next trace reuses them.

Else each call faults in fresh pages for its results (docs/backend.md, "The process's
malloc thresholds").  Other C libraries are left alone.
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
    """Tune glibc's malloc once per process; True when the thresholds are set."""
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
    mallopt = _glibc_mallopt() if trim_mb else None
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
