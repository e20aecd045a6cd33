"""optics.accel: the speed strategies above the array layer, written against ``be`` alone.

The array layer (:mod:`optics.backend`) says what a backend can do (its
capabilities and optional hooks); this package decides how optics uses that
to run fast, and changes no value:

- :mod:`.fused`: temporaries updated in place where the backend allows
  (``accumulate``, ``add_product``) and the cache-sized ray blocks of an
  eager trace (``ray_block_size``, ``write_block``);
- :mod:`.host`: scalar work on constants done with NumPy when the configured
  backend dispatches slowly (``on_host``);
- :mod:`.deferred`: checks of array values read in one host transfer at the
  end of a block (``deferred_reads``, ``read_later``, ``after_reads``);
- :mod:`.parts`: a compiled call cut into row parts run side by side on the
  CPU cores (``RowParts``);
- :mod:`.stages`: the stages of a compiled graph (``compiled_stage``);
- :mod:`.threads`: the intra-op thread count of each block of an eager
  trace, chosen by timing blocks (``BlockThreads``);
- :mod:`.allocator`: glibc's malloc kept from returning ray-sized buffers to
  the system between traces (set once, when the first backend is loaded).

Nothing here imports torch or jax or knows a backend by name.
"""

from .. import backend as _be
from . import allocator as _allocator
from .deferred import (  # noqa: F401  (re-exported through __all__)
    after_reads,
    deferred_reads,
    host_reads_cheap,
    read_later,
    reads_deferred,
)
from .fused import accumulate, add_product, ray_block_size, write_block  # noqa: F401
from .host import on_host  # noqa: F401  (re-exported through __all__)
from .parts import RowParts  # noqa: F401  (re-exported through __all__)
from .stages import compiled_stage  # noqa: F401  (re-exported through __all__)
from .threads import BlockThreads  # noqa: F401  (re-exported through __all__)

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
