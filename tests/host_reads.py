"""Counting host reads of torch tensors (patched ``torch.Tensor`` methods): test instrumentation,
kept with the tests (the array layer holds only what optics itself runs)."""

from __future__ import annotations

import contextlib
import sys


@contextlib.contextmanager
def count_host_reads():
    """Count host reads of torch tensors (``item``, ``bool``, ``tolist`` ...) in the block.

    Yields a dict: ``"count"`` grows with every read, ``"where"`` lists the methods read.
    Without torch loaded it counts nothing (and imports nothing).
    """
    record = {"count": 0, "where": []}
    torch = sys.modules.get("torch")
    if torch is None:
        yield record
        return
    names = ("item", "__bool__", "__int__", "__float__", "__index__", "tolist", "numpy")
    originals = {name: getattr(torch.Tensor, name) for name in names}

    def counted(name, original):
        def read(self, *args, **kwargs):
            record["count"] += 1
            record["where"].append(name)
            return original(self, *args, **kwargs)

        return read

    try:
        for name, original in originals.items():
            setattr(torch.Tensor, name, counted(name, original))
        yield record
    finally:
        for name, original in originals.items():
            setattr(torch.Tensor, name, original)
