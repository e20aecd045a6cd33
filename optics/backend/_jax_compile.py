"""jax.jit behind the backend-neutral compile names (the jax backend's companion).

``jax.jit`` takes arrays and pytrees; optics passes surfaces, frames and rays,
plain objects holding arrays.  :func:`compile_function` splits such arguments
into their arrays (the jitted inputs) and a hashable skeleton (the cache key:
structure, Python numbers by value, other values by identity), and rebuilds
the objects inside the graph; the result is split and rebuilt the same way.

Two helpers shape the XLA program (docs/performance.md, "The jitted JAX trace"):

- :func:`in_row_chunks` runs a row-independent function over cache-sized
  chunks of rows (``lax.map``), so the temporaries of one chunk stay in the
  CPU caches instead of streaming whole ray arrays through memory;
- :func:`compiled_stage` makes one step (a surface) a stage of its own
  (``lax.cond`` on a predicate that is true at run time but unknown to XLA):
  XLA:CPU fuses cheap elementwise producers into *every* consumer, so
  without stages each surface recomputes the whole trace before it.
"""

from __future__ import annotations

import contextvars

import jax
import jax.numpy as jnp
import numpy as np

from . import _jax_chunks, _jax_parts
from ._compile_report import CompileReport
from ._structure import fields_of, with_fields

#: The run-time True that :func:`compiled_stage` branches on, while a graph is traced.
_STAGE_GATE = contextvars.ContextVar("optics_jax_stage_gate", default=None)


def mark_trace_constant(fn):
    """Nothing to mark: JAX runs all Python once while tracing, so reads are baked in anyway."""


def reset_compiled():
    jax.clear_caches()


class _Splitter:
    """Arrays out of a structure of lists, tuples, dicts, dataclasses and plain objects.

    ``skeleton`` is hashable (the cache key): the structure, Python numbers by
    value, every other value by identity.  Arrays (NumPy or JAX) become
    numbered slots; the same array object in two places is one slot, so
    identity tests (``after is before``) still hold inside the graph.
    """

    def __init__(self):
        self.leaves, self._slots, self.opaque, self.objects = [], {}, {}, []

    def skeleton(self, obj):
        if isinstance(obj, (jax.Array, np.ndarray)):
            slot = self._slots.get(id(obj))
            if slot is None:
                slot = self._slots[id(obj)] = len(self.leaves)
                self.leaves.append(obj)
            return ("leaf", slot)
        if obj is None or isinstance(obj, (bool, int, float, complex, str)):
            return ("value", type(obj), obj)
        if type(obj) in (list, tuple):
            return (type(obj), tuple(self.skeleton(o) for o in obj))
        if type(obj) is dict:
            return (dict, tuple((k, self.skeleton(v)) for k, v in obj.items()))
        fields = fields_of(obj)
        if fields is None:
            self.opaque[id(obj)] = obj
            return ("opaque", id(obj))
        # Walked objects are keyed by type (a fresh frame per call is still the same
        # graph); the rebuild finds the object of this call by its position.
        self.objects.append(obj)
        return (
            "object",
            type(obj),
            len(self.objects) - 1,
            tuple((k, self.skeleton(v)) for k, v in fields),
        )


def _rebuild(skeleton, leaves, opaque, objects=None):
    """The structure of ``skeleton`` with ``leaves`` in its slots (objects shallow-copied)."""
    kind = skeleton[0]
    if kind == "leaf":
        return leaves[skeleton[1]]
    if kind == "value":
        return skeleton[2]
    if kind in (list, tuple):
        return kind(_rebuild(s, leaves, opaque, objects) for s in skeleton[1])
    if kind is dict:
        return {k: _rebuild(s, leaves, opaque, objects) for k, s in skeleton[1]}
    if kind == "opaque":
        return opaque[skeleton[1]]
    obj = objects[skeleton[2]]
    return with_fields(obj, {k: _rebuild(s, leaves, opaque, objects) for k, s in skeleton[3]})


def compile_function(fn, rows=None, chunk_rows=None, part_rows=None, **_options):
    """``fn`` under ``jax.jit``; its arguments and result may be optics objects holding arrays.

    Arrays inside the arguments are the jitted function's inputs; Python
    numbers and the structure are static (part of the cache key, compiled in
    as constants, as on the torch path).  One jitted function per structure.

    With ``rows`` (the promise of ``be.compile_function(rows=)``), the program
    runs over chunks of ``chunk_rows`` rows (:func:`in_row_chunks`; None: one
    chunk), and a call on concrete CPU arrays is cut into one part per core,
    each at least ``part_rows`` rows, run side by side (:mod:`._jax_parts`;
    None: one part).  The sizes are the caller's choice (the compiled trace
    method's, tuned by measurement); other backend options are ignored.
    """
    sizes = (rows, chunk_rows, part_rows)
    cache = {}

    def call(*args):
        splitter = _Splitter()
        key = splitter.skeleton(args)
        entry = cache.get(key)
        if entry is None:
            entry = cache[key] = _Program(fn, sizes, key, splitter)
        leaves = entry.call(_TRUE, *[jnp.asarray(leaf) for leaf in splitter.leaves])
        skeleton, opaque, objects = entry.out_skeleton["key"]
        return _rebuild(skeleton, leaves, opaque, objects)

    return call


