"""One XLA loop over cache-sized chunks of rows, with its own reverse derivative (jax backend).

A chunk that divides the rows is ``lax.map`` (its stack is the rows in
order); otherwise the last chunk ends at the last row, overlapping the one
before, and a ``fori_loop`` writes each chunk in place (no padding or cutting,
which would copy every array; overlapped rows count once backwards).  The
backward loop recomputes each chunk and runs its VJP at once, all in cache.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def chunk_loop(body, rows, chunk):
    """``loop(row_inputs, shared)``: ``body`` over every ``chunk`` rows, differentiable.

    ``body(row_chunks, shared)`` returns per-row arrays (first axis ``chunk``,
    row i depending only on row i of ``row_chunks``) and shared ones (the
    last chunk's is returned).  Every array of ``row_inputs`` has ``rows``
    rows, at least ``chunk``.
    """
    count = -(-rows // chunk)
    stacked = rows % chunk == 0

    def start(i):
        return jnp.minimum(i * chunk, rows - chunk)

    def layout(row_inputs, shared):
        shapes = jax.eval_shape(body, [_chunk_shape(a, chunk) for a in row_inputs], shared)
        return shapes, [s.ndim > 0 and s.shape[0] == chunk for s in shapes]

    def one_chunk(i, row_inputs, shared):
        return body([jax.lax.dynamic_slice_in_dim(a, start(i), chunk) for a in row_inputs], shared)

    def forward(row_inputs, shared):
        shapes, out_rowed = layout(row_inputs, shared)
        if stacked:
            outs = jax.lax.map(lambda i: one_chunk(i, row_inputs, shared), jnp.arange(count))
            return [_unstacked(o, rows) if r else o[-1] for o, r in zip(outs, out_rowed)]

        def step(i, buffers):
            outs = one_chunk(i, row_inputs, shared)
            return [
                jax.lax.dynamic_update_slice_in_dim(b, o, start(i), 0) if r else o
                for b, o, r in zip(buffers, outs, out_rowed)
            ]

        empty = [
            jnp.zeros((rows,) + x.shape[1:] if r else x.shape, x.dtype)
            for x, r in zip(shapes, out_rowed)
        ]
        return jax.lax.fori_loop(0, count, step, empty)

    def chunk_vjp(i, row_inputs, shared, cotangents, shapes, out_rowed):
        """(row input cotangents, shared input cotangents) of chunk i's share of the outputs."""
        s = start(i)
        owned = jnp.arange(chunk) >= i * chunk - s  # rows of the chunk before count there
        given = []
        for c, x, r in zip(cotangents, shapes, out_rowed):
            if not inexact(x):
                given.append(float0_like(x))
            elif r:
                piece = jax.lax.dynamic_slice_in_dim(c, s, chunk)
                given.append(jnp.where(owned.reshape((chunk,) + (1,) * (c.ndim - 1)), piece, 0))
            else:
                given.append(jnp.where(i == count - 1, c, jnp.zeros_like(c)))
        mine = [jax.lax.dynamic_slice_in_dim(a, s, chunk) for a in row_inputs]
        return jax.vjp(body, mine, shared)[1](given)

    @jax.custom_vjp
    def loop(row_inputs, shared):
        return forward(row_inputs, shared)

    def loop_forward(row_inputs, shared):
        return forward(row_inputs, shared), (row_inputs, shared)

    def loop_backward(saved, cotangents):
        row_inputs, shared = saved
        shapes, out_rowed = layout(row_inputs, shared)
        fixed = (row_inputs, shared, cotangents, shapes, out_rowed)
        rows_d = [inexact(a) for a in row_inputs]
        shared_d = [inexact(a) for a in shared]
        if stacked:
            row_ct, shared_ct = jax.lax.map(lambda i: chunk_vjp(i, *fixed), jnp.arange(count))
            row_grads = [_unstacked(g, rows) if d else None for g, d in zip(row_ct, rows_d)]
            shared_grads = [jnp.sum(g, axis=0) if d else None for g, d in zip(shared_ct, shared_d)]
        else:

            def step(i, grads):
                row_grads, shared_grads = grads
                row_ct, shared_ct = chunk_vjp(i, *fixed)
                s = start(i)
                row_grads = [
                    _added(g, ct, s, chunk) if d else g
                    for g, ct, d in zip(row_grads, row_ct, rows_d)
                ]
                shared_grads = [
                    g + ct if d else g for g, ct, d in zip(shared_grads, shared_ct, shared_d)
                ]
                return row_grads, shared_grads

            zeros = (
                [jnp.zeros_like(a) if d else a for a, d in zip(row_inputs, rows_d)],
                [jnp.zeros_like(a) if d else a for a, d in zip(shared, shared_d)],
            )
            row_grads, shared_grads = jax.lax.fori_loop(0, count, step, zeros)
        return (
            [g if d else float0_like(a) for g, a, d in zip(row_grads, row_inputs, rows_d)],
            [g if d else float0_like(a) for g, a, d in zip(shared_grads, shared, shared_d)],
        )

    loop.defvjp(loop_forward, loop_backward)
    return loop


def _unstacked(stack, rows):  # (count, chunk, ...) -> (rows, ...), free
    return jnp.reshape(stack, (rows,) + stack.shape[2:])


def _added(total, piece, start, chunk):
    return jax.lax.dynamic_update_slice_in_dim(
        total, jax.lax.dynamic_slice_in_dim(total, start, chunk) + piece, start, 0
    )


def inexact(x):
    return jnp.issubdtype(x.dtype, jnp.inexact)


def float0_like(x):
    """The cotangent of an integer or boolean value (JAX's float0 zeros)."""
    return np.zeros(jnp.shape(x), jax.dtypes.float0)


def _chunk_shape(array, chunk):
    return jax.ShapeDtypeStruct((chunk,) + array.shape[1:], array.dtype)
