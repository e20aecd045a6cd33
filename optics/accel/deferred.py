"""Deferred host reads: checks of array values gathered and read in one transfer.

On an accelerator, reading an array's value on the host (``item()``,
``bool()``, a count turned into a Python int) waits for every queued kernel:
a *host sync*.  A trace has a few checks of that kind (a solver's rejection
counts, the paraxial stop height, a glass's wavelength range) whose outcome
is a warning or an error, never a branch the trace itself needs.  Inside
:func:`deferred_reads` each such check hands its values and a callback to
:func:`read_later`; the values of all checks are read together, once, when
the block ends, and the callbacks run then (in order; a callback may warn or
raise).  Outside the block, or for NumPy arrays and Python numbers (whose
reads cost nothing), the callback runs at once.  A value that cannot be read
at all (abstract: a ``jax.jit`` or ``jax.vmap`` tracer) drops its check: the
guarded quantities stay NaN or inf in the results, as before a deferred read.

:func:`optics.backend.count_host_reads` counts the host reads of torch
tensors in a block, for tests that a trace makes none.
"""

from __future__ import annotations

import contextlib
import contextvars

import numpy as np

from .. import backend as be

_PENDING: contextvars.ContextVar[list | None] = contextvars.ContextVar(
    "optics_deferred_reads", default=None
)


@contextlib.contextmanager
def deferred_reads():
    """Run the :func:`read_later` callbacks of the block once, at its end, after one read.

    Nested blocks join the outermost one.  When the block raises, the pending
    checks are dropped (the exception is the news).
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
    """True when :func:`read_later` of these values would wait for the block's end.

    Lets a caller that could use the values at once (a count that selects a
    faster path) choose a path that needs none.
    """
    return _PENDING.get() is not None and not all(_free(v) for v in values)


def host_reads_cheap(*values) -> bool:
    """True when reading these values on the host waits for no accelerator.

    NumPy arrays, Python numbers and arrays in CPU memory (torch or JAX on
    the CPU): a read costs a copy at most, so a loop may test a count on the
    host every step.  False for arrays on an accelerator (CUDA, MPS), where
    each read waits for every queued kernel; code that loops on such arrays
    should run a fixed number of masked steps instead (the Newton solver's
    sync-free mode, :mod:`optics.solvers._settings`).
    """
    return all(_free(v) or be.device_of(v) == "cpu" for v in values)


def read_later(values, callback):
    """Call ``callback(host_values)`` with the values of the 0-d arrays ``values``.

    Parameters
    ----------
    values : sequence of 0-d arrays or Python numbers
        What the check needs (read as Python floats; a bool becomes 0.0 or 1.0).
    callback : callable
        Receives a list of floats, in the order of ``values``; never called
        when a value is abstract (see the module docstring).
    """
    values = list(values)
    if any(be.is_abstract(v) for v in values):
        return  # traced by jit or vmap: never readable, so the check cannot run
    pending = _PENDING.get()
    if pending is None or all(_free(v) for v in values):
        _run([(values, callback)])
    else:
        pending.append((values, callback))


def after_reads(callback):
    """Call ``callback()`` after the pending checks of the enclosing block (at once outside one).

    For work that needs every check's outcome first, such as a warning
    merged from the checks of several parts of a trace.
    """
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
    if not pending:
        return
    arrays = [v for values, _ in pending for v in values if not _free(v)]
    host = {}
    if arrays:
        flat = be.stack([be.astype(be.reshape(a, ()), be.float_dtype()) for a in arrays])
        host = dict(zip(map(id, arrays), be.to_numpy(flat).tolist()))
    for values, callback in pending:
        callback([host[id(v)] if id(v) in host else float(np.asarray(v)) for v in values])
