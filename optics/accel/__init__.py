"""optics.accel: speed strategies above the array layer, on ``be`` alone; they change no value."""

from .. import backend as _be
from . import allocator as _allocator
from .deferred import after_reads, deferred_reads, host_reads_cheap, read_later, reads_deferred
from .fused import accumulate, add_product, ray_block_size, write_block
from .host import on_host
from .parts import RowParts
from .stages import compiled_stage
from .threads import BlockThreads

_be.on_backend_load(lambda _name: _allocator.keep_freed_memory())  # once per process

__all__ = [
    "BlockThreads",
    "RowParts",
    "accumulate",
    "add_product",
    "after_reads",
    "compiled_stage",
    "deferred_reads",
    "host_reads_cheap",
    "on_host",
    "ray_block_size",
    "read_later",
    "reads_deferred",
    "write_block",
]
