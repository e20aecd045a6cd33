"""The fused trace: launch and every surface compiled into one graph (torch backend).

Eager array code spends most of its time moving temporaries through memory:
each elementwise operation reads and writes whole ray arrays.  Compiled into
one graph (``torch.compile``, TorchDynamo + Inductor), the per-surface chains
fuse into a few loops that keep the ray state in registers, so the trace runs
near the bandwidth of reading and writing the ray state once per surface (see
docs/performance.md).

What runs where:

- eagerly, before the graph: paraxial data, the object-space field (the real
  image height solve included) and the refractive indices of the media; these
  are cheap scalar work with host syncs and warnings of their own;
- in the graph: the launch and, surface by surface, exactly the eager code of
  :func:`optics.trace.through_surface`.  Newton surfaces notice the
  compilation (``be.is_compiling()``) and take a fixed number of masked steps
  with no data-dependent exit (``static`` solve), so there are no graph breaks.

Compiled graphs are cached per (system topology, dtype, device, batch-size
bucket, which inputs vary per ray, compiler, Newton step count).  Batches are
padded with chief rays up to the bucket size, so nearby sizes share a graph.
Parameters that are Python numbers are compiled in as constants (changing one
recompiles); parameters that vary, such as optimization variables, should be
tensors (``be.parameter``), which enter the graph as inputs.

Results and gradients equal the eager trace's (to round-off), except for Newton
rays that need more than the fixed step count: they are non-converged
(invalid) here, where the eager loop would have gone on to ``max_iter``.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from . import backend as be
from .errors import ConfigurationError
from .fields import launch_rays, object_space_field
from .frames import surface_frames
from .geometry.newton_base import forced_iteration_count, forced_iterations
from .paraxial import paraxial
from .rays import Rays
from .surfaces import media
from .trace import through_surface

__all__ = [
    "DEFAULT_NEWTON_ITERATIONS",
    "batch_bucket",
    "cache_entries",
    "clear_cache",
    "explain_trace",
    "propagate_compiled",
    "trace_rays_compiled",
]

#: Masked Newton steps per surface in a compiled graph (seeded by the base conic,
#: moderate departures converge in 3-6; a converged ray is frozen by the mask).
DEFAULT_NEWTON_ITERATIONS = 12
#: Inductor settings of the compiled trace (see :func:`_entry`).
INDUCTOR_OPTIONS: dict = {}
#: Most compiled graphs kept; the least recently used is dropped first.
MAX_CACHE_ENTRIES = 16
_SMALLEST_BUCKET = 256
_RAY_FIELDS = ("x", "y", "z", "L", "M", "N", "wavelength", "intensity", "opd", "valid")


@dataclass
class CompiledTrace:
    """One cached compiled graph and what it cost.

    Attributes
    ----------
    key : tuple
        The cache key (see the module docstring).
    function : callable
        The compiled function.
    calls : int
        Calls so far.
    first_call_seconds : float or None
        Wall time of the first call, which includes the compilation.
    """

    key: tuple
    function: object
    calls: int = 0
    first_call_seconds: float | None = None


_CACHE: OrderedDict = OrderedDict()


def batch_bucket(n: int) -> int:
    """Padded batch size for n rays: the smallest m·2^k >= n with m in 4..7 (at least 256).

    At most 25 % of a padded batch is padding, and sizes from 256 to 10^7
    share about 60 buckets.
    """
    if n <= _SMALLEST_BUCKET:
        return _SMALLEST_BUCKET
    k = max(int(math.floor(math.log2(n))) - 2, 0)
    for m in (4, 5, 6, 7, 8):
        if m << k >= n:
            return m << k
    return 8 << k  # pragma: no cover - m = 8 always reaches n


def trace_rays_compiled(optic, hx, hy, px, py, wavelength=None, *, compiler="inductor",
                        newton_iterations=None):
    """Trace real rays to the image surface as one compiled graph (torch backend).

    Parameters
    ----------
    optic : Optic
        The system.
    hx, hy : float or array
        Normalized field coordinates.
    px, py : float or array
        Normalized pupil coordinates; all inputs broadcast together.
    wavelength : float or array, optional
        Wavelength(s) in micrometres; the primary wavelength by default.
    compiler : str
        TorchDynamo backend: ``"inductor"`` (fused kernels, tens of seconds
        to compile on 2 cores) or ``"aot_eager"`` (no code generation; for
        tests of the captured graph).
    newton_iterations : int, optional
        Masked Newton steps per Newton surface; by default the count of an
        enclosing ``forced_iterations`` block, else
        :data:`DEFAULT_NEWTON_ITERATIONS`.

    Returns
    -------
    Rays
        As :func:`optics.trace.trace_rays`, shaped like the broadcast inputs.

    Raises
    ------
    ConfigurationError
        On a backend that cannot compile (NumPy).
    """
    context, inputs = _launch_inputs(optic, hx, hy, px, py, wavelength)
    return _run("launch", optic, context, inputs, 4, compiler, newton_iterations)


def propagate_compiled(optic, rays: Rays, *, compiler="inductor", newton_iterations=None):
    """:func:`optics.trace.propagate` (without ``record``) as one compiled graph.

    For callers that launch their own rays (merit functions).  Parameters as
    in :func:`trace_rays_compiled`; ``rays`` are global, in object space.
    """
    _require_compilable()
    inputs = [getattr(rays, name) for name in _RAY_FIELDS]
    return _run("propagate", optic, None, inputs, 6, compiler, newton_iterations)


def cache_entries() -> list[CompiledTrace]:
    """The cached compiled graphs, least recently used first."""
    return list(_CACHE.values())


def clear_cache() -> None:
    """Drop every cached compiled graph."""
    _CACHE.clear()


# --- machinery ---------------------------------------------------------------------------


def _launch_inputs(optic, hx, hy, px, py, wavelength):
    """The eager part of a compiled trace: first-order data and object-space fields."""
    _require_compilable()
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    first_order = paraxial(optic)
    qx, qy = object_space_field(optic, hx, hy, first_order)
    inputs = [be.asarray(v) for v in (qx, qy, px, py, wavelength)]
    return (optic, first_order), inputs


def _require_compilable():
    if not be.can_compile():
        raise ConfigurationError(
            "compiled=True needs the torch backend (be.set_backend('torch') or "
            "`with be.using('torch'):`); the NumPy backend traces eagerly only"
        )


def _prepare(kind, optic, context, inputs, wavelength_slot, compiler, newton_iterations):
    """Pad the per-ray inputs to the bucket; the kernel, its arguments and the cache key."""
    iterations = newton_iterations
    if iterations is None:
        iterations = forced_iteration_count() or DEFAULT_NEWTON_ITERATIONS
    shape = tuple(np.broadcast_shapes(*(tuple(a.shape) for a in inputs)))
    n = math.prod(shape)
    bucket = batch_bucket(n)
    per_ray = tuple(a.ndim > 0 for a in inputs)
    flat = [_padded(a, shape, n, bucket) if varies else a for a, varies in zip(inputs, per_ray)]
    surfaces = optic.surfaces
    indices = _media_indices(surfaces, flat[wavelength_slot])
    arguments = (surfaces, surface_frames(surfaces), indices, context, *flat)
    kinds = tuple((str(a.dtype), be.device_of(a)) for a in flat)
    options = tuple(sorted(INDUCTOR_OPTIONS.items())) if compiler == "inductor" else ()
    key = (kind, _topology(optic), kinds, bucket, per_ray, compiler, options, iterations)
    kernel = _launch_and_trace if kind == "launch" else _trace_only
    return _Call(kernel, arguments, key, iterations, shape, n)


@dataclass(frozen=True)
class _Call:
    kernel: object
    arguments: tuple
    key: tuple
    iterations: int
    shape: tuple
    n: int


def _run(kind, optic, context, inputs, wavelength_slot, compiler, newton_iterations):
    """Call (compiling on first use) the cached graph, and cut the padding off its result."""
    call = _prepare(kind, optic, context, inputs, wavelength_slot, compiler, newton_iterations)
    entry = _entry(call.key, call.kernel, compiler)
    started = time.perf_counter()
    with forced_iterations(call.iterations):
        out = entry.function(*call.arguments)
    if entry.calls == 0:
        entry.first_call_seconds = time.perf_counter() - started
    entry.calls += 1
    fields = {name: _unpadded(getattr(out, name), call.shape, call.n) for name in _RAY_FIELDS}
    fields["wavelength"] = inputs[wavelength_slot]
    return Rays(**fields)


def explain_trace(optic, hx, hy, px, py, wavelength=None, *, newton_iterations=None):
    """TorchDynamo's capture of the compiled kernel of :func:`trace_rays_compiled`.

    Returns a :class:`optics.backend.CompileReport`; ``graph_break_count == 0``
    means the launch and every surface become one graph.  Nothing is cached.
    """
    context, inputs = _launch_inputs(optic, hx, hy, px, py, wavelength)
    call = _prepare("launch", optic, context, inputs, 4, "eager", newton_iterations)
    with forced_iterations(call.iterations):
        return be.explain_compile(call.kernel, *call.arguments)


def _padded(array, shape, n, bucket):
    """``array`` broadcast to ``shape``, flattened and padded to ``bucket`` with its first value."""
    flat = be.reshape(be.broadcast_to(array, shape), (n,))
    if bucket == n:
        return flat
    # The first entry repeated: a real ray of this batch, so the padding stays finite.
    return be.concatenate([flat, be.broadcast_to(flat[:1], (bucket - n,))])


def _unpadded(array, shape, n):
    """The first n entries of a padded result, in the broadcast ``shape``."""
    return be.reshape(array[:n], shape) if array.ndim else array


def _media_indices(surfaces, wavelength):
    """Index of the medium after each surface; one array object per distinct material."""
    by_material, out = {}, []
    for material, _ in media(surfaces):
        key = id(material)
        if key not in by_material:
            by_material[key] = material.index(wavelength)
        out.append(by_material[key])
    return tuple(out)


def _topology(optic):
    """What fixes the structure of the graph, besides the parameter values."""
    first_seen = {}
    rows = []
    for surface, (material, direction) in zip(optic.surfaces, media(optic.surfaces)):
        slot = first_seen.setdefault(id(material), len(first_seen))
        rows.append((type(surface.geometry).__qualname__, surface.is_mirror, slot, direction,
                     surface.semi_diameter is None, surface.has_frame))
    return (optic.object_at_infinity, tuple(rows))


def _entry(key, kernel, compiler):
    entry = _CACHE.get(key)
    if entry is None:
        options = dict(INDUCTOR_OPTIONS) if compiler == "inductor" else None
        entry = CompiledTrace(key, be.compile_function(kernel, compiler=compiler, options=options))
        _CACHE[key] = entry
        while len(_CACHE) > MAX_CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return entry


def _same(index):
    """The media are passed as their indices already."""
    return index


def _surface_loop(surfaces, frames, indices, rays):
    """Surfaces 1..image; the same array object before and after means the same medium."""
    for i in range(1, len(surfaces)):
        rays = through_surface(surfaces[i], frames[i], rays, indices[i - 1], indices[i], _same)
    return rays


def _launch_and_trace(surfaces, frames, indices, context, qx, qy, px, py, wavelength):
    """The compiled kernel of :func:`trace_rays_compiled`."""
    optic, first_order = context
    rays = launch_rays(optic, qx, qy, px, py, wavelength, first_order)
    return _surface_loop(surfaces, frames, indices, rays)


def _trace_only(surfaces, frames, indices, context, *components):
    """The compiled kernel of :func:`propagate_compiled`."""
    return _surface_loop(surfaces, frames, indices, Rays(*components))
