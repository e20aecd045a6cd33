"""A float32 trace stays float32: no float64 array is created anywhere in it (issue 11).

On Torch every operation is watched by a dispatch mode, so a float64 tensor
made anywhere (a sampler, a constant, a launch, a Newton solve, a field
solve, the paraxial data) fails the test with the operation and the optics
source line that made it.  On NumPy the results and every recorded
intermediate ray set are checked.
"""

from __future__ import annotations

import collections
import traceback

import numpy as np
import pytest
from _newton_cases import NAMES, make, singlet_with

from optics import backend as be
from optics import paraxial, samples
from optics.analysis import spot_diagram
from optics.io import load
from optics.trace import trace_bundle, trace_surfaces

COOKE = samples.path("cooke_triplet").read_text()


def _lenses(tmp_path):
    """Samples (catalog glasses, cemented and air-spaced) and every field type."""
    real = COOKE.replace('type = "angle"', 'type = "real_image_height"')
    real = real.replace("values = [0.0, 14.0, 20.0]", "values = [0.0, 10.0, 18.0]")
    finite = COOKE.replace("thickness = inf", "thickness = 400.0", 1)
    finite = finite.replace('type = "angle"', 'type = "object_height"')
    finite = finite.replace("values = [0.0, 14.0, 20.0]", "values = [0.0, 50.0, 100.0]")
    paths = {"real_image_height": real, "object_height": finite}
    lenses = {name: load(name) for name in ("cooke_triplet", "achromat", "double_gauss")}
    for name, text in paths.items():
        (tmp_path / f"{name}.toml").write_text(text)
        lenses[name] = load(tmp_path / f"{name}.toml")
    return lenses


def _work(optic):
    """Everything a float32 analysis does; returns the arrays it produced."""
    first_order = paraxial(optic)
    bundle = trace_bundle(optic, pupil=2)
    path = trace_surfaces(optic, (0.3, 0.7), (0.2, -0.5))
    spot_diagram(optic, pupil=1)
    arrays = [first_order.efl, bundle.rays.x, bundle.rays.opd, bundle.chief.y, bundle.px]
    for rays in path:
        arrays += [rays.x, rays.y, rays.z, rays.L, rays.M, rays.N]
    return [a for a in arrays if be.is_array(a)]


class _Float64Spy:
    """A torch dispatch mode that records every float64 tensor an operation returns."""

    def __init__(self, torch):
        from torch.utils._python_dispatch import TorchDispatchMode

        seen = self.seen = collections.Counter()

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                results = out if isinstance(out, (tuple, list)) else [out]
                if any(isinstance(t, torch.Tensor) and t.dtype == torch.float64 for t in results):
                    frames = [
                        f
                        for f in traceback.extract_stack()
                        if "/optics/" in f.filename and "/backend/" not in f.filename
                    ]
                    where = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else "?"
                    seen[f"{func} at {where}"] += 1
                return out

        self.mode = Mode()


def _optics(tmp_path):
    lenses = _lenses(tmp_path)
    lenses.update({f"newton {name}": singlet_with(make(name)) for name in NAMES})
    return lenses


def test_a_float32_torch_trace_creates_no_float64_tensor(tmp_path):
    torch = pytest.importorskip("torch")
    spy = _Float64Spy(torch)
    with be.using("torch", precision="float32", device="cpu"):
        for name, optic in _optics(tmp_path).items():
            with spy.mode:
                arrays = _work(optic)
            assert not spy.seen, f"{name}: float64 tensors made by {dict(spy.seen)}"
            assert {a.dtype for a in arrays} == {torch.float32}, name


def test_a_float32_numpy_trace_keeps_float32(tmp_path):
    with be.using("numpy", precision="float32"):
        for name, optic in _optics(tmp_path).items():
            dtypes = {np.asarray(a).dtype for a in _work(optic)}
            assert dtypes == {np.dtype(np.float32)}, f"{name}: {dtypes}"
