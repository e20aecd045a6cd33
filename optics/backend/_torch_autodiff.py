"""The torch backend's derivatives: gradients and Jacobians at a point, trainable leaves,
checkpointed recomputation.

Imported by the torch implementation only.
"""

from __future__ import annotations

import torch
from torch.utils.checkpoint import checkpoint


def value_and_grad(fn, arrays):
    """fn(*arrays) (a 0-d tensor) and its gradient with respect to each array."""
    leaves = [a.detach().clone().requires_grad_(True) for a in arrays]
    with torch.enable_grad():
        out = fn(*leaves)
        if not out.requires_grad:  # no array reaches the output: zero gradient
            return out.detach(), [torch.zeros_like(a) for a in leaves]
        grads = torch.autograd.grad(out, leaves, allow_unused=True)
    return out.detach(), [torch.zeros_like(a) if g is None else g for a, g in zip(leaves, grads)]


def jacobian(fn, arrays):
    """fn(*arrays) (1-D, length m) and d out_i / d array_j as a list over j of (m, *shape_j)."""
    leaves = [a.detach().clone().requires_grad_(True) for a in arrays]
    with torch.enable_grad():
        out = fn(*leaves)
        m = out.shape[0]
        rows = []
        for i in range(m):
            if out.requires_grad:
                grads = torch.autograd.grad(
                    out[i], leaves, retain_graph=i < m - 1, allow_unused=True
                )
            else:
                grads = [None] * len(leaves)
            rows.append([torch.zeros_like(a) if g is None else g for a, g in zip(leaves, grads)])
    columns = [
        torch.stack([row[j] for row in rows]) if rows else torch.zeros((0, *a.shape), dtype=a.dtype)
        for j, a in enumerate(leaves)
    ]
    return out.detach(), columns


def as_parameter(x):
    return x.detach().requires_grad_(True)


def graph_free_loop(body, state, steps, active=None):
    """``steps`` applications of ``body`` (a Python loop; the caller is under no_grad)."""
    for _ in range(steps):
        state = body(state)
    return state


def detach_all(obj):
    return obj  # no_grad() already stops recording for everything computed inside it


def recompute(fn, *arrays):
    """``fn(*arrays)``, keeping only ``arrays`` for the backward pass, which runs ``fn`` again.

    torch's non-reentrant checkpoint: gradients reach every tensor ``fn``
    uses, the arguments and those it closes over (lens parameters) alike;
    ``torch.autograd.grad`` works through it.  Without recording, or inside a
    compiled graph (which chooses what to keep itself), a plain call.
    """
    if not torch.is_grad_enabled() or torch.compiler.is_compiling():
        return fn(*arrays)
    return checkpoint(fn, *arrays, use_reentrant=False, preserve_rng_state=False)
