"""The fused trace: launch and every surface compiled into one graph (torch or jax backend).

Eager array code spends most of its time moving temporaries through memory:
each elementwise operation reads and writes whole ray arrays.  Compiled into
one graph (``torch.compile``, TorchDynamo + Inductor; or ``jax.jit`` on the jax
backend, XLA), the per-surface chains
fuse into a few loops that keep the ray state in registers, so the trace runs
near the bandwidth of reading and writing the ray state once per surface (see
docs/performance.md).

What runs where:

- eagerly, before the graph: paraxial data, the object-space field (the real
  image height solve included) and the refractive indices of the media; these
  are cheap scalar work with host syncs and warnings of their own;
- in the graph: the launch and, surface by surface, exactly the eager code of
  :func:`optics.trace.loop.through_surface`.  Newton solves notice the
  compilation (:func:`optics.solvers.resolve_settings`) and take a fixed number of masked steps
  with no data-dependent exit (``static`` solve), so there are no graph breaks.

On JAX the graph is additionally mapped over 4096-ray chunks (``rows=`` of
:func:`optics.backend.compile_function`) and each surface is a compiled stage
(:mod:`._compiled_kernels`), and ``jax.grad`` recomputes the forward pass in
the backward one instead of storing it (see docs/performance.md).

Compiled graphs are cached per (system topology, dtype, device, batch-size
bucket, which inputs vary per ray, compiler, Newton step count).  On torch,
batches are padded with chief rays up to the bucket size, so nearby sizes
share a graph (Inductor compiles for tens of seconds); on jax the bucket is
the batch size itself (``be.capabilities().batch_buckets``: jit compiles in a second or two,
and padding and cutting the padding off would copy every array).
Parameters that are Python numbers are compiled in as constants (changing one
recompiles); parameters that vary, such as optimization variables, should be
tensors (``be.parameter``), which enter the graph as inputs.

Results and gradients equal the eager trace's (to round-off).  The rays a
Newton surface leaves unconverged after the fixed step count (the graph
returns their mask) are traced again eagerly, where the loop goes on to the
geometry's ``max_iter`` (:mod:`._compiled_retrace`; one host read per trace).
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
from ..loop import RAY_FIELDS, Traced
from ..prepared import prepare
from ..real_image_height import field_parameters
from ._compiled_inputs import PerRayViews, padded, topology, unpadded
from ._compiled_kernels import launch_and_trace, roots_only
from ._compiled_retrace import retrace_unconverged
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
#: Masked Newton steps per surface in a compiled graph (seeded by the base conic,
#: moderate departures converge in 3-6; a converged ray is frozen by the mask).
#: A ray still moving after them is traced again eagerly, so the count trades
#: graph time against eager retraces; it was 12 before the retrace existed
#: (Chebyshev variant, 1e6 rays, forward+backward: 62 M at 12 steps, 77 M at 6).
DEFAULT_NEWTON_ITERATIONS = 6
#: Inductor settings of the compiled trace.  By default Inductor stops fusing at 64
#: nodes and writes any pointwise expression of more than 30-50 operations to
#: memory; a sequential trace is thousands of pointwise operations per ray, so
#: the defaults cut it into dozens of loops with the ray state stored between
#: them.  Without those limits forward and backward are one loop each
#: (measured on the Cooke triplet at 10^6 rays, 2 cores: forward 190 -> 305 M,
#: forward+backward 17 -> 49 M ray·surfaces/s; compiling takes less time too).
INDUCTOR_OPTIONS: dict = {
    "max_fusion_size": 100_000,
    "realize_opcount_threshold": 100_000,
    "realize_cpu_opcount_threshold": 100_000,
}
#: How much the forward pass keeps for the backward pass (AOTAutograd's activation
#: memory budget).  Keeping the default 1.0 the forward writes some 30 masks and
#: intermediate values per ray, and writing that many arrays at once runs at a
#: third of the speed of the no-grad graph; with 0.0 the forward keeps its inputs
#: and the backward recomputes the rest in registers (Cooke triplet, 10^6 rays:
#: forward+backward 69 -> 119 M ray·surfaces/s, 2.4 saved bytes per ray·surface).
#: With Newton surfaces the backward would recompute the whole fixed-count
#: iteration, so those graphs keep the default (Chebyshev variant: 40 M vs 38 M).
MEMORY_BUDGET = 0.0
NEWTON_MEMORY_BUDGET = 1.0
#: With gradients and Newton surfaces, solve the roots first in a no-grad graph
#: and give them to the gradient graph, which takes no Newton step (only the
#: implicit correction) and can use :data:`MEMORY_BUDGET`: its backward keeps the
#: converged roots and recomputes the rest, never the masked iterations.
TWO_PASS_NEWTON = True
#: Rays per chunk of the graph on a backend that maps it over chunks of rows (jax):
#: the ~20 live float64 temporaries of a surface stay in a core's L2 cache (measured
#: on the Cooke triplet, 1e6 rays, 2 cores: 2048 and 4096 alike, 16384 half as fast,
#: unchunked a quarter).
CHUNK_ROWS = 4096
#: Fewest rays per part of a call split among the CPU cores (jax: one program a core).
PART_ROWS = 4 * CHUNK_ROWS
#: Most compiled graphs kept; the least recently used is dropped first.
MAX_CACHE_ENTRIES = 16
_SMALLEST_BUCKET = 256


@dataclasses.dataclass
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


@dataclasses.dataclass(frozen=True, repr=False)
class Compiled(TraceMethod):
    """The launch and the whole surface loop as one compiled graph (torch or jax backend).

    Parameters
    ----------
    compiler : str, optional
        TorchDynamo backend: ``"inductor"`` (fused kernels, tens of seconds
        to compile on 2 cores) or ``"aot_eager"`` (no code generation; for
        tests of the captured graph); :data:`DEFAULT_COMPILER` by default.
    newton_iterations : int, optional
        Masked Newton steps per Newton surface; by default the count of an
        enclosing ``forced_iterations`` block, else
        :data:`DEFAULT_NEWTON_ITERATIONS`.

    Raises
    ------
    ConfigurationError
        On a backend that cannot compile (NumPy), and for a batch that asks
        for rays along the way or clips only some rays.
    """

    compiler: str | None = None
    newton_iterations: int | None = None
    name = "compiled"
    keeps_surfaces = False

    def trace(self, system, batch: RayBatch) -> Traced:
        _require_compilable()
        if batch.keep or batch.clip is not True:
            raise ConfigurationError(
                "the compiled trace method returns the rays at the image only, every clear "
                "aperture applied (method='eager' or 'blocked' records the surfaces on the way)"
            )
        rays = _compiled_trace(system, batch, self.compiler, self.newton_iterations)
        return Traced(rays, {})


def _compiled_trace(system, batch, compiler, newton_iterations):
    context, inputs, aimed = _launch_inputs(system, batch)
    rays = _run(system, context, inputs, compiler, newton_iterations)
    return rays if aimed is None else rays.replace(valid=be.logical_and(rays.valid, aimed))


def cache_entries() -> list[CompiledTrace]:
    """The cached compiled graphs, least recently used first."""
    return list(_CACHE.values())


def clear_cache() -> None:
    """Drop every cached compiled graph."""
    _CACHE.clear()


# --- machinery ---------------------------------------------------------------------------


def _launch_inputs(system, batch):
    """The eager part of a compiled trace: the aim, before the graph.

    Returns the context (optic, first-order data), the kernel inputs and,
    under real aiming, the mask of rays whose aim converged (None otherwise).
    """
    optic, first_order = system.optic, system.first_order
    qx, qy, px, py, wavelength = batch.qx, batch.qy, batch.px, batch.py, batch.wavelength
    aimed = None
    if system.aiming == "real":
        result = aim(optic, qx, qy, px, py, be.asarray(wavelength), first_order)
        px, py, aimed = result.px, result.py, result.converged
    # The wavelength stays as given: a Python number lets the media's indices be
    # evaluated on the host (optics.materials.index_at); _prepare converts it.
    inputs = [be.asarray(v) for v in (qx, qy, px, py)] + [wavelength]
    return (optic, first_order), inputs, aimed


def _require_compilable():
    if not be.can_compile():
        raise ConfigurationError(
            f"method='compiled' needs a backend that compiles graphs, not {be.get_backend()!r} "
            "(be.set_backend('torch') or 'jax', or `with be.using('jax'):`); "
            "the NumPy backend traces eagerly only"
        )


def _prepare(system, context, inputs, compiler, newton_iterations, roots=None):
    """Pad the per-ray inputs to the bucket; the kernel, its arguments and the cache key.

    ``roots``: None for the graph that traces; a list for the no-grad pass
    that returns the Newton roots; a tuple of them for the gradient pass.
    """
    compiler = DEFAULT_COMPILER if compiler is None else compiler
    given_wavelength = inputs[4]
    inputs = [be.asarray(a) for a in inputs]
    iterations = newton_iterations
    if iterations is None:
        iterations = current_settings().forced_iterations or DEFAULT_NEWTON_ITERATIONS
    shape = tuple(np.broadcast_shapes(*(tuple(a.shape) for a in inputs)))
    n = math.prod(shape)
    bucket = batch_bucket(n) if be.capabilities().batch_buckets else n
    per_ray = tuple(a.ndim > 0 for a in inputs)
    views = PerRayViews(bucket)
    flat = [
        padded(a, shape, n, bucket) if varies else views(a) for a, varies in zip(inputs, per_ray)
    ]
    optic = system.optic
    viewed = {}  # one view per medium: the same object before and after means no refraction
    if not isinstance(given_wavelength, numbers.Real):
        given_wavelength = flat[4]
    indices = tuple(viewed.setdefault(id(a), views(a)) for a in system.indices(given_wavelength))
    frames = [views.frame(frame) for frame in system.frames]
    context = (context[0], views.dataclass(context[1]))
    surfaces = [views.surface(surface) for surface in optic.surfaces]
    collect = isinstance(roots, list)
    given = tuple(roots) if isinstance(roots, tuple) else ()
    newton = any(isinstance(s.geometry, NewtonRaphsonGeometry) for s in optic.surfaces)
    flagged = newton and not collect  # the unconverged rays come out, to be traced again
    arguments = (surfaces, frames, indices, context, given, flagged, *flat)
    kinds = tuple((str(a.dtype), be.device_of(a)) for a in flat)
    options = tuple(sorted(INDUCTOR_OPTIONS.items())) if compiler == "inductor" else ()
    kind = "roots" if collect else "trace"
    key = (
        kind,
        topology(optic),
        kinds,
        bucket,
        per_ray,
        compiler,
        options,
        iterations,
        bool(given),
    )
    kernel = roots_only if collect else launch_and_trace
    budget = NEWTON_MEMORY_BUDGET if newton and not given else MEMORY_BUDGET
    return _Call(kernel, arguments, key, compiler, iterations, budget, shape, n)


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


def _run(system, context, inputs, compiler, newton_iterations):
    """Call (compiling on first use) the cached graph, and cut the padding off its result."""
    roots = None
    newton = any(isinstance(s.geometry, NewtonRaphsonGeometry) for s in system.surfaces)
    # Only a tape (torch) gains: JAX's backward recomputes the forward anyway, and one
    # pass is faster there (Chebyshev variant, 1e6 rays: 1.06 s against 1.46 s).
    if TWO_PASS_NEWTON and newton and be.grad_active() and be.autodiff_kind() == "tape":
        with be.no_grad():
            call = _prepare(system, context, inputs, compiler, newton_iterations, roots=[])
            with forced_iterations(call.iterations):
                roots = tuple(_entry(call).function(*call.arguments))
        newton_iterations = 0  # the gradient graph takes the roots: no Newton step
    call = _prepare(system, context, inputs, compiler, newton_iterations, roots)
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
    unconverged = unpadded(unconverged, call.shape, call.n)
    return retrace_unconverged(system, inputs, rays, unconverged)


def explain_trace(optic, field, pupil, wavelength=None, *, newton_iterations=None):
    """TorchDynamo's capture of the compiled kernel of a compiled trace.

    Returns a :class:`optics.backend.CompileReport`; ``graph_break_count == 0``
    means the launch and every surface become one graph.  Nothing is cached.
    """
    system = prepare(optic)
    wavelength = system.optic.primary_wavelength if wavelength is None else wavelength
    batch = RayBatch(*field_parameters(system, *field), *pupil, wavelength)
    context, inputs, _ = _launch_inputs(system, batch)
    call = _prepare(system, context, inputs, "eager", newton_iterations)
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
