"""An autograd-safe cache of values prepared from surface coefficients.

Some surface types turn their lens-file coefficients into a different form
before evaluating the sag (Forbes polynomials convert them for a Clenshaw
sum; Chebyshev stacks them into a matrix).  Preparing once per change instead
of once per Newton iteration is the point of a cache, and it has two hazards
that this module handles in one place (DESIGN.md rule 6):

1. **Detachment.**  The first evaluation of a surface in a trace happens
   inside the graph-free Newton iteration (``be.no_grad()``).  A coefficient
   array stacked there from grad-carrying tensors is detached for good, and
   every later gradient with respect to the coefficients would silently be
   zero.  :meth:`PreparedCache.get` therefore always builds under
   ``be.enable_grad()``.
2. **Staleness and freed graphs.**  A coefficient may change by assignment,
   by an in-place edit of a nested list, or by an optimizer's in-place tensor
   update.  The cache key is a fingerprint of every coefficient leaf: Python
   numbers by value, arrays by identity plus their in-place version counter
   (or, for arrays without one, their bytes).  Prepared values that carry a
   graph (some coefficient requires grad) are never kept across calls: a graph
   is freed by ``backward()``, so a second trace reusing it could not be
   differentiated.  They are kept only inside :meth:`PreparedCache.scope`,
   which a surface opens for the duration of one intersection.
"""

from __future__ import annotations

from contextlib import contextmanager

from .. import backend as be


def coefficient_leaves(value):
    """The numbers and arrays in a nested list / tuple / dict structure, in order."""
    if isinstance(value, (list, tuple)):
        for item in value:
            yield from coefficient_leaves(item)
    elif isinstance(value, dict):
        for key in sorted(value, key=str):
            yield from coefficient_leaves(value[key])
    elif not isinstance(value, str):
        yield value


def _leaf_key(value):
    """Hashable, comparable identity of one coefficient's current value."""
    if isinstance(value, (int, float)):
        return value
    # A tensor's in-place version counter changes on every in-place update
    # (optimizer steps included); arrays without one are keyed by value.
    counter = getattr(value, "_version", None)
    if counter is not None:
        return (id(value), counter, be.requires_grad(value))
    if be.requires_grad(value):  # a traced value (JAX): immutable, and it has no bytes to read
        return (id(value), True)
    return (id(value), be.to_numpy(value).tobytes())


def _array_kind(like):
    """Backend, dtype and device of the arrays the prepared values must match."""
    return (be.backend_of(like), str(like.dtype), be.device_of(like))


class PreparedCache:
    """Values built from coefficients, rebuilt when a coefficient changes.

    Parameters
    ----------
    build : callable
        ``build(coefficients, like) -> prepared``: turns the coefficient
        structure into arrays of the backend, dtype and device of the array
        ``like``.  Always called under ``be.enable_grad()``.
    """

    __slots__ = ("_build", "_detached", "_scoped", "_depth", "builds")

    def __init__(self, build):
        self._build = build
        self._detached = None  # (key, leaves, value): kept across calls
        self._scoped = None  # the same for graph-carrying values, inside a scope
        self._depth = 0
        self.builds = 0  # number of builds so far (for tests and diagnostics)

    def get(self, coefficients, like):
        """The prepared values for ``coefficients`` on the arrays of ``like``.

        Parameters
        ----------
        coefficients : nested list / tuple / dict of floats or 0-d arrays
            The geometry's coefficient attribute(s) as they are now.
        like : array
            Any array of the evaluation (sets backend, dtype and device).
        """
        leaves = list(coefficient_leaves(coefficients))
        key = (_array_kind(like), tuple(_leaf_key(v) for v in leaves))
        attached = any(be.requires_grad(v) for v in leaves if not isinstance(v, (int, float)))
        entry = self._scoped if attached else self._detached
        if entry is not None and entry[0] == key:
            return entry[2]
        with be.enable_grad():
            value = self._build(coefficients, like)
        self.builds += 1
        entry = (key, leaves, value)  # holding the leaves keeps their ids from being reused
        if not attached:
            self._detached = entry
        elif self._depth:
            self._scoped = entry
        return value

    @contextmanager
    def scope(self):
        """Reuse graph-carrying prepared values until the block ends (one intersection)."""
        self._depth += 1
        try:
            yield self
        finally:
            self._depth -= 1
            if not self._depth:
                self._scoped = None

    def clear(self):
        """Forget every prepared value."""
        self._detached = self._scoped = None
