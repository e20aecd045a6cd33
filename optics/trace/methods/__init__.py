"""Trace methods: how a batch of rays goes through a prepared system (docs/tracing.md).

``method=`` takes a :class:`TraceMethod` or the ``name`` of a registered subclass
(:data:`METHODS`): ``"eager"``, ``"blocked"`` (the default), ``"streamed"``, ``"compiled"``.
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
