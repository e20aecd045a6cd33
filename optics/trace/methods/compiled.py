"""The compiled trace method: launch and every surface as one graph (torch or jax backend).

The aim runs eagerly first; Newton solves take a fixed number of masked steps in the graph
and the rays they leave unconverged are traced again eagerly.  See docs/performance.md.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import time
from collections import OrderedDict

import numpy as np

from ... import accel
from ... import backend as be
from ...errors import ConfigurationError
from ...geometry.newton_base import NewtonRaphsonGeometry
from ...rays import Rays
from ...solvers import current_settings, forced_iterations
from ..aim import aim
from ..launch import launch_from, launch_rays
from ..loop import RAY_FIELDS, Traced, surface_loop
from ..prepared import prepare, propagate
from ..real_image_height import field_parameters
from ._compiled_inputs import PerRayViews, padded, topology, unpadded
from .base import RayBatch, TraceMethod

__all__ = [
    "DEFAULT_COMPILER",
    "DEFAULT_NEWTON_ITERATIONS",
    "Compiled",
    "batch_bucket",
    "cache_entries",
    "clear_cache",
    "explain_trace",
]

#: TorchDynamo backend used when a caller does not name one (tests set "aot_eager").
DEFAULT_COMPILER = "inductor"
#: Masked Newton steps per surface in a graph (base-conic seeds converge in 3-6): graph
#: time against eager retraces of the rays still moving after them.
DEFAULT_NEWTON_ITERATIONS = 6
#: Inductor's default limits cut a trace of thousands of pointwise operations per ray
#: into dozens of loops with the ray state stored between them; without, one loop each way.
INDUCTOR_OPTIONS: dict = {
    "max_fusion_size": 100_000,
    "realize_opcount_threshold": 100_000,
    "realize_cpu_opcount_threshold": 100_000,
}
#: AOTAutograd's activation memory budget: with 0 the forward keeps only its inputs and
#: the backward recomputes the rest in registers (writing ~30 masks per ray is slower);
#: a graph with Newton steps keeps 1, else its backward would recompute the iterations.
MEMORY_BUDGET = 0.0
NEWTON_MEMORY_BUDGET = 1.0
#: With gradients and Newton surfaces, a no-grad graph solves the roots first and the
#: gradient graph takes them (no Newton step, only the implicit correction; budget 0).
TWO_PASS_NEWTON = True
#: Rays per chunk where the backend maps the graph over rows (jax): a surface's ~20 live
#: float64 temporaries stay in a core's L2 cache.
CHUNK_ROWS = 4096
#: Fewest rays per part of a call split among the CPU cores (jax: one program a core).
PART_ROWS = 4 * CHUNK_ROWS
#: Most compiled graphs kept; the least recently used is dropped first.
MAX_CACHE_ENTRIES = 16
_SMALLEST_BUCKET = 256


@dataclasses.dataclass
class CompiledTrace:
    """One cached compiled graph (its cache key and compiled function) and what it cost."""

    key: tuple
    function: object
    calls: int = 0
    first_call_seconds: float | None = None  # wall time of the first call, compiling included


_CACHE: OrderedDict = OrderedDict()


def batch_bucket(n: int) -> int:
    """Padded batch size for n rays: the smallest m·2^k >= n, m in 4..7, at least 256 (<= 25 %)."""
    if n <= _SMALLEST_BUCKET:
        return _SMALLEST_BUCKET
    k = max(int(math.floor(math.log2(n))) - 2, 0)
    return next(m << k for m in (4, 5, 6, 7, 8) if m << k >= n)  # 8 << k > n always


@dataclasses.dataclass(frozen=True, repr=False)
class Compiled(TraceMethod):
    """The launch and the whole surface loop as one compiled graph (torch or jax backend).

    Parameters
    ----------
    compiler : str, optional
        TorchDynamo backend: ``"inductor"`` (fused kernels; tens of seconds to compile) or
        ``"aot_eager"`` (no code generation; tests); :data:`DEFAULT_COMPILER` by default.
    newton_iterations : int, optional
        Masked Newton steps per Newton surface; by default an enclosing
        ``forced_iterations`` count, else :data:`DEFAULT_NEWTON_ITERATIONS`.

    Raises
    ------
    ConfigurationError
        On a backend that cannot compile (NumPy); for rays along the way or partial clipping.
    """

    compiler: str | None = None
    newton_iterations: int | None = None
    name = "compiled"
    keeps_surfaces = False

    def trace(self, system, batch: RayBatch) -> Traced:
        if not be.can_compile():
            raise ConfigurationError(
                f"method='compiled' needs a backend that compiles graphs, not {be.get_backend()!r} "
                "(be.set_backend('torch') or 'jax', or `with be.using('jax'):`); "
                "the NumPy backend traces eagerly only"
            )
        if batch.keep or batch.clip is not True:
            raise ConfigurationError(
                "the compiled trace method returns the rays at the image only, every clear "
                "aperture applied (method='eager' or 'blocked' records the surfaces on the way)"
            )
        inputs, aimed = _launch_inputs(system, batch)
        rays = _run(system, inputs, self.compiler, self.newton_iterations)
        if aimed is not None:
            rays = rays.replace(valid=be.logical_and(rays.valid, aimed))
        return Traced(rays, {})


def cache_entries() -> list[CompiledTrace]:
    """The cached compiled graphs, least recently used first."""
    return list(_CACHE.values())


def clear_cache() -> None:
    """Drop every cached compiled graph."""
    _CACHE.clear()


def _launch_inputs(system, batch):
    """The kernel inputs after the eager aim, and the mask of converged aims (None if paraxial)."""
    qx, qy, px, py, wavelength = batch.qx, batch.qy, batch.px, batch.py, batch.wavelength
    aimed = None
    if system.aiming == "real":
        result = aim(system.optic, qx, qy, px, py, be.asarray(wavelength), system.first_order)
        px, py, aimed = result.px, result.py, result.converged
    # A Python-number wavelength stays one, so the media's indices are evaluated on the host.
    inputs = [be.asarray(v) for v in (qx, qy, px, py)] + [wavelength]
    return inputs, aimed


def _has_newton(surfaces):
    return any(isinstance(s.geometry, NewtonRaphsonGeometry) for s in surfaces)


def _prepare(system, inputs, compiler, newton_iterations, roots=None):
    """The padded call: kernel, arguments, cache key (``roots``: None, [] to collect, or given)."""
    compiler = DEFAULT_COMPILER if compiler is None else compiler
    arrays = [be.asarray(a) for a in inputs]
    iterations = newton_iterations
    if iterations is None:
        iterations = current_settings().forced_iterations or DEFAULT_NEWTON_ITERATIONS
    shape = tuple(np.broadcast_shapes(*(tuple(a.shape) for a in arrays)))
    n = math.prod(shape)
    bucket = batch_bucket(n) if be.capabilities().batch_buckets else n
    per_ray = tuple(a.ndim > 0 for a in arrays)
    views = PerRayViews(bucket)
    flat = [
        padded(a, shape, n, bucket) if varies else views(a) for a, varies in zip(arrays, per_ray)
    ]
    optic = system.optic
    context = (optic, views.dataclass(system.first_order))
    wavelength = inputs[4] if isinstance(inputs[4], numbers.Real) else flat[4]
    media = system.indices(wavelength)
    # One view per medium, made once: the same object before and after means no refraction.
    viewed = {}
    for a in media:
        if id(a) not in viewed:
            viewed[id(a)] = views(a)
    indices = tuple(viewed[id(a)] for a in media)
    frames = [views.frame(frame) for frame in system.frames]
    surfaces = [views.surface(surface) for surface in optic.surfaces]
    collect = isinstance(roots, list)
    given = tuple(roots) if isinstance(roots, tuple) else ()
    newton = _has_newton(optic.surfaces)
    flagged = newton and not collect  # the unconverged rays come out, to be traced again
    arguments = (surfaces, frames, indices, context, given, flagged, *flat)
    kinds = tuple((str(a.dtype), be.device_of(a)) for a in flat)
    options = tuple(sorted(INDUCTOR_OPTIONS.items())) if compiler == "inductor" else ()
    kind = "roots" if collect else "trace"
    structure = topology(optic)
    key = (kind, structure, kinds, bucket, per_ray, compiler, options, iterations, bool(given))
    kernel = roots_only if collect else launch_and_trace
    budget = NEWTON_MEMORY_BUDGET if newton and not given else MEMORY_BUDGET
    return _Call(kernel, arguments, key, compiler, iterations, budget, shape, n)


# The kernels, what runs inside the graph, take no default or keyword-only arguments: the
# torch path compiles a private copy of their code, which does not carry defaults.


def launch_and_trace(surfaces, frames, indices, context, roots, flagged, qx, qy, px, py, wl):
    """The compiled kernel: (rays, unconverged mask or None).

    Each surface a stage: on JAX, XLA then does not recompute earlier surfaces in later ones.
    """
    optic, first_order = context
    rays = launch_from(optic, first_order, qx, qy, px, py, wl)
    traced = surface_loop(
        surfaces,
        frames,
        indices,
        rays,
        roots=roots or None,
        flag_unconverged=flagged,
        stage=accel.compiled_stage,
    )
    return traced.rays, traced.unconverged


def roots_only(surfaces, frames, indices, context, roots, flagged, qx, qy, px, py, wl):
    """The no-grad first of two passes: the Newton roots, surface by surface."""
    # Not staged: a stage's values leave it only as its outputs.
    optic, first_order = context
    rays = launch_from(optic, first_order, qx, qy, px, py, wl)
    return surface_loop(surfaces, frames, indices, rays, collect_roots=True).roots


@dataclasses.dataclass(frozen=True)
class _Call:
    """One prepared call: the kernel, its arguments, and how to cache and unpad it."""

    kernel: object
    arguments: tuple
    key: tuple
    compiler: str
    iterations: int
    memory_budget: float
    shape: tuple
    n: int


def _run(system, inputs, compiler, newton_iterations):
    """Call (compiling on first use) the cached graph, and cut the padding off its result."""
    roots = None
    newton = _has_newton(system.surfaces)
    # Only a tape (torch) gains: JAX's backward recomputes the forward anyway (one pass faster).
    if TWO_PASS_NEWTON and newton and be.grad_active() and be.autodiff_kind() == "tape":
        with be.no_grad():
            call = _prepare(system, inputs, compiler, newton_iterations, roots=[])
            with forced_iterations(call.iterations):
                roots = tuple(_entry(call).function(*call.arguments))
        newton_iterations = 0  # the gradient graph takes the roots: no Newton step
    call = _prepare(system, inputs, compiler, newton_iterations, roots)
    entry = _entry(call)
    started = time.perf_counter()
    with forced_iterations(call.iterations):
        out, unconverged = entry.function(*call.arguments)
    if entry.calls == 0:
        entry.first_call_seconds = time.perf_counter() - started
    entry.calls += 1
    fields = {name: unpadded(getattr(out, name), call.shape, call.n) for name in RAY_FIELDS}
    fields["wavelength"] = be.asarray(inputs[4])
    rays = Rays(**fields)
    if unconverged is None:
        return rays
    return retrace_unconverged(system, inputs, rays, unpadded(unconverged, call.shape, call.n))


def retrace_unconverged(system, inputs, rays, unconverged):
    """``rays`` (the graph's result) with those flagged in ``unconverged`` traced again eagerly.

    A graph's fixed Newton step count would lose rays the eager loop goes on with, up to the
    geometry's ``max_iter``; traced again from the start (usually none), their results replace
    the graph's through a scatter that gradients pass through.  ``inputs``: the kernel's
    (qx, qy, px, py, wavelength) before padding.  One host read; under a caller's ``jax.jit``
    the fixed count decides.
    """
    if be.is_compiling(unconverged):
        return rays
    unconverged = be.detach(unconverged)  # under an eager jax.grad: the concrete mask
    if not be.item(be.any(unconverged)):  # the one host read
        return rays
    shape = tuple(unconverged.shape)
    mask = be.reshape(unconverged, (-1,))

    def flat(value):
        return be.reshape(be.broadcast_to(be.asarray(value), shape), (-1,))

    # The eager loop's own step limit, whatever count a caller forced on the graph.
    with forced_iterations(None):
        subset = [flat(value)[mask] for value in inputs]
        launched = launch_rays(system, *subset)
        again = propagate(system, launched)
    replaced = {
        name: be.reshape(be.scatter(flat(getattr(rays, name)), mask, getattr(again, name)), shape)
        for name in RAY_FIELDS
        if name != "wavelength"  # the caller's input
    }
    return rays.replace(**replaced)


def explain_trace(optic, field, pupil, wavelength=None, *, newton_iterations=None):
    """TorchDynamo's capture of the compiled kernel of a compiled trace.

    Returns a :class:`optics.backend.CompileReport`; ``graph_break_count == 0``
    means the launch and every surface become one graph.  Nothing is cached.
    """
    system = prepare(optic)
    wavelength = system.optic.primary_wavelength if wavelength is None else wavelength
    batch = RayBatch(*field_parameters(system, *field), *pupil, wavelength)
    inputs, _ = _launch_inputs(system, batch)
    call = _prepare(system, inputs, "eager", newton_iterations)
    with forced_iterations(call.iterations):
        return be.explain_compile(call.kernel, *call.arguments)


def _entry(call):
    """The cache entry of ``call``, created (not yet compiled) when missing."""
    key, compiler = call.key, call.compiler
    entry = _CACHE.get(key)
    if entry is None:
        options = dict(INDUCTOR_OPTIONS) if compiler == "inductor" else None
        function = be.compile_function(
            call.kernel,
            rows=call.key[3],  # the bucket: every per-ray array is that long, rows independent
            chunk_rows=CHUNK_ROWS,
            runner=accel.RowParts(PART_ROWS),
            compiler=compiler,
            options=options,
            memory_budget=call.memory_budget,
        )
        entry = CompiledTrace(key, function)
        _CACHE[key] = entry
        while len(_CACHE) > MAX_CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    return entry
