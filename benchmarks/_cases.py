"""The timed cases of optics, shared by compare_optiland.py and the benchmark files.

Each case is a zero-argument callable that traces the benchmark system once
(``_systems.py``), entering its backend itself.  Modes:

- ``numpy``: eager NumPy trace;
- ``torch_no_grad``: eager Torch trace under ``no_grad``;
- ``torch_fb``: eager Torch trace with the six radii requiring grad, the
  spot loss sum(x² + y²) over valid rays and its backward pass;
- ``compiled_no_grad`` / ``compiled_fb``: the same two with
  ``trace_rays(..., method="compiled")`` (the first call compiles).
"""

from __future__ import annotations

from _systems import FIELD, build, make_radii_trainable, pupil, ray_surfaces

from optics import backend as be
from optics.trace import trace_rays

MODES = ("numpy", "torch_no_grad", "torch_fb", "compiled_no_grad", "compiled_fb")


def spot_loss(rays):
    """sum(x² + y²) over the valid rays (the loss of every forward+backward case)."""
    return be.sum(be.where(rays.valid, rays.x * rays.x + rays.y * rays.y, 0.0))


def trace_case(system, n, mode):
    """(work in ray·surfaces, callable) of one case."""
    backend = "numpy" if mode == "numpy" else "torch"
    compiled = mode.startswith("compiled")
    with be.using(backend, precision="float64", device="cpu"):
        optic = build(system)
        px, py = (be.asarray(a) for a in pupil(n))
        if mode.endswith("fb"):
            make_radii_trainable(optic)

    def run():
        with be.using(backend, precision="float64", device="cpu"):
            if mode.endswith("fb"):
                spot_loss(
                    trace_rays(optic, FIELD, (px, py), method="compiled" if compiled else None)
                ).backward()
            else:
                with be.no_grad():
                    trace_rays(optic, FIELD, (px, py), method="compiled" if compiled else None)

    return ray_surfaces(optic, n), run


def saved_bytes(system, n, compiled=False):
    """(packed, distinct) bytes autograd saves per ray·surface in the ``torch_fb`` trace.

    ``packed`` counts every tensor each time a node saves it; ``distinct``
    counts each storage once (the memory the graph keeps alive).
    """
    import torch

    with be.using("torch", precision="float64", device="cpu"):
        optic = build(system)
        px, py = (be.asarray(a) for a in pupil(n))
        make_radii_trainable(optic)
        packed, storages = [], {}

        def pack(tensor):
            storage = tensor.untyped_storage()
            packed.append(tensor.numel() * tensor.element_size())
            storages[storage.data_ptr()] = storage.nbytes()
            return tensor

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
            loss = spot_loss(
                trace_rays(optic, FIELD, (px, py), method="compiled" if compiled else None)
            )
        loss.backward()
    work = ray_surfaces(optic, n)
    return sum(packed) / work, sum(storages.values()) / work
