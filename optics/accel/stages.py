"""Stages of a compiled graph: where a long sequential graph materializes its state."""

from __future__ import annotations

from .. import backend as be


def compiled_stage(fn, state):
    """``fn(state)``; in a graph being compiled, a stage of its own where the backend gains.

    ``state`` is a tuple of arrays, and ``fn`` returns a tuple of the same
    shapes and dtypes.  XLA:CPU recomputes cheap elementwise chains inside
    every consumer, so a long sequential graph (the surfaces of a trace)
    recomputes its whole history at each step unless the steps are stages
    with materialized inputs and outputs (jax: ``lax.cond`` on a run-time
    True, its backend's optional hook ``compiled_stage``).  Backends without
    the hook (NumPy, torch: Inductor fuses without recomputation) just call
    ``fn``; values are the same either way.
    """
    arrays = [a for a in state if be.is_array(a)]
    stage = be.hook("compiled_stage", *arrays) if arrays else None
    return fn(state) if stage is None else stage(fn, state)
