"""jax.jit behind the backend-neutral compile names (the jax backend's companion).

``jax.jit`` takes arrays and pytrees; optics passes surfaces, frames and rays,
plain objects holding arrays.  :class:`_Flat` splits such a structure into its
arrays (the jitted inputs) and a hashable skeleton (the cache key), and
rebuilds it inside the graph.  :func:`in_row_chunks` and :func:`compiled_stage`
shape the XLA program (docs/performance.md, "The jitted JAX trace").
"""

from __future__ import annotations

import contextvars

import jax
import jax.numpy as jnp
import numpy as np

from . import _jax_chunks
from ._compile_report import CompileReport
from ._jax_chunks import float0_like as _float0_like
from ._jax_chunks import inexact as _inexact
from ._structure import fields_of, with_fields

#: The run-time True that :func:`compiled_stage` branches on, while a graph is traced.
_STAGE_GATE = contextvars.ContextVar("optics_jax_stage_gate", default=None)
_TRUE = np.bool_(True)


def mark_trace_constant(fn):
    """Nothing to mark: JAX runs all Python once while tracing, so reads are baked in anyway."""


def reset_compiled():
    jax.clear_caches()


class _Flat:
    """A structure of lists, tuples, dicts and objects split into ``leaves`` and ``key``.

    ``key`` is hashable: the structure, Python numbers by value, objects by
    type, other values by identity.  The same array in two places is one leaf,
    so identity tests (``after is before``) still hold inside the graph.
    """

    def __init__(self, obj):
        self.leaves, self._slots, self._opaque, self._objects = [], {}, {}, []
        self.key = self._skeleton(obj)

    def _skeleton(self, obj):
        if isinstance(obj, (jax.Array, np.ndarray)):
            if id(obj) not in self._slots:
                self._slots[id(obj)] = len(self.leaves)
                self.leaves.append(obj)
            return ("leaf", self._slots[id(obj)])
        if obj is None or isinstance(obj, (bool, int, float, complex, str)):
            return ("value", type(obj), obj)
        if type(obj) in (list, tuple):
            return (type(obj), tuple(self._skeleton(o) for o in obj))
        if type(obj) is dict:
            return (dict, tuple((k, self._skeleton(v)) for k, v in obj.items()))
        fields = fields_of(obj)
        if fields is None:
            self._opaque[id(obj)] = obj
            return ("opaque", id(obj))
        # Keyed by type (a fresh frame per call is the same graph); rebuilt from this call's.
        self._objects.append(obj)
        index = len(self._objects) - 1
        return ("object", type(obj), index, tuple((k, self._skeleton(v)) for k, v in fields))

    def rebuild(self, leaves, skeleton=None):
        """The structure with ``leaves`` in its slots (objects shallow-copied)."""
        kind, *rest = self.key if skeleton is None else skeleton
        if kind == "leaf":
            return leaves[rest[0]]
        if kind == "value":
            return rest[1]
        if kind in (list, tuple):
            return kind(self.rebuild(leaves, s) for s in rest[0])
        if kind is dict:
            return {k: self.rebuild(leaves, s) for k, s in rest[0]}
        if kind == "opaque":
            return self._opaque[rest[0]]
        fields = {k: self.rebuild(leaves, s) for k, s in rest[2]}
        return with_fields(self._objects[rest[1]], fields)


def compile_function(fn, rows=None, chunk_rows=None, runner=None, **_options):
    """``fn`` under ``jax.jit``; its arguments and result may be optics objects holding arrays.

    One jitted program per argument structure.  With ``rows`` (the promise of
    ``be.compile_function(rows=)``) it runs over chunks of ``chunk_rows`` rows
    (None: one chunk) and ``runner`` (``optics.accel.RowParts``; None: the
    whole call) runs each call.  Other backend options are ignored.
    """
    cache = {}

    def call(*args):
        flat = _Flat(args)
        program = cache.get(flat.key)
        if program is None:
            program = cache[flat.key] = _Program(fn, flat, rows, chunk_rows, runner)
        leaves = program.call(_TRUE, *[jnp.asarray(leaf) for leaf in flat.leaves])
        return program.result.rebuild(leaves)

    return call


class _WholeCall:
    """The runner of a call that is not cut into parts."""

    @staticmethod
    def forward(program_for, leaves, rows):
        return program_for(rows)[0](*leaves)

    @staticmethod
    def backward(program_for, leaves, cotangents, rows):
        return program_for(rows)[0](leaves, cotangents)