_TRUE = np.bool_(True)


class _Program:
    """The jitted programs of one argument structure, per part length, and their VJP.

    ``call(gate, *leaves)`` runs the primal program; its reverse derivative
    saves only the inputs, and the backward program recomputes the forward
    pass chunk by chunk in cache and runs the backward right after it (as
    torch's compiled trace does with its memory budget 0).  Left to itself,
    ``jax.grad`` of a jitted function would split it into a forward program
    that writes every intermediate the backward needs (dozens of ray-sized
    arrays per surface) and a backward that reads them.  Forward-mode
    derivatives (``jax.jvp``) are not available through it.
    """

    def __init__(self, fn, sizes, key, splitter):
        self.fn, self.key, self.splitter = fn, key, splitter
        self.rows, self.chunk_rows, self.part_rows = sizes
        self.out_skeleton = {}
        self._jitted = {}
        self._compiled = set()  # (part length, 0 primal / 1 backward) that have run
        self.call = self._differentiable()

    def programs(self, size):
        """(primal, backward) jitted for parts of ``size`` rows (the whole call when unsplit)."""
        programs = self._jitted.get(size)
        if programs is None:
            chunked = self.rows is not None and self.chunk_rows is not None
            fn = in_row_chunks(self.fn, size, self.chunk_rows) if chunked else self.fn
            flat = self._flat(fn)
            programs = self._jitted[size] = (jax.jit(flat), jax.jit(_backward_of(flat)))
        return programs

    def _flat(self, fn):
        key, splitter, out_skeleton = self.key, self.splitter, self.out_skeleton

        def flat(gate, *leaves):
            return _gated_leaves(fn, key, splitter, leaves, gate, out_skeleton)

        return flat

    def _run_each(self, parts, which, task, inputs):
        """The parts' calls; the first call of a program (it compiles) one part after another."""
        key = (parts.size, which)
        outs = _jax_parts.run_each(parts, task, inputs, serial=key not in self._compiled)
        self._compiled.add(key)
        return outs

    def _differentiable(self):
        def primal(gate, leaves):
            parts = _jax_parts.plan(self.rows, leaves, self.part_rows)
            program = self.programs(parts.size)[0]
            inputs = _jax_parts.split(parts, leaves)
            outs = self._run_each(parts, 0, lambda mine: program(gate, *mine), inputs)
            return _jax_parts.join(parts, outs)

        def backward(gate, leaves, cotangents):
            parts = _jax_parts.plan(self.rows, leaves, self.part_rows)
            program = self.programs(parts.size)[1]
            inputs = list(
                zip(
                    _jax_parts.split(parts, leaves),
                    _jax_parts.cotangents_per_part(parts, cotangents),
                )
            )
            grads = self._run_each(parts, 1, lambda mine: program(gate, *mine), inputs)
            return _jax_parts.gradients_joined(parts, grads, leaves)

        @jax.custom_vjp
        def call(gate, *leaves):
            return primal(gate, leaves)

        def forward(gate, *leaves):
            return primal(gate, leaves), (gate, leaves)

        def reverse(saved, cotangents):
            gate, leaves = saved
            floats = [c for c in cotangents if jnp.issubdtype(c.dtype, jnp.inexact)]
            return (None, *backward(gate, leaves, floats))

        call.defvjp(forward, reverse)
        return call


def _backward_of(flat):
    """The backward program of ``flat``: its forward recomputed, then the VJP of the floats."""

    def backward(gate, leaves, cotangents):
        floats = [i for i, a in enumerate(leaves) if jnp.issubdtype(a.dtype, jnp.inexact)]

        def of_floats(*values):
            full = list(leaves)
            for i, value in zip(floats, values):
                full[i] = value
            return flat(gate, *full)

        outs, vjp = jax.vjp(of_floats, *[leaves[i] for i in floats])
        given = iter(cotangents)
        full = [
            next(given) if jnp.issubdtype(o.dtype, jnp.inexact) else _zero_cotangent(o)
            for o in outs
        ]
        grads = dict(zip(floats, vjp(full)))
        return [grads.get(i) for i in range(len(leaves))]

    return backward


