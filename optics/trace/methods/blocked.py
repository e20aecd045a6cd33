"""The blocked method: eager traces in cache-sized blocks, bit-identical to one batch.

A block's temporaries stay in the CPU's caches; where :func:`optics.accel.ray_block_size`
says blocking does not gain, the batch is traced in one piece (docs/performance.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ... import accel
from ... import backend as be
from ...rays import Rays
from ...solvers import grouped_rejections
from ..loop import RAY_FIELDS, Traced
from .base import RayBatch, TraceMethod
from .eager import Eager


@dataclass(frozen=True, repr=False)
class Blocked(TraceMethod):
    """Trace in blocks of ``block`` rays (the backend's measured size by default)."""

    block: int | None = None
    name = "blocked"

    def __post_init__(self):
        if self.block is not None and (isinstance(self.block, bool) or self.block < 2):
            raise ValueError(f"Blocked: block must be an integer >= 2, not {self.block!r}")

    def trace(self, system, batch: RayBatch) -> Traced:
        keys = sorted(batch.keep)
        eager = Eager()

        def run(qx, qy, px, py, wavelength, clip):
            part = RayBatch(qx, qy, px, py, wavelength, clip, batch.keep)
            traced = eager.trace(system, part)
            return [traced.rays] + [traced.kept[k] for k in keys]

        results = in_blocks(run, batch.inputs(), self.block)
        return Traced(results[0], dict(zip(keys, results[1:])))


def in_blocks(run, inputs, block=None):
    """``run(*inputs)`` (a list of Rays), block by block along the inputs' last axis.

    Inputs without that axis pass whole; every block's per-ray arrays are written into
    one output, arrays in another shape (a scalar wavelength) taken from the first block.
    """
    arrays = [v for v in inputs if be.is_array(v)]
    shape = tuple(np.broadcast_shapes(*(tuple(v.shape) for v in arrays))) if arrays else ()
    size = accel.ray_block_size(*arrays)
    if size is not None and block is not None:
        size = block
    if size is None or not shape or math.prod(shape) <= size:
        return run(*inputs)
    n = shape[-1]
    step = size // math.prod(shape[:-1])
    if step < 2 or step >= n:
        return run(*inputs)
    outputs = kept = None
    threads = accel.BlockThreads(arrays)
    with grouped_rejections():
        for start in range(0, n, step):
            stop = min(start + step, n)
            block = [columns(v, n, start, stop) for v in inputs]
            rays = (stop - start) * math.prod(shape[:-1])
            traced = threads.run(run, block, rays, full=stop - start == step)
            leaves = [getattr(r, name) for r in traced for name in RAY_FIELDS]
            if outputs is None:
                block_shape = shape[:-1] + (stop - start,)
                outputs = [_allocate(v, shape, block_shape) for v in leaves]
                kept = leaves
            for out, value in zip(outputs, leaves):
                if out is not None:
                    accel.write_block(out, start, stop, value)
    leaves = [value if out is None else out for out, value in zip(outputs, kept)]
    width = len(RAY_FIELDS)
    return [Rays(*leaves[at : at + width]) for at in range(0, len(leaves), width)]


def columns(value, n, start, stop):
    """Columns start:stop of an input whose last axis has the length n (else the input)."""
    if be.is_array(value) and value.ndim and value.shape[-1] == n:
        return value[..., start:stop]
    return value


def _allocate(value, shape, block_shape):
    """An output of ``shape`` for a per-ray array of a block, or None for a shared one."""
    if value is None or not be.is_array(value) or tuple(value.shape) != block_shape:
        return None
    return be.empty_like(be.broadcast_to(value[..., :1], shape))
