"""Fused, allocation-saving updates of temporaries (``out=`` / in-place where allowed).

Eager array code pays for every temporary: an allocation (often page faults)
and a pass over memory.  A caller that owns a temporary and only ever reads
the updated value can let the backend update it in place.  Each backend
decides whether it may: NumPy writes into ``total``; Torch does so outside
autograd only (an in-place write never touches a tensor that needs a
gradient, nor one inside a compiled graph); any other backend returns a new
array.  The values are those of the out-of-place expression.
"""

from __future__ import annotations

from .. import backend as be


def accumulate(total, term, weight=1.0):
    """``total + weight * term``, reusing ``total``'s memory when the backend allows.

    Parameters
    ----------
    total : array
        A temporary the caller created and owns: nothing else refers to it,
        and the caller uses only the returned value afterwards.
    term : array or number
        Broadcasts against ``total`` (the result has ``total``'s shape when
        updated in place; otherwise the broadcast shape).
    weight : number or 0-d array

    Returns
    -------
    array
        ``total`` itself (updated) or a new array.
    """
    fused = be.hook("accumulate", total, term)
    if fused is None:
        return total + weight * term
    return fused(total, term, weight)


def add_product(a, t, b):
    """``a + t * b`` with one temporary fewer where the backend allows.

    NumPy writes the sum into the product's fresh array; Torch without
    autograd recording (and outside a compiled graph) uses one fused
    ``addcmul``; otherwise, and on other backends, the plain expression.

    Parameters
    ----------
    a, t, b : arrays or numbers, broadcasting together (at least one an array)
    """
    fused = be.hook("add_product", a, t, b)
    return a + t * b if fused is None else fused(a, t, b)


def ray_block_size(*arrays) -> int | None:
    """Rays per block for an eager trace of ``arrays``, or None for one batch.

    An eager trace streams every temporary (tens per surface, each as large
    as the batch) through memory; traced in blocks that fit in the CPU's
    caches, the same arithmetic runs several times faster.  Blocking applies
    only where a block's results can be written into preallocated outputs and
    nothing needs the whole batch at once: the backend's ``ray_block``
    capability (``be.capabilities().ray_block``, chosen by measurement) must
    be set, every array must live on the CPU, no gradient may be recording
    (``grad_active``: a graph keeps every block alive anyway) and no graph
    compiler may be tracing.  A trace method chooses another size
    (``optics.trace.Blocked(block=...)``).

    Parameters
    ----------
    *arrays : array
        The trace's inputs (Python numbers are skipped).

    Returns
    -------
    int or None
    """
    arrays = [a for a in arrays if be.is_array(a)]
    if not arrays or be.grad_active(*arrays) or be.is_compiling(*arrays):
        return None
    sizes = {be.capabilities(be.backend_of(a)).ray_block for a in arrays}
    if len(sizes) != 1 or None in sizes:
        return None
    if any(be.device_of(a) != "cpu" for a in arrays):
        return None
    return sizes.pop()


def write_block(out, start, stop, value):
    """``out[..., start:stop] = value`` (arrays of a backend with ``ray_block`` only)."""
    out[..., start:stop] = value
    return out
