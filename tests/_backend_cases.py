"""Shared cases for the backend contract tests: strategies, tables and comparisons.

Used by test_backend_contract.py (NumPy against Torch) and
test_backend_array_api.py (array-api-strict against NumPy).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from optics import backend as be

try:
    import torch
except ImportError:  # the "numpy" tox environment
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
PRECISIONS = ("float64", "float32")
NP_FLOAT = {"float64": np.float64, "float32": np.float32}
FEW = settings(max_examples=25, deadline=None)

# --- strategies ---------------------------------------------------------------


def shapes(min_dims=1, max_dims=2):
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=5)


def floats(lo, hi, shape=None, **kwargs):
    """float64 arrays whose values are exact in float32 too (so both precisions match)."""
    elements = st.floats(lo, hi, width=32, **kwargs)
    return hnp.arrays(np.float64, shape if shape is not None else shapes(), elements=elements)


def bools(shape=None):
    return hnp.arrays(np.bool_, shape if shape is not None else shapes())


# --- comparison helpers ------------------------------------------------------


def pair(values, precision=None):
    """The same values as a NumPy array and a torch tensor (same dtype)."""
    x = np.asarray(values, dtype=NP_FLOAT[precision] if precision else None)
    return x, torch.from_numpy(x.copy())


def tolerance(precision, scale=1.0):
    """(rtol, atol) for two implementations of one function: a few tens of ulps."""
    eps = be.machine_eps(np.dtype(precision))
    return 32 * eps, 32 * eps * max(1.0, float(scale))


def finite_scale(values):
    """Largest finite magnitude in ``values`` (0 when there is none)."""
    values = np.asarray(values)
    return float(np.max(np.abs(values[np.isfinite(values)]), initial=0.0))


def assert_same(np_out, torch_out, rtol=0.0, atol=0.0):
    """NumPy and torch results agree: kinds of array, dtype, shape and values."""
    assert isinstance(np_out, (np.ndarray, np.generic)), type(np_out)
    assert isinstance(torch_out, torch.Tensor), type(torch_out)
    assert str(torch_out.dtype).removeprefix("torch.") == str(np_out.dtype)
    assert tuple(torch_out.shape) == np.shape(np_out)
    actual = torch_out.detach().cpu().numpy()
    np.testing.assert_allclose(actual, np_out, rtol=rtol, atol=atol, equal_nan=True)


def on_both(make, precision="float64"):
    """``make()`` run with the numpy backend and with the torch backend configured."""
    with be.using("numpy", precision=precision):
        np_out = make()
    with be.using("torch", precision=precision, device="cpu"):
        torch_out = make()
    return np_out, torch_out


# --- operation tables --------------------------------------------------------

ANY = floats(-20, 20)
UNARY = {
    "sqrt": floats(2.0**-10, 1e3),
    "log": floats(2.0**-10, 1e3),
    "exp": ANY,
    "sin": ANY,
    "cos": ANY,
    "tan": ANY,
    "arcsin": floats(-1, 1),
    "arccos": floats(-1, 1),
    "arctan": ANY,
    "abs": ANY,
    "sign": ANY,
    "square": ANY,
    "floor": ANY,
    "isfinite": hnp.arrays(np.float64, shapes(), elements=st.floats(width=32)),
    "isnan": hnp.arrays(np.float64, shapes(), elements=st.floats(width=32)),
}
BINARY = ("arctan2", "copysign", "hypot", "maximum", "minimum")
LOGICAL = ("logical_and", "logical_or")
REDUCTIONS = ("sum", "mean", "max", "min", "all", "any")
LIKE = ("zeros_like", "ones_like", "full_like", "empty_like")


def well_conditioned(values):
    """``values`` plus a dominant diagonal: condition number below 3."""
    n = values.shape[-1]
    return values + 4 * n * np.eye(n)
