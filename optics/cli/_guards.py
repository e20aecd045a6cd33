"""Guards of the long commands: outputs checked before the work, signals that keep finished work.

:func:`check_outputs` refuses, before any work starts, an output file that
cannot be written (unknown format, missing or read-only folder, a folder or
a device in its place) or that is one of the command's input files, compared
by device and inode (a hard link, a symlink, ``./lens.toml`` against
``lens.toml``) as well as by resolved name.

:func:`interrupt_on_signals` makes SIGTERM and SIGHUP take the same path as
Ctrl-C (a ``KeyboardInterrupt``), so that ``tolerance`` writes its finished
trials and ``optimize`` its best lens when a job scheduler or a closed
terminal ends them, as on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import threading

from ._common import UsageError

#: Signals turned into KeyboardInterrupt by :func:`interrupt_on_signals` (where they exist).
SIGNALS = ("SIGTERM", "SIGHUP")


def check_outputs(outputs, inputs=(), *, suffixes=None):
    """Raise UsageError unless every output in ``outputs`` can be written, and none is an input.

    Parameters
    ----------
    outputs : dict
        {option name (for messages, e.g. ``"-o/--output"``): path or None}.
    inputs : sequence of paths
        The command's input files (those that do not exist are skipped).
    suffixes : dict, optional
        {option name: tuple of allowed lower-case suffixes}.
    """
    given = {option: os.fspath(path) for option, path in outputs.items() if path}
    existing_inputs = [os.fspath(p) for p in inputs if p and os.path.isfile(p)]
    for option, path in given.items():
        allowed = (suffixes or {}).get(option)
        suffix = os.path.splitext(path)[1].lower()
        if allowed is not None and suffix not in allowed:
            raise UsageError(
                f"{option} {path}: unknown output format {suffix or '(no extension)'!r}; "
                f"use {', '.join(allowed)}"
            )
        _check_writable(option, path)
        for source in existing_inputs:
            if _same_file(path, source):
                raise UsageError(
                    f"{option} {path}: is the input file {source}; writing it would destroy "
                    "the input: choose another output name"
                )
    names = list(given.items())
    for i, (option, path) in enumerate(names):
        for other_option, other in names[i + 1 :]:
            if _same_file(path, other):
                raise UsageError(f"{option} and {other_option} name the same file {path}")


def _check_writable(option, path):
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: the folder {folder} is not writable")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"{option} {path}: cannot be written: {exc.strerror or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise UsageError(f"{option} {path}: is {kind}, not a file name to write")


def _same_file(a, b) -> bool:
    """True when ``a`` and ``b`` are one file: same resolved name, or same device and inode."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one does not exist (yet)
        return False


@contextlib.contextmanager
def interrupt_on_signals():
    """While the block runs, SIGTERM and SIGHUP raise KeyboardInterrupt, as Ctrl-C does.

    The previous handlers come back afterwards.  Outside the main thread
    (where Python cannot set handlers) nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {}
    for name in SIGNALS:
        number = getattr(signal, name, None)
        if number is not None:
            previous[number] = signal.signal(number, handler)
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)
