"""Torch's in-place fused forms of ``accel.accumulate`` and ``accel.add_product``.

Outside autograd and compiled graphs they write into an existing buffer or use
one fused kernel; inside either they fall back to the plain expression.
"""

from __future__ import annotations

import builtins

import torch


def accumulate(total, term, weight):
    """``total + weight * term`` in place outside autograd and compiled graphs."""
    in_graph = torch.is_grad_enabled() and (
        total.requires_grad
        or getattr(term, "requires_grad", False)
        or getattr(weight, "requires_grad", False)
    )
    if (
        in_graph
        or torch.compiler.is_compiling()
        or not isinstance(term, torch.Tensor)
        or term.shape != total.shape
        or term.dtype != total.dtype
        or not total.is_floating_point()
    ):
        return total + weight * term
    if isinstance(weight, (int, float)):
        return total.add_(term, alpha=weight) if weight != 1 else total.add_(term)
    return total.add_(term * weight)


def add_product(a, t, b):
    """``a + t * b``: one fused ``addcmul`` outside autograd and compiled graphs."""
    tensors = [v for v in (a, t, b) if isinstance(v, torch.Tensor)]
    if (
        torch.compiler.is_compiling()
        or (torch.is_grad_enabled() and builtins.any(v.requires_grad for v in tensors))
        or not isinstance(a, torch.Tensor)
        or len({v.dtype for v in tensors}) != 1
        or len({v.device for v in tensors}) != 1
    ):
        return a + t * b
    if not isinstance(t, torch.Tensor):
        return torch.add(a, b, alpha=t) if isinstance(b, torch.Tensor) else a + t * b
    if not isinstance(b, torch.Tensor):
        return torch.add(a, t, alpha=b)
    return torch.addcmul(a, t, b)
