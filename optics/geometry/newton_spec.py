"""Lens-file reading and writing shared by the Newton–Raphson surface types.

Every Newton type accepts ``radius``, ``conic``, ``tol`` and ``max_iter``
besides its own keys; the helpers here check lists of coefficients where they
enter, with the surface and key in the message (a wrong value never reaches a
trace).
"""

from __future__ import annotations

import math

from .. import backend as be
from ..errors import LensFileError
from .base import number

#: Lens-file keys every Newton type accepts.
COMMON_KEYS = ("radius", "conic", "tol", "max_iter")
#: Default bound on the residual |F| in mm (lens-file key ``tol``).
DEFAULT_TOL = 1e-10
#: Default most Newton steps (lens-file key ``max_iter``).
DEFAULT_MAX_ITER = 100


def _is_number(value) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or (hasattr(value, "dtype") and be.size(value) == 1)


def common_from_spec(spec, where) -> dict:
    """radius, conic, tol and max_iter from a surface table, as keyword arguments."""
    radius = number(spec, "radius", where, math.inf)
    if radius == 0:
        raise LensFileError(f"{where}: key 'radius' must be nonzero (use inf for a plane)")
    max_iter = spec.get("max_iter", DEFAULT_MAX_ITER)
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
        raise LensFileError(f"{where}: key 'max_iter' must be a positive integer, not {max_iter!r}")
    tol = number(spec, "tol", where, DEFAULT_TOL)
    if not tol >= 0:
        raise LensFileError(f"{where}: key 'tol' must be >= 0, not {tol!r}")
    return {
        "radius": radius,
        "conic": number(spec, "conic", where, 0.0),
        "tol": tol,
        "max_iter": max_iter,
    }


def common_to_spec(geometry) -> dict:
    """The common keys of a Newton geometry, leaving out defaults (conic 0, tol, max_iter)."""
    spec = {"radius": plain(geometry.radius)}
    if plain(geometry.conic) != 0:
        spec["conic"] = plain(geometry.conic)
    if geometry.tol != DEFAULT_TOL:
        spec["tol"] = plain(geometry.tol)
    if geometry.max_iter != DEFAULT_MAX_ITER:
        spec["max_iter"] = int(geometry.max_iter)
    return spec


def number_list(spec, key, where, *, default=None, allow_empty=True) -> list:
    """A list of numbers under ``key`` (a copy), or raise LensFileError naming it."""
    value = spec.get(key, default)
    if value is None:
        raise LensFileError(f"{where}: missing key '{key}'")
    if not isinstance(value, (list, tuple)) or not all(_is_number(v) for v in value):
        raise LensFileError(f"{where}: key '{key}' must be a list of numbers, not {value!r}")
    if not value and not allow_empty:
        raise LensFileError(f"{where}: key '{key}' must not be empty")
    return list(value)


def number_matrix(spec, key, where, *, rectangular=False) -> list:
    """A list of lists of numbers under ``key`` (copied), rows equally long if ``rectangular``."""
    value = spec.get(key)
    if value is None:
        raise LensFileError(f"{where}: missing key '{key}'")
    bad = (
        not isinstance(value, (list, tuple))
        or not value
        or not all(
            isinstance(row, (list, tuple)) and all(_is_number(v) for v in row) for row in value
        )
    )
    if bad:
        raise LensFileError(
            f"{where}: key '{key}' must be a list of lists of numbers "
            f"(coefficients[i][j]), not {value!r}"
        )
    if rectangular and len({len(row) for row in value}) != 1:
        lengths = [len(row) for row in value]
        raise LensFileError(f"{where}: key '{key}' must have rows of one length, not {lengths}")
    if rectangular and not value[0]:
        raise LensFileError(f"{where}: key '{key}' must not have empty rows")
    return [list(row) for row in value]


def plain(value):
    """A parameter (number, 0-d array or nested list of them) as plain Python floats."""
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, str):
        return value
    return be.item(value)
