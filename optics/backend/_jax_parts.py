"""Row parts of one jitted call, run side by side on the CPU cores (the jax backend's companion).

XLA:CPU runs a program on one core, but programs started from two Python
threads run at the same time on the one CPU device.  A compiled function
whose rows are independent (``compile_function(rows=)``) is therefore
called as one part per usable core: the per-row inputs are cut into
contiguous parts of equal length, each part's program runs in a thread of
its own, and the parts' per-row results are joined.  Equal lengths keep it to
one compiled program: when the parts do not divide the rows, the last part
starts early and overlaps the one before, and only the rows it owns are kept
(and, backwards, only their cotangents count).

Only concrete arrays on the CPU are split: under an enclosing ``jax.jit`` or
``vmap`` (tracers) and on accelerators the call is one part.  The program
runs in the caller's context (``contextvars``), so ``be.using`` blocks hold
inside the threads.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import dataclasses
import functools
import os

import jax
import jax.numpy as jnp
import numpy as np

_POOL: concurrent.futures.ThreadPoolExecutor | None = None


@dataclasses.dataclass(frozen=True)
class Parts:
    """How ``rows`` rows are cut into parts of ``size`` rows.

    Attributes
    ----------
    rows : int
        Rows of the whole call.
    size : int
        Rows of every part.
    starts : tuple of int
        First row of each part in the whole.
    """

    rows: int
    size: int
    starts: tuple

    def owned(self, k):
        """(first, stop) rows of part ``k``, counted inside the part, that it contributes."""
        first = k * self.size - self.starts[k]
        return first, min((k + 1) * self.size, self.rows) - self.starts[k]


def plan(rows, leaves, min_part_rows):
    """The :class:`Parts` of a call: one part per usable core, each at least ``min_part_rows``
    (None: one part).

    The last part starts early to end at the last row when the parts do not
    divide the rows.
    """
    count = 1
    concrete = not any(isinstance(a, jax.core.Tracer) for a in leaves)
    if rows is not None and min_part_rows is not None and concrete and _on_cpu(leaves):
        count = max(1, min(_cores(), rows // min_part_rows))
    if count == 1:
        return Parts(rows, rows, (0,))
    size = -(-rows // count)
    return Parts(rows, size, tuple(min(k * size, rows - size) for k in range(count)))


def split(parts, values):
    """``values`` per part: arrays ``parts.rows`` long cut to the part's rows, the rest shared."""
    if len(parts.starts) == 1:
        return [list(values)]
    return [
        [_rows_of(v, s, parts.size) if _is_rowed(v, parts.rows) else v for v in values]
        for s in parts.starts
    ]


def _rows_of(array, start, size):
    """Rows start..start+size of a concrete CPU array, as a view of its memory when possible.

    A JAX slice copies; a NumPy view of the same buffer handed back to JAX
    (``device_put``) does not, when the view is 64-byte aligned (it copies
    otherwise, with the same result).
    """
    return jax.device_put(np.asarray(array)[start : start + size], _device(array))


def _device(array):
    return next(iter(array.devices()))


def join(parts, per_part):
    """One list of results from each part's list: per-row results joined, others from part 0."""
    if len(parts.starts) == 1:
        return list(per_part[0])
    return [
        _joined_one(parts, [results[j] for results in per_part])
        if _is_rowed(first, parts.size)
        else first
        for j, first in enumerate(per_part[0])
    ]


def _joined_one(parts, pieces):
    owned = tuple(parts.owned(k) for k in range(len(pieces)))
    if all(o == (0, parts.size) for o in owned):
        return jnp.concatenate(pieces)
    return _cut_and_join(owned, *pieces)  # the overlapping last part: one pass, not two copies


@functools.partial(jax.jit, static_argnums=0)
def _cut_and_join(owned, *pieces):
    return jnp.concatenate([piece[lo:hi] for piece, (lo, hi) in zip(pieces, owned)])


def cotangents_per_part(parts, cotangents):
    """Each part's cotangents: its rows of per-row ones (zero where it owns none), shared
    ones (results taken from part 0) to part 0 and zeros to the others."""
    if len(parts.starts) == 1:
        return [list(cotangents)]
    out = []
    for k, pieces in enumerate(split(parts, cotangents)):
        lo, _ = parts.owned(k)
        mine = []
        for c, whole in zip(pieces, cotangents):
            if _is_rowed(whole, parts.rows):
                mine.append(c.at[:lo].set(0) if lo else c)
            else:
                mine.append(c if k == 0 else jnp.zeros_like(c))
        out.append(mine)
    return out


def gradients_joined(parts, per_part, leaves):
    """Gradients of the whole call's inputs: per-row ones joined, shared ones summed."""
    if len(parts.starts) == 1:
        return list(per_part[0])
    rowed = [_is_rowed(a, parts.rows) for a in leaves]
    out = []
    for i, is_rowed in enumerate(rowed):
        grads = [g[i] for g in per_part]
        if grads[0] is None:
            out.append(None)
        elif is_rowed:
            out.append(_joined_one(parts, grads))
        else:
            out.append(sum(grads[1:], grads[0]))
    return out


def run_each(parts, task, inputs, *, serial=False):
    """``task(part_inputs)`` for every part: the last in this thread, the others in the pool.

    ``serial``: all in this thread, in order (a program's first call, which
    traces and compiles it: once, not once per thread).
    """
    if len(inputs) == 1 or serial:
        return [task(x) for x in inputs]
    pool = _pool()
    futures = [pool.submit(contextvars.copy_context().run, _finished, task, x) for x in inputs[:-1]]
    last = _finished(task, inputs[-1])
    return [f.result() for f in futures] + [last]


def _finished(task, inputs):
    """``task(inputs)`` waited for in this thread.

    A jitted call returns before its program has run.  Waiting in each
    part's own thread keeps the programs side by side and the calls steadier
    (Cooke, 1e6 rays, six processes each: 196-233 M ray·surfaces/s against
    186-226 M without the wait).
    """
    return jax.block_until_ready(task(inputs))


def _pool():
    global _POOL
    if _POOL is None:
        _POOL = concurrent.futures.ThreadPoolExecutor(
            max_workers=max(1, _cores() - 1), thread_name_prefix="optics-jax-part"
        )
    return _POOL


def _cores():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - platforms without affinity


def _on_cpu(leaves):
    arrays = [a for a in leaves if isinstance(a, jax.Array)]
    if not arrays:
        return jax.default_backend() == "cpu"
    return all(d.platform == "cpu" for a in arrays for d in a.devices())


def _is_rowed(value, rows):
    return value is not None and jnp.ndim(value) > 0 and value.shape[0] == rows
