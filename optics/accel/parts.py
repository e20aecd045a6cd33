"""Row parts of one compiled call, run side by side on the CPU cores.

A compiled program may run on one core (XLA:CPU does), yet programs started
from two Python threads run at the same time.  A call whose rows are
independent (``be.compile_function(rows=, runner=RowParts(...))``) is cut
into one part per usable core: contiguous parts of equal length (one compiled
program), the last starting early and overlapping the one before when they
do not divide the rows; only the rows a part owns are kept, and backwards
only their cotangents count.  Abstract values (an enclosing ``jit``) and
arrays off the CPU run as one part.  Measurements: docs/performance.md.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import dataclasses
import os

from .. import backend as be

_POOL: concurrent.futures.ThreadPoolExecutor | None = None


@dataclasses.dataclass(frozen=True)
class Parts:
    """``rows`` rows cut into parts of ``size`` rows starting at ``starts``."""

    rows: int
    size: int
    starts: tuple

    def owned(self, k):
        """(first, stop) rows of part ``k``, counted inside the part, that it contributes."""
        first = k * self.size - self.starts[k]
        return first, min((k + 1) * self.size, self.rows) - self.starts[k]


class RowParts:
    """A compiled call's runner: one part per usable core, each at least ``min_rows`` rows.

    Parameters
    ----------
    min_rows : int
        Fewest rows per part; calls under ``2 * min_rows`` rows run whole.

    Notes
    -----
    ``be.compile_function`` calls :meth:`forward` and :meth:`backward` with
    ``program_for(size)``: (the program for parts of ``size`` rows, whether it
    has run).  A first call compiles, so its parts run one after another.
    """

    def __init__(self, min_rows):
        self.min_rows = int(min_rows)

    def plan(self, rows, leaves):
        """The :class:`Parts` of a call of ``rows`` rows on ``leaves``."""
        count = 1
        arrays = [a for a in leaves if be.is_array(a)]
        concrete = not any(be.is_abstract(a) for a in arrays)
        if concrete and all(be.device_of(a) == "cpu" for a in arrays):
            count = max(1, min(_cores(), rows // self.min_rows))
        size = -(-rows // count)
        return Parts(rows, size, tuple(min(k * size, rows - size) for k in range(count)))

    def forward(self, program_for, leaves, rows):
        """The program's results for ``leaves``: per-row ones joined, the others part 0's."""
        parts = self.plan(rows, leaves)
        program, compiled = program_for(parts.size)
        outs = _run_each(lambda mine: program(*mine), _split(parts, leaves), not compiled)
        if len(parts.starts) == 1:
            return list(outs[0])
        return [
            _joined(parts, [o[j] for o in outs]) if _rowed(first, parts.size) else first
            for j, first in enumerate(outs[0])
        ]

    def backward(self, program_for, leaves, cotangents, rows):
        """Gradients of ``leaves``: per-row ones joined, those of shared inputs summed.

        A part gets the cotangents of the rows it owns; part 0 alone those of
        the results taken from it.
        """
        parts = self.plan(rows, leaves)
        program, compiled = program_for(parts.size)
        inputs = list(zip(_split(parts, leaves), _cotangents(parts, cotangents)))
        grads = _run_each(lambda mine: program(*mine), inputs, not compiled)
        if len(parts.starts) == 1:
            return list(grads[0])
        out = []
        for i, leaf in enumerate(leaves):
            mine = [g[i] for g in grads]
            if mine[0] is None:
                out.append(None)
            elif _rowed(leaf, rows):
                out.append(_joined(parts, mine))
            else:
                out.append(sum(mine[1:], mine[0]))
        return out


def _split(parts, values):
    """``values`` per part: per-row arrays cut to the part's rows, the others shared."""
    if len(parts.starts) == 1:
        return [list(values)]
    view = be.hook("row_view", *[v for v in values if be.is_array(v)])
    return [
        [view(v, s, parts.size) if _rowed(v, parts.rows) else v for v in values]
        for s in parts.starts
    ]


def _cotangents(parts, cotangents):
    out = []
    for k, pieces in enumerate(_split(parts, cotangents)):
        lo = parts.owned(k)[0]
        mine = []
        for c, whole in zip(pieces, cotangents):
            if not _rowed(whole, parts.rows):
                mine.append(c if k == 0 else be.zeros_like(c))
            elif lo:
                mine.append(be.concatenate([be.zeros_like(c[:lo]), c[lo:]]))
            else:
                mine.append(c)
        out.append(mine)
    return out


def _joined(parts, pieces):
    owned = tuple(parts.owned(k) for k in range(len(pieces)))
    if all(o == (0, parts.size) for o in owned):
        return be.concatenate(pieces)
    return be.hook("join_rows", *pieces)(pieces, owned)  # the overlapping last part


def _run_each(task, inputs, serial):
    """``task(x)`` for every part's inputs: the last in this thread, the others in the pool."""
    if len(inputs) == 1 or serial:
        return [task(x) for x in inputs]
    pool = _pool()
    futures = [pool.submit(contextvars.copy_context().run, _finished, task, x) for x in inputs[:-1]]
    last = _finished(task, inputs[-1])
    return [f.result() for f in futures] + [last]


def _finished(task, inputs):
    # A compiled call may return before its program has run; waiting in each part's own
    # thread keeps the programs side by side (and the calls steadier).
    out = task(inputs)
    return be.hook("block_until_ready", *[o for o in out if be.is_array(o)])(out)


def _pool():
    global _POOL
    if _POOL is None:
        _POOL = concurrent.futures.ThreadPoolExecutor(
            max_workers=max(1, _cores() - 1), thread_name_prefix="optics-row-part"
        )
    return _POOL


def _cores():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - platforms without affinity


def _rowed(value, rows):
    return value is not None and be.is_array(value) and value.ndim > 0 and value.shape[0] == rows