def _zero_cotangent(out):
    """The cotangent of an integer or boolean output (JAX's float0 zeros)."""
    return np.zeros(out.shape, dtype=jax.dtypes.float0)


def compiled_stage(fn, state):
    """``fn(state)`` as a stage of its own in the graph being compiled (else just the call).

    ``state`` is a tuple of arrays and ``fn`` returns one of the same shapes and
    dtypes.  The stage is ``lax.cond(gate, fn, identity)`` on a gate that is an
    input of the jitted function (True at every call): XLA cannot fold it, so
    the stage's inputs and outputs are materialized and nothing before them is
    recomputed inside it.  Derivatives and ``vmap`` pass through ``cond``.
    """
    gate = _STAGE_GATE.get()
    if gate is None:
        return fn(state)
    state = tuple(jnp.asarray(a) for a in state)

    def run(values):
        out = fn(values)
        return tuple(jnp.asarray(o).astype(v.dtype) for o, v in zip(out, values))

    return jax.lax.cond(gate, run, lambda values: values, state)


def _gated_leaves(fn, key, splitter, leaves, gate, out_skeleton):
    """``fn`` on the arguments rebuilt from ``leaves``, stages gated by ``gate``; its result's
    arrays (the structure goes into ``out_skeleton["key"]``)."""
    token = _STAGE_GATE.set(gate)
    try:
        result = fn(*_rebuild(key, leaves, splitter.opaque, splitter.objects))
    finally:
        _STAGE_GATE.reset(token)
    out = _Splitter()
    out_skeleton["key"] = (out.skeleton(result), out.opaque, out.objects)
    return out.leaves


def in_row_chunks(fn, rows, chunk_rows):
    """``fn`` run over chunks of ``chunk_rows`` rows in one XLA loop, results written in place.

    ``fn`` must be row-independent along the leading axis of every array of
    length ``rows`` in its arguments (optics objects included): row i of each
    such output depends only on row i of such inputs; other arrays are shared
    by every chunk, and outputs that are not ``rows`` long must not depend on
    the chunk (the last chunk's is returned).  Any ``rows`` of at least two
    chunks works (see :mod:`._jax_chunks`); fewer rows run as they are.
    The reverse derivative recomputes each chunk in cache (:mod:`._jax_chunks`).
    """

    def call(*args):
        splitter = _Splitter()
        key = splitter.skeleton(args)
        leaves = [jnp.asarray(a) for a in splitter.leaves]
        rowed = [a.ndim > 0 and a.shape[0] == rows for a in leaves]
        if rows < 2 * chunk_rows or not any(rowed):
            return fn(*args)
        gate = _STAGE_GATE.get()
        out_skeleton = {}

        def body(row_parts, shared):
            row_parts, shared = iter(row_parts), iter(shared)
            mine = [next(row_parts) if r else next(shared) for r in rowed]
            chunk_gate = next(shared) if gate is not None else None
            outs = _gated_leaves(fn, key, splitter, mine, chunk_gate, out_skeleton)
            return [jnp.asarray(o) for o in outs]

        shared = [a for a, r in zip(leaves, rowed) if not r]
        shared += [] if gate is None else [jnp.asarray(gate)]
        loop = _jax_chunks.chunk_loop(body, rows, chunk_rows)
        joined = loop([a for a, r in zip(leaves, rowed) if r], shared)
        skeleton, opaque, objects = out_skeleton["key"]
        return _rebuild(skeleton, joined, opaque, objects)

    return call


def explain_compile(fn, *args, **kwargs):
    """One graph always (jit has no breaks); ``op_count`` counts the jaxpr's equations."""
    splitter = _Splitter()
    key = splitter.skeleton((args, kwargs))

    def flat(*leaves):
        a, k = _rebuild(key, leaves, splitter.opaque, splitter.objects)
        out = _Splitter()
        out.skeleton(fn(*a, **k))
        return out.leaves

    jaxpr = jax.make_jaxpr(flat)(*[jnp.asarray(leaf) for leaf in splitter.leaves])
    return CompileReport(graph_count=1, graph_break_count=0, op_count=len(jaxpr.eqns))


def detach_all(obj):
    """``obj`` with every array inside it passed through ``stop_gradient`` (objects copied)."""
    splitter = _Splitter()
    skeleton = splitter.skeleton(obj)
    leaves = [jax.lax.stop_gradient(leaf) for leaf in splitter.leaves]
    return _rebuild(skeleton, leaves, splitter.opaque, splitter.objects)