class _Program:
    """The jitted programs of one argument structure, per part length, and their VJP.

    The reverse derivative saves only the inputs: the backward program
    recomputes the forward chunk by chunk in cache and runs its VJP right after
    (left to itself, ``jax.grad`` of a jitted function writes every
    intermediate the backward needs).  ``jax.jvp`` is not available through it.
    """

    def __init__(self, fn, flat, rows, chunk_rows, runner):
        self.fn, self.flat, self.rows, self.chunk_rows = fn, flat, rows, chunk_rows
        self.runner = _WholeCall if runner is None or rows is None else runner
        self.result = None  # the _Flat of the result, set when a program is traced
        self._jitted, self._ran = {}, set()

        def primal(gate, leaves):
            return self.runner.forward(self._program_for(0, gate), list(leaves), rows)

        @jax.custom_vjp
        def call(gate, *leaves):
            return primal(gate, leaves)

        def reverse(saved, cotangents):
            gate, leaves = saved
            floats = [c for c in cotangents if _inexact(c)]
            return (None, *self.runner.backward(self._program_for(1, gate), leaves, floats, rows))

        call.defvjp(lambda gate, *leaves: (primal(gate, leaves), (gate, list(leaves))), reverse)
        self.call = call

    def _program_for(self, which, gate):
        """The runner's ``program_for(size)``: (program ``which`` for ``size`` rows, has it run)."""

        def program_for(size):
            if size not in self._jitted:
                chunked = self.rows is not None and self.chunk_rows is not None
                fn = in_row_chunks(self.fn, size, self.chunk_rows) if chunked else self.fn
                flat = self._leaves_of(fn)
                self._jitted[size] = (jax.jit(flat), jax.jit(_backward_of(flat)))
            program, ran = self._jitted[size][which], (size, which) in self._ran
            self._ran.add((size, which))
            return (lambda *inputs: program(gate, *inputs)), ran

        return program_for

    def _leaves_of(self, fn):
        def leaves_of(gate, *leaves):
            result, self.result = _gated(fn, self.flat, leaves, gate)
            return result

        return leaves_of


def _backward_of(flat):
    """The backward program of ``flat``: its forward recomputed, then the VJP of the floats."""

    def backward(gate, leaves, cotangents):
        floats = [i for i, a in enumerate(leaves) if _inexact(a)]

        def of_floats(*values):
            full = list(leaves)
            for i, value in zip(floats, values):
                full[i] = value
            return flat(gate, *full)

        outs, vjp = jax.vjp(of_floats, *[leaves[i] for i in floats])
        given = iter(cotangents)
        full = [next(given) if _inexact(o) else _float0_like(o) for o in outs]
        grads = dict(zip(floats, vjp(full)))
        return [grads.get(i) for i in range(len(leaves))]

    return backward


def compiled_stage(fn, state):
    """``fn(state)`` as a stage of its own in the graph being compiled (else just the call).

    ``state`` is a tuple of arrays and ``fn`` returns one of the same shapes and
    dtypes.  The stage is ``lax.cond(gate, fn, identity)`` on a jitted input
    that is True at every call: XLA cannot fold it, so the stage's inputs and
    outputs are materialized and XLA:CPU, which fuses cheap producers into
    every consumer, does not recompute the stages before it inside it.
    """
    gate = _STAGE_GATE.get()
    if gate is None:
        return fn(state)

    def run(values):
        return tuple(jnp.asarray(o).astype(v.dtype) for o, v in zip(fn(values), values))

    return jax.lax.cond(gate, run, lambda values: values, tuple(jnp.asarray(a) for a in state))


def _gated(fn, flat, leaves, gate):
    """``fn`` on ``flat`` rebuilt from ``leaves``, stages gated by ``gate``: (result leaves,
    the result's _Flat)."""
    token = _STAGE_GATE.set(gate)
    try:
        result = _Flat(fn(*flat.rebuild(leaves)))
    finally:
        _STAGE_GATE.reset(token)
    leaves, result.leaves = result.leaves, []  # keep no traced values beyond the trace
    return leaves, result


def in_row_chunks(fn, rows, chunk_rows):
    """``fn`` run over chunks of ``chunk_rows`` rows in one XLA loop (:mod:`._jax_chunks`).

    ``fn`` must be row-independent along the leading axis of every array of
    length ``rows`` in its arguments (optics objects included); other arrays
    are shared by every chunk, and results that are not ``rows`` long must not
    depend on the chunk.  Fewer than two chunks of rows run as they are.
    """

    def call(*args):
        flat = _Flat(args)
        leaves = [jnp.asarray(a) for a in flat.leaves]
        rowed = [a.ndim > 0 and a.shape[0] == rows for a in leaves]
        if rows < 2 * chunk_rows or not any(rowed):
            return fn(*args)
        gate, result = _STAGE_GATE.get(), []

        def body(row_parts, shared):
            row_parts, shared = iter(row_parts), iter(shared)
            mine = [next(row_parts) if r else next(shared) for r in rowed]
            outs, out_flat = _gated(fn, flat, mine, None if gate is None else next(shared))
            result[:] = [out_flat]
            return [jnp.asarray(o) for o in outs]

        shared = [a for a, r in zip(leaves, rowed) if not r] + (
            [] if gate is None else [jnp.asarray(gate)]
        )
        loop = _jax_chunks.chunk_loop(body, rows, chunk_rows)
        joined = loop([a for a, r in zip(leaves, rowed) if r], shared)
        return result[0].rebuild(joined)

    return call


def explain_compile(fn, *args, **kwargs):
    """One graph always (jit has no breaks); ``op_count`` counts the jaxpr's equations."""
    flat = _Flat((args, kwargs))

    def leaves_of(*leaves):
        a, k = flat.rebuild(leaves)
        return _Flat(fn(*a, **k)).leaves

    jaxpr = jax.make_jaxpr(leaves_of)(*[jnp.asarray(leaf) for leaf in flat.leaves])
    return CompileReport(graph_count=1, graph_break_count=0, op_count=len(jaxpr.eqns))


def detach_all(obj):
    """``obj`` with every array inside it passed through ``stop_gradient`` (objects copied)."""
    flat = _Flat(obj)
    return flat.rebuild([jax.lax.stop_gradient(leaf) for leaf in flat.leaves])
