"""jax.jit behind the backend-neutral compile names (the jax backend's companion).

``jax.jit`` takes arrays and pytrees; optics passes surfaces, frames and rays,
plain objects holding arrays.  :func:`compile_function` splits such arguments
into their arrays (the jitted inputs) and a hashable skeleton (the cache key:
structure, Python numbers by value, other values by identity), and rebuilds
the objects inside the graph; the result is split and rebuilt the same way.
"""

from __future__ import annotations

import copy
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from ._compile import CompileReport


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
        fields = _fields(obj)
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


def _fields(obj):
    """(name, value) pairs of a dataclass or a plain object, else None (kept as it is)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [(f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj)]
    if type(obj).__module__.startswith("optics.") and hasattr(obj, "__dict__"):
        return list(vars(obj).items())
    return None


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
    values = {k: _rebuild(s, leaves, opaque, objects) for k, s in skeleton[3]}
    if dataclasses.is_dataclass(obj):
        return dataclasses.replace(obj, **{k: v for k, v in values.items() if _init(obj, k)})
    out = copy.copy(obj)
    vars(out).update(values)
    return out


def _init(obj, name):
    return next(f.init for f in dataclasses.fields(obj) if f.name == name)


def compile_function(fn, **_options):
    """``fn`` under ``jax.jit``; its arguments and result may be optics objects holding arrays.

    Arrays inside the arguments are the jitted function's inputs; Python
    numbers and the structure are static (part of the cache key, compiled in
    as constants, as on the torch path).  One jitted function per structure.
    """
    cache = {}

    def call(*args):
        splitter = _Splitter()
        key = splitter.skeleton(args)
        entry = cache.get(key)
        if entry is None:
            out_skeleton = {}

            def flat(*leaves):
                result = fn(*_rebuild(key, leaves, splitter.opaque, splitter.objects))
                out = _Splitter()
                out_skeleton["key"] = (out.skeleton(result), out.opaque, out.objects)
                return out.leaves

            entry = cache[key] = (jax.jit(flat), out_skeleton)
        jitted, out_skeleton = entry
        leaves = jitted(*[jnp.asarray(leaf) for leaf in splitter.leaves])
        skeleton, opaque, objects = out_skeleton["key"]
        return _rebuild(skeleton, leaves, opaque, objects)

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
