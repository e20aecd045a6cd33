"""The streamed method: fixed memory, slices along the pupil axis, with a progress bar.

Every ray is traced as in one batch; :func:`optics.trace.iter_bundle` reduces slice by slice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ... import backend as be
from ...rays import Rays
from ..loop import RAY_FIELDS, Traced
from .base import RayBatch, TraceMethod, resolve
from .blocked import columns


@dataclass(frozen=True, repr=False)
class Streamed(TraceMethod):
    """Trace in slices of at most ``chunk_rays`` rays.

    Parameters
    ----------
    chunk_rays : int
        Rays per slice (at least one pupil sample of every wavelength and field); 10⁶ by default.
    progress : bool, optional
        Show a progress bar (tqdm, when installed); by default only when stderr is a terminal.
    inner : TraceMethod or str, optional
        How each slice is traced; the backend's default method by default.
    """

    chunk_rays: int = 1_000_000
    progress: bool | None = None
    inner: object = None
    name = "streamed"

    def __post_init__(self):
        if isinstance(self.chunk_rays, bool) or not isinstance(self.chunk_rays, int):
            raise ValueError(f"Streamed: chunk_rays must be an integer, not {self.chunk_rays!r}")
        if self.chunk_rays < 1:
            raise ValueError(f"chunk_rays must be >= 1, not {self.chunk_rays}")

    @property
    def keeps_surfaces(self):
        return self.slice_method().keeps_surfaces

    def slice_method(self) -> TraceMethod:
        return resolve(self.inner)

    def pupil_step(self, n_pupil, rays_per_sample):
        return max(1, self.chunk_rays // max(1, rays_per_sample))

    def progress_bar(self, total):
        if self.progress is False:
            return None
        try:
            from tqdm import tqdm
        except ImportError:
            return None
        # disable=None: tqdm shows the bar only when its stream is a terminal.
        disable = None if self.progress is None else False
        return tqdm(total=total, unit="ray", unit_scale=True, desc="trace", disable=disable)

    def trace(self, system, batch: RayBatch) -> Traced:
        shape = batch.shape
        n = shape[-1] if shape else 1
        per_sample = math.prod(shape[:-1])
        step = self.pupil_step(n, per_sample)
        inner = self.slice_method()
        if step >= n:
            return inner.trace(system, batch)
        keys = sorted(batch.keep)
        parts = []
        bar = self.progress_bar(n * per_sample)
        try:
            for start in range(0, n, step):
                cut = [columns(v, n, start, start + step) for v in batch.inputs()]
                parts.append(inner.trace(system, RayBatch(*cut, batch.keep)))
                if bar is not None:
                    bar.update(min(step, n - start) * per_sample)
        finally:
            if bar is not None:
                bar.close()
        kept = {k: joined([p.kept[k] for p in parts]) for k in keys}
        return Traced(joined([p.rays for p in parts]), kept)


def joined(parts):
    """Rays of consecutive slices joined along the last axis."""
    lead = tuple(parts[0].x.shape[:-1])
    out = {}
    for name in RAY_FIELDS:
        values = [getattr(p, name) for p in parts]
        if be.is_array(values[0]) and values[0].ndim:
            values = [be.broadcast_to(v, lead + (p.x.shape[-1],)) for v, p in zip(values, parts)]
            out[name] = be.concatenate(values, axis=-1)
        else:
            out[name] = values[0]
    return Rays(**out)
