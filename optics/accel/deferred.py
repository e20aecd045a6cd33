"""Deferred host reads: checks of array values gathered and read in one transfer.

On an accelerator a host read waits for every queued kernel, so checks whose outcome is only
a warning or an error are read together at the end of a :func:`deferred_reads` block.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar

import numpy as np

from .. import backend as be

_PENDING: ContextVar[list | None] = ContextVar("optics_deferred_reads", default=None)


@contextlib.contextmanager
def deferred_reads():
    """Run the :func:`read_later` callbacks of the block once, at its end, after one read.

    Nested blocks join the outermost one; when the block raises, its checks are dropped.
    """
    if _PENDING.get() is not None:
        yield
        return
    pending = []
    token = _PENDING.set(pending)
    try:
        yield
    finally:
        _PENDING.reset(token)
    _run(pending)


def reads_deferred(*values) -> bool:
    """True when :func:`read_later` of these values would wait (pick a path that needs none)."""
    return _PENDING.get() is not None and not all(_free(v) for v in values)


def host_reads_cheap(*values) -> bool:
    """True when reading these values waits for no accelerator (NumPy, numbers, CPU memory).

    Where False (CUDA, MPS) loops run a fixed number of masked steps instead.
    """
    return all(_free(v) or be.device_of(v) == "cpu" for v in values)


def read_later(values, callback):
    """Call ``callback(host_values)`` with the values of ``values`` (in a block: at its end).

    Parameters
    ----------
    values : sequence of 0-d arrays or Python numbers
    callback : callable
        Receives a list of floats (a bool becomes 0.0 or 1.0); never called when a value is
        abstract (a jit or vmap tracer): the guarded quantities then stay NaN or inf.
    """
    values = list(values)
    if any(be.is_abstract(v) for v in values):
        return  # traced by jit or vmap: never readable, so the check cannot run
    if reads_deferred(*values):
        _PENDING.get().append((values, callback))
    else:
        _run([(values, callback)])


def after_reads(callback):
    """Call ``callback()`` after the pending checks of the enclosing block (at once outside one)."""
    pending = _PENDING.get()
    if pending is None:
        callback()
    else:
        pending.append(([], lambda _values: callback()))


def _free(value) -> bool:
    """A Python number or a NumPy array: reading it syncs nothing."""
    return isinstance(value, (int, float, np.ndarray, np.generic))


def _run(pending):
    """Read every pending value in one transfer, then run the callbacks."""
    arrays = [v for values, _ in pending for v in values if not _free(v)]
    host = {}
    if arrays:
        flat = be.stack([be.astype(be.reshape(a, ()), be.float_dtype()) for a in arrays])
        host = dict(zip(map(id, arrays), be.to_numpy(flat).tolist()))
    for values, callback in pending:
        callback([host[id(v)] if id(v) in host else float(np.asarray(v)) for v in values])
