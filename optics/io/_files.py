"""Opening input files: regular files only, of a bounded size, never a blocking open.

Every file optics reads (lens files in any format, the ray CSV of ``optics
trace``) goes through :func:`read_bytes` or :func:`open_text`.  A FIFO, a
device (``/dev/zero``), a socket or a folder given as an input is refused at
once: the path is ``os.stat``-ed before it is opened (opening a FIFO for
reading would block until a writer comes), then opened non-blocking and
checked again on the open descriptor (so a file swapped for a FIFO between
the two is refused too).  Files larger than :data:`MAX_INPUT_BYTES` are
refused before they are read.
"""

from __future__ import annotations

import os
import stat

from ..errors import LensFileError

MAX_INPUT_BYTES = 256 * 1024 * 1024
"""Largest input file read (256 MiB; the largest real lens file is a few hundred kB)."""

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def check_regular(path, source=None, what="input file", *, limit=MAX_INPUT_BYTES):
    """Raise LensFileError unless ``path`` is a regular file of at most ``limit`` bytes.

    ``source`` names the file in the message (default ``path``); ``what``
    says what it was meant to be (``"lens file"``, ``"ray file"``).
    """
    source = os.fspath(path) if source is None else source
    try:
        info = os.stat(path)
    except OSError as exc:
        raise LensFileError(f"{source}: cannot read the {what}: {exc.strerror or exc}") from exc
    _check_mode(info, source, what, limit)


def _check_mode(info, source, what, limit):
    if not stat.S_ISREG(info.st_mode):
        raise LensFileError(
            f"{source}: cannot read the {what}: it is {_kind(info.st_mode)}, not a regular file"
        )
    if limit is not None and info.st_size > limit:
        raise LensFileError(
            f"{source}: {info.st_size} bytes, more than the {limit} bytes a {what} may have"
        )


def _open_descriptor(path, source, what, limit):
    check_regular(path, source, what, limit=limit)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError as exc:
        raise LensFileError(f"{source}: cannot read the {what}: {exc.strerror or exc}") from exc
    try:
        _check_mode(os.fstat(descriptor), source, what, limit)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_bytes(path, source=None, what="lens file", *, limit=MAX_INPUT_BYTES) -> bytes:
    """The whole content of the regular file ``path``; LensFileError naming ``source``."""
    source = os.fspath(path) if source is None else source
    descriptor = _open_descriptor(path, source, what, limit)
    try:
        with open(descriptor, "rb", closefd=False) as handle:
            if limit is None:
                return handle.read()
            # The size fstat gave (at most the limit), plus one byte to see a file that grew:
            # read(limit + 1) would reserve the whole limit (256 MiB) for every small file.
            return handle.read(min(limit, os.fstat(descriptor).st_size) + 1)
    except OSError as exc:
        raise LensFileError(f"{source}: cannot read the {what}: {exc.strerror or exc}") from exc
    finally:
        os.close(descriptor)


def open_text(path, source=None, what="input file", *, limit=MAX_INPUT_BYTES, **options):
    """``open(path, "r", **options)`` of a regular file; LensFileError naming ``source``.

    The caller closes the returned text stream (``with open_text(...) as f``).
    """
    source = os.fspath(path) if source is None else source
    descriptor = _open_descriptor(path, source, what, limit)
    return open(descriptor, closefd=True, **options)
