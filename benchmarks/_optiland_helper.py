"""Optiland side of benchmarks/compare_optiland.py; runs under Optiland's interpreter.

It never imports optics.  The driver starts it once with
``python _optiland_helper.py`` and talks to it one JSON object per line:

- the first line is the prescription ``{"systems": {name: spec}}`` (see
  ``prescription`` in _optiland_driver.py); the reply is ``{"ready": version}``;
- then each request ``{"case": ..., "system": ..., "n": ...}`` runs that case
  once and replies ``{"seconds": s}`` (or ``{"bytes": b}`` for
  ``saved_bytes``, ``{"x": [...], "y": [...]}`` for ``image_xy``).

Cases: ``numpy`` (trace, NumPy backend), ``torch_nograd`` (trace, Torch
float64, no gradients), ``torch_fb`` (Torch with Optiland's grad mode, the
spot loss and its backward pass), ``saved_bytes`` (bytes of the distinct
tensors autograd saves in ``torch_fb``), ``image_xy`` (image coordinates of
the first rays, to check both programs trace the same system).  Only
Optiland's public API is used.
"""

from __future__ import annotations

import time

import numpy as np
from _optiland_common import build, configure, serve

_LENSES: dict = {}
_PUPILS: dict = {}


def _lens(system, backend, grad):
    key = (system, backend, grad)
    if key not in _LENSES:
        configure(backend, grad)
        _LENSES[key] = build(SPECS[system])
    configure(backend, grad)
    return _LENSES[key]


def _pupil(n, backend):
    key = (n, backend)
    if key not in _PUPILS:
        rng = np.random.default_rng(1)
        radius, angle = np.sqrt(rng.random(n)), 2 * np.pi * rng.random(n)
        px, py = radius * np.cos(angle), radius * np.sin(angle)
        if backend == "torch":
            import torch

            px, py = torch.from_numpy(px), torch.from_numpy(py)
        _PUPILS[key] = (px, py)
    return _PUPILS[key]


def _trace(system, n, backend, grad):
    lens = _lens(system, backend, grad)
    px, py = _pupil(n, backend)
    return lens.trace_generic(FIELD[0], FIELD[1], px, py, PRIMARY)


def _spot_loss(rays):
    import torch

    return torch.sum(torch.where(rays.i > 0, rays.x * rays.x + rays.y * rays.y, 0.0))


def run(request):
    """One case, once; the reply as a dict."""
    case, system, n = request["case"], request["system"], request["n"]
    if case == "image_xy":
        rays = _trace(system, n, "numpy", False)
        return {"x": np.asarray(rays.x).tolist(), "y": np.asarray(rays.y).tolist()}
    if case == "saved_bytes":
        import torch

        storages = {}

        def pack(tensor):
            storage = tensor.untyped_storage()
            storages[storage.data_ptr()] = storage.nbytes()
            return tensor

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
            loss = _spot_loss(_trace(system, n, "torch", True))
        loss.backward()
        return {"bytes": sum(storages.values())}
    started = time.perf_counter()
    if case == "numpy":
        _trace(system, n, "numpy", False)
    elif case == "torch_nograd":
        import torch

        with torch.no_grad():
            _trace(system, n, "torch", False)
    elif case == "torch_fb":
        _spot_loss(_trace(system, n, "torch", True)).backward()
    else:
        raise ValueError(f"unknown case {case!r}")
    return {"seconds": time.perf_counter() - started}


def setup(request):
    """The first line: the prescriptions and the field."""
    global SPECS, FIELD, PRIMARY
    SPECS, FIELD = request["systems"], tuple(request["field"])
    PRIMARY = next(iter(SPECS.values()))["primary"]


SPECS: dict = {}
FIELD = (0.0, 0.0)
PRIMARY = 0.55

if __name__ == "__main__":
    serve(setup, run)
