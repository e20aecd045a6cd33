"""Atomic file writes: every output the library writes goes through ``write_atomically``.

A reader never sees a half-written file and an interrupted write never
destroys the previous one: the content goes to an exclusive temporary file in
the target's folder, which then replaces the target in one ``os.replace``.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import Path


def write_atomically(path, write) -> Path:
    """Write a file through ``write(temporary_path)``, then move it over ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        The target.  A symbolic link is written through (its target is
        replaced), never over.
    write : callable
        Called once with the temporary file's path (a ``str``; the file exists,
        empty) and writes the whole content there.

    Returns
    -------
    Path
        The real path written.

    Raises
    ------
    OSError
        When ``path`` (or what its link points to) is a
        folder, a device or a FIFO: only regular files are replaced.

    Notes
    -----
    A new file gets the mode any new file gets (0666 less the umask); a file
    that is replaced keeps its mode.  On any error the temporary file is
    removed and the target is left as it was; the error propagates.
    """
    target = Path(os.path.realpath(os.fspath(path)))
    _check_replaceable(target)
    temporary = _create_temporary(target)
    try:
        write(temporary)
        with open(temporary, "rb+") as handle:
            os.fsync(handle.fileno())
        if target.exists():
            os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode))
        os.replace(temporary, target)
        temporary = None
    finally:
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass
    return target


def _check_replaceable(target: Path):
    """Refuse to replace anything but a regular file (a device, a FIFO, a folder).

    The rename would put a regular file in its place: ``/dev/null`` (through
    a symbolic link named like an output) would be replaced for every program.
    """
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise OSError(
            errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL,
            f"is {kind}; refusing to replace it with the output",
            str(target),
        )


def write_bytes_atomically(path, data: bytes) -> Path:
    """``write_atomically`` for a ready byte string."""

    def write(temporary):
        with open(temporary, "wb") as handle:
            handle.write(data)

    return write_atomically(path, write)


def _create_temporary(target: Path) -> str:
    """An exclusive new, empty file next to ``target``; its path."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = str(target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp"))
        try:
            os.close(os.open(name, flags, 0o666))
            return name
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary file name next to {target}")
