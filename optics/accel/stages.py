"""Stages of a compiled graph: where a long sequential graph materializes its state."""

from __future__ import annotations

from .. import backend as be


def compiled_stage(fn, state):
    """``fn(state)``; in a graph being compiled, a stage of its own where the backend gains.

    ``state`` is a tuple of arrays and ``fn`` returns one of the same shapes and dtypes.
    XLA:CPU recomputes elementwise chains in every consumer, so without stages (jax's hook
    ``compiled_stage``) each surface recomputes all earlier ones; values are the same.
    """
    arrays = [a for a in state if be.is_array(a)]
    return be.hook("compiled_stage", *arrays)(fn, state) if arrays else fn(state)
