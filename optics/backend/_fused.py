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

from ._dispatch import impl_of_all


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
    impl = impl_of_all(total, term)
    fused = getattr(impl, "accumulate", None)
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
    impl = impl_of_all(a, t, b)
    fused = getattr(impl, "add_product", None)
    return a + t * b if fused is None else fused(a, t, b)
