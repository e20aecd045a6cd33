"""Host-made constants as arrays of the configured backend, precision and device."""

from __future__ import annotations

import numpy as np

from .. import backend as be


def real(values):
    """``values`` (NumPy or array-like) as a float array of the configured precision.

    ``be.asarray`` keeps a NumPy array's float64; host-made constants (pixel
    positions, weights, noise) would then promote a float32 computation.
    """
    if be.is_array(values) and not isinstance(values, np.ndarray):
        return be.astype(values, be.float_dtype()) if _is_float(values) else values
    return be.asarray(np.asarray(values, dtype=float), dtype=be.float_dtype())


def _is_float(x):
    return "float" in str(getattr(x, "dtype", ""))
