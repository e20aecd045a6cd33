"""Trace methods: how a batch of rays goes through a prepared system.

Every public trace and analysis takes ``method=``: a :class:`TraceMethod`
object or the name of one.

- ``"eager"`` — :class:`Eager`: the whole batch at once (what gradients and a
  caller's ``jax.jit``/``vmap`` see);
- ``"blocked"`` — :class:`Blocked`: cache-sized blocks where the backend
  gains (no gradient recording, CPU arrays), else one batch; the default;
- ``"streamed"`` — :class:`Streamed`: fixed memory, slices of ``chunk_rays``
  rays with a progress bar (10⁶ rays per slice by default);
- ``"compiled"`` — :class:`Compiled`: the launch and the surface loop as one
  ``torch.compile`` / ``jax.jit`` graph, the rays its fixed Newton step count
  leaves unconverged traced again eagerly.

Each method is a module of this package; a new method is a new subclass of
:class:`TraceMethod`: pass the object, or give the class a ``name`` and it is
known by that name (:data:`METHODS`) once its module is imported.
"""

from __future__ import annotations

from .base import METHODS, RayBatch, TraceMethod, resolve
from .blocked import Blocked
from .compiled import Compiled
from .eager import Eager
from .streamed import Streamed

__all__ = [
    "METHODS",
    "Blocked",
    "Compiled",
    "Eager",
    "RayBatch",
    "Streamed",
    "TraceMethod",
    "resolve",
]
