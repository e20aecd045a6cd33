"""The blocked method: a large batch traced in cache-sized blocks (no gradients).

An eager trace makes tens of batch-sized temporaries per surface; traced in
blocks of a few ten thousand rays they stay in the CPU's caches, and every
ray gets the same arithmetic as in one batch (bit-identical results).
Blocking applies only where :func:`optics.backend.ray_block_size` says it
gains (no gradient recording, no graph being compiled, arrays on the CPU, a
backend whose ``ray_block`` capability is set); elsewhere the batch is traced
in one piece, as :class:`~optics.trace.methods.Eager` does.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..loop import Traced
from ._blocks import in_blocks
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
