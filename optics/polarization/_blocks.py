"""One polarization trace from the traces of consecutive ray blocks, written as they come.

Each block's per-ray arrays are copied into outputs of the whole batch while they are still
in the CPU's caches (as :mod:`optics.trace.methods.blocked` does for the rays), and a block
is dropped once written; an array that two fields share (the exit directions are the exit
rays' L, M, N) is written once.
"""

from __future__ import annotations

import dataclasses

from .. import accel
from .. import backend as be
from ..rays import Rays

_RAY_FIELDS = tuple(f.name for f in dataclasses.fields(Rays))


def joined_blocks(blocks, shape):
    """One trace of shape ``shape`` from traces of consecutive flat blocks of its rays.

    Parameters
    ----------
    blocks : iterable of PolarizationTrace
        Traces of consecutive slices of the flattened rays (each of shape (B_k,), the B_k
        summing to the product of ``shape``), in order; consumed once.
    shape : tuple of int
        The shape S of the joined trace.

    Returns
    -------
    PolarizationTrace
        Every per-ray array of shape S; numbers, 0-d arrays and the axes from the first block.
    """
    count = 1
    for n in shape:
        count *= n
    first, slots, start = None, None, 0
    for part in blocks:
        leaves = _leaves(part)
        size = int(part.flux.shape[0])
        if first is None:
            first, slots = part, _slots(leaves, size, count)
        for j, slot in enumerate(slots):
            if slot[0] == "write":
                accel.write_block(slot[1], start, start + size, leaves[j])
            elif slot[0] == "join":
                slot[1].append(leaves[j])
        start += size
    if start != count:
        raise ValueError(f"joined_blocks: the blocks hold {start} rays, not {count}")
    values = []
    for kind, value in slots:
        if kind == "same":
            values.append(values[value])
        elif kind == "keep":
            values.append(value)
        else:
            value = be.concatenate(value) if kind == "join" else value
            values.append(be.reshape(value, shape))
    return _rebuilt(first, iter(values))


def _slots(leaves, size, count):
    """What becomes of each leaf: written into an output, shared, kept, or concatenated."""
    slots, seen = [], {}
    for j, leaf in enumerate(leaves):
        if id(leaf) in seen:
            slots.append(("same", seen[id(leaf)]))
            continue
        seen[id(leaf)] = j
        if not be.is_array(leaf) or leaf.ndim == 0:
            slots.append(("keep", leaf))
        elif tuple(leaf.shape) == (size,):
            slots.append(("write", be.empty_like(be.broadcast_to(leaf[:1], (count,)))))
        else:  # not one value per ray (no such field today): joined as it comes
            slots.append(("join", []))
    return slots


def _leaves(value):
    """The arrays and numbers of a trace (nested tuples and Rays), depth first."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        names = _RAY_FIELDS if isinstance(value, Rays) else _names(value)
        return [leaf for name in names for leaf in _leaves(getattr(value, name))]
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _rebuilt(template, values):
    """``template`` (a trace, tuple or Rays) with its leaves taken in order from ``values``."""
    if dataclasses.is_dataclass(template) and not isinstance(template, type):
        names = _RAY_FIELDS if isinstance(template, Rays) else _names(template)
        return type(template)(*(_rebuilt(getattr(template, n), values) for n in names))
    if isinstance(template, tuple):
        return tuple(_rebuilt(item, values) for item in template)
    return next(values)


def _names(value):
    return tuple(f.name for f in dataclasses.fields(value))
