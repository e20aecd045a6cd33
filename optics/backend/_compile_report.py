"""What a graph capture found (a leaf: the compile code of every backend returns it)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class CompileReport:
    """What a graph capture of one call found: graphs, breaks and why."""

    graph_count: int
    graph_break_count: int
    break_reasons: list = field(default_factory=list)
    op_count: int = 0
