"""The fields of the objects optics passes around: dataclasses and optics' own classes.

Shared by the walks over argument structures (``_jax_compile``, :mod:`optics.accel.host`).
"""

from __future__ import annotations

import copy
import dataclasses


def fields_of(obj):
    """(name, value) pairs of a dataclass instance or an optics object, else None (a leaf)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [(f.name, getattr(obj, f.name)) for f in dataclasses.fields(obj)]
    if type(obj).__module__.startswith("optics.") and hasattr(obj, "__dict__"):
        return list(vars(obj).items())
    return None


def with_fields(obj, values):
    """A copy of ``obj`` (see :func:`fields_of`) with the fields in ``values`` replaced.

    Dataclasses through ``dataclasses.replace`` (``init=False`` fields are recomputed);
    other objects shallow-copied.
    """
    if dataclasses.is_dataclass(obj):
        given = {f.name for f in dataclasses.fields(obj) if f.init}
        return dataclasses.replace(obj, **{k: v for k, v in values.items() if k in given})
    out = copy.copy(obj)
    vars(out).update(values)
    return out
