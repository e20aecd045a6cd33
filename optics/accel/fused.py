"""Fused, allocation-saving updates of temporaries, and the ray blocks of an eager trace.

Each temporary costs an allocation and a pass over memory.  The backend decides whether one
may be updated in place (NumPy; Torch outside autograd and compiled graphs); values are
those of the out-of-place expression.
"""

from __future__ import annotations

from .. import backend as be


def accumulate(total, term, weight=1.0):
    """``total + weight * term``, reusing ``total``'s memory when the backend allows.

    Parameters
    ----------
    total : array
        A temporary the caller owns and reads afterwards only through the result, which is
        ``total`` updated (its shape) or a new array (the broadcast shape).
    term : array or number, broadcasting against ``total``
    weight : number or 0-d array
    """
    return be.hook("accumulate", total, term)(total, term, weight)


def add_product(a, t, b):
    """``a + t * b`` with one temporary fewer where the backend allows.

    Parameters
    ----------
    a, t, b : arrays or numbers, broadcasting together (at least one an array)
    """
    return be.hook("add_product", a, t, b)(a, t, b)


def ray_block_size(*arrays) -> int | None:
    """Rays per block for an eager trace of ``arrays``, or None for one batch.

    Blocks that fit in the CPU's caches run the same arithmetic several times faster.  They
    need the backend's ``ray_block`` capability, every array on the CPU, no gradient
    recording (a graph keeps every block alive) and no graph compiler tracing.

    Parameters
    ----------
    *arrays : array
        The trace's inputs (Python numbers are skipped).
    """
    arrays = [a for a in arrays if be.is_array(a)]
    if not arrays or be.grad_active(*arrays) or be.is_compiling(*arrays):
        return None
    sizes = {be.capabilities(be.backend_of(a)).ray_block for a in arrays}
    if len(sizes) != 1 or None in sizes or any(be.device_of(a) != "cpu" for a in arrays):
        return None
    return sizes.pop()


def write_block(out, start, stop, value):
    """``out[..., start:stop] = value`` (arrays of a backend with ``ray_block`` only)."""
    out[..., start:stop] = value
    return out
