"""Cache blocking of eager traces: a large ray batch traced block by block.

An eager trace makes tens of batch-sized temporaries per surface; at 1e6
rays (8 MB per float64 array) every one of them streams through main
memory, so the trace runs at memory bandwidth, not at the arithmetic's
speed.  Traced in blocks of a few ten thousand rays, a block's temporaries
stay in the CPU's caches.  :func:`in_blocks` runs a trace function on
consecutive slices of its inputs along the last axis of their broadcast
shape and writes every block's results into outputs allocated once (no
final concatenation).  Every ray is computed by the same elementwise
arithmetic as in one batch, so the results are bit-identical.  Each block
runs with the intra-op thread count that :class:`optics.accel.BlockThreads`
finds fastest on this machine now (torch: its own count, or one thread
when another process holds a core).

Whether and how large: :func:`optics.backend.ray_block_size` (the backend's
``ray_block`` capability, or the method's ``block``; one batch while a gradient records, inside a
compiled graph, on an accelerator or for JAX).  The solver warnings of the
blocks are merged (:func:`optics.solvers.grouped_rejections`): one grouped
warning per solve name and trace, with the counts of every block.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ... import accel
from ... import backend as be
from ...rays import Rays
from ...solvers import grouped_rejections


def in_blocks(run, inputs, block=None):
    """``run(*inputs)``, block by block along the last axis of the inputs' broadcast shape.

    Parameters
    ----------
    run : callable
        Traces its inputs; returns Rays, None, or a list or tuple of those,
        whose per-ray arrays have the inputs' broadcast shape (with the last
        axis sliced as the inputs were).  It must treat every ray on its own
        (no reduction across rays).
    inputs : sequence of arrays or numbers
        Broadcast together.  An input whose last axis is the broadcast
        shape's last axis is sliced; the others (scalars, size-1 axes) pass
        whole to every block.
    block : int, optional
        Rays per block where blocking applies (``accel.ray_block_size`` says
        whether, and how many by default).

    Returns
    -------
    The result of ``run(*inputs)``: per-ray arrays of every block written
    into one output each; arrays a block returns in another shape (such as
    a scalar wavelength) are block-independent and taken from the first block.
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
    outputs = kept = rebuild = None
    threads = accel.BlockThreads(arrays)
    with grouped_rejections():
        for start in range(0, n, step):
            stop = min(start + step, n)
            block = [_sliced(v, n, start, stop) for v in inputs]
            rays = (stop - start) * math.prod(shape[:-1])
            traced = threads.run(run, block, rays, full=stop - start == step)
            leaves, rebuild = _flatten(traced)
            if outputs is None:
                block_shape = shape[:-1] + (stop - start,)
                outputs = [_allocate(v, shape, block_shape) for v in leaves]
                kept = leaves
            for out, value in zip(outputs, leaves):
                if out is not None:
                    accel.write_block(out, start, stop, value)
    return rebuild([value if out is None else out for out, value in zip(outputs, kept)])


def _sliced(value, n, start, stop):
    """Columns start:stop of an input whose last axis has the length n (else the input)."""
    if be.is_array(value) and value.ndim and value.shape[-1] == n:
        return value[..., start:stop]
    return value


def _allocate(value, shape, block_shape):
    """An output of ``shape`` for a per-ray array of a block, or None for a shared one."""
    if value is None or not be.is_array(value) or tuple(value.shape) != block_shape:
        return None
    return be.empty_like(be.broadcast_to(value[..., :1], shape))


def _flatten(result):
    """The arrays of a trace result and a function that rebuilds it from new arrays."""
    if isinstance(result, Rays):
        names = [f.name for f in dataclasses.fields(Rays)]
        return [getattr(result, k) for k in names], lambda v: Rays(**dict(zip(names, v)))
    if result is None:
        return [], lambda v: None
    if isinstance(result, (list, tuple)):
        parts = [_flatten(item) for item in result]
        counts = [len(leaves) for leaves, _ in parts]
        leaves = [leaf for part, _ in parts for leaf in part]

        def rebuild(values):
            out, at = [], 0
            for (_, build), count in zip(parts, counts):
                out.append(build(values[at : at + count]))
                at += count
            return type(result)(out)

        return leaves, rebuild
    raise TypeError(f"in_blocks: cannot split a trace result of type {type(result).__name__}")
