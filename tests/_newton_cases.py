"""A catalogue of Newton–Raphson surfaces and rays shared by the Newton surface tests.

Each case is one surface of each lens-file type with moderate departures, the
parameter paths (relative to the geometry, :mod:`optics.params` syntax) that
the derivative tests vary, and helpers for rays, optics and finite differences.
"""

from __future__ import annotations

import math

import numpy as np

from optics import backend as be
from optics.geometry import Standard
from optics.geometry.newton_types import (
    Q2D,
    QBFS,
    Biconic,
    Chebyshev,
    EvenAsphere,
    OddAsphere,
    Toroidal,
    XYPolynomial,
    Zernike,
)
from optics.materials import ConstantIndex
from optics.params import get_param, set_param
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths

CHEBYSHEV_COEFFICIENTS = [[0.01, 0.002, 0.003], [0.001, -0.002, 0.0005], [0.004, 0.0, 0.001]]
Q2D_TERMS = [
    {"type": "a", "m": 0, "n": 0, "value": 0.01},
    {"type": "a", "m": 0, "n": 2, "value": -0.002},
    {"type": "a", "m": 1, "n": 1, "value": 0.002},
    {"type": "b", "m": 2, "n": 0, "value": 0.003},
    {"type": "a", "m": 3, "n": 2, "value": -0.001},
]


def _cases():
    return {
        "even_asphere": (
            lambda: EvenAsphere(25.0, -0.5, [1e-4, -2e-6, 3e-9]),
            ["radius", "conic", "coefficients[1]"],
        ),
        "odd_asphere": (
            lambda: OddAsphere(25.0, 0.2, [1e-3, 1e-4, -2e-6]),
            ["radius", "conic", "coefficients[0]"],
        ),
        "xy_polynomial": (
            lambda: XYPolynomial(30.0, 0.0, [[0.0, 1e-3, 2e-3], [1e-3, 1e-4], [3e-3, 0.0, 1e-5]]),
            ["radius", "conic", "coefficients[2][0]"],
        ),
        "chebyshev": (
            lambda: Chebyshev(-20.0, 0.0, CHEBYSHEV_COEFFICIENTS, norm_x=12.0, norm_y=10.0),
            ["radius", "conic", "coefficients[1][2]", "norm_x"],
        ),
        "zernike": (
            lambda: Zernike(
                30.0,
                0.1,
                [0.0, 0.001, -0.002, 0.003, 0.001, 0.0005, 0.0, 0.0002, 0.0001, 0.0003, 0.0004],
                norm_radius=10.0,
            ),
            ["radius", "conic", "coefficients[3]"],
        ),
        "zernike_fringe": (
            lambda: Zernike(
                30.0,
                0.1,
                [0.0, 0.001, -0.002, 0.003, 0.001, 0.0005],
                norm_radius=10.0,
                ordering="fringe",
            ),
            ["radius", "coefficients[4]"],
        ),
        "qbfs": (
            lambda: QBFS(30.0, -0.3, [0.01, -0.002, 0.001, 0.0005], norm_radius=10.0),
            ["radius", "conic", "terms[1]"],
        ),
        "q2d": (
            lambda: Q2D(30.0, -0.3, Q2D_TERMS, norm_radius=10.0),
            ["radius", "conic", "coefficients[3].value"],
        ),
        "biconic": (
            lambda: Biconic(30.0, -0.5, radius_x=50.0, conic_x=0.3),
            ["radius", "conic", "radius_x", "conic_x"],
        ),
        "toroidal": (
            lambda: Toroidal(30.0, -0.5, radius_rotation=-60.0, coefficients=[1e-4, 2e-6]),
            ["radius", "radius_rotation", "coefficients[0]"],
        ),
    }


CASES = _cases()
NAMES = sorted(CASES)


def make(name):
    """A fresh geometry of case ``name``."""
    return CASES[name][0]()


def parameter_paths(name):
    """Paths (relative to the geometry) of the parameters the derivative tests vary."""
    return CASES[name][1]


def all_parameter_cases():
    """(case name, parameter path) pairs over the whole catalogue."""
    return [(name, path) for name in NAMES for path in parameter_paths(name)]


def plain_value(geometry, path) -> float:
    """The parameter at ``path`` of a geometry as a float."""
    return float(be.to_numpy(get_param(geometry, path)))


def with_value(name, path, value):
    """A fresh geometry of case ``name`` with the parameter at ``path`` set to ``value``."""
    geometry = make(name)
    set_param(geometry, path, value)
    return geometry


def ray_batch(off_axis=True, n_side=3):
    """Local-frame rays (x, y, z, L, M, N) as float64 NumPy arrays, all hitting within ~7 mm.

    Off axis: a grid of origins in ±5 mm at z = -3 with small tilts; on axis:
    the single ray along the axis.
    """
    if not off_axis:
        return tuple(np.array([v]) for v in (0.0, 0.0, -3.0, 0.0, 0.0, 1.0))
    grid = np.linspace(-5.0, 5.0, n_side)
    x, y = (a.ravel() for a in np.meshgrid(grid, grid * 0.8 + 0.3))
    L = 0.02 + 0.01 * x / 5.0
    M = -0.03 + 0.015 * y / 5.0
    N = np.sqrt(1.0 - L * L - M * M)
    z = np.full_like(x, -3.0)
    return x, y, z, L, M, N


def as_backend(arrays):
    """NumPy arrays converted to the configured backend and precision."""
    return tuple(be.asarray(a, dtype=be.float_dtype()) for a in arrays)


def singlet_with(geometry, index=1.5) -> Optic:
    """A singlet whose first surface (the stop) is ``geometry``, for full traces."""
    return Optic(
        [
            Surface(thickness=math.inf),
            Surface(geometry, 5.0, ConstantIndex(index), is_stop=True),
            Surface(Standard(-60.0), 45.0),
            Surface(),
        ],
        Aperture("epd", 10.0),
        Fields("angle", [(0.0, 0.0), (0.0, 3.0), (2.0, 3.0)]),
        Wavelengths([0.55], 0),
        name="newton singlet",
    )


def central_difference(f, value, step):
    """(f(value + step) - f(value - step)) / (2 step) for an f returning NumPy arrays."""
    return (np.asarray(f(value + step)) - np.asarray(f(value - step))) / (2.0 * step)


def checked_fd(f, value, relative_step=1e-5):
    """A central difference of f at value, after checking it agrees with itself at h and h/2.

    Returns the Richardson combination (4 fd(h/2) - fd(h)) / 3.  Fails when the
    two estimates disagree by more than 1e-5 of their size plus the round-off
    noise of a difference quotient (:func:`fd_noise`).
    """
    step = relative_step * max(abs(value), 1.0)
    coarse = central_difference(f, value, step)
    fine = central_difference(f, value, step / 2.0)
    noise = fd_noise(f(value), value, relative_step)
    spread = float(np.max(np.abs(coarse - fine)))
    bound = 1e-5 * float(np.max(np.abs(fine))) + noise
    assert spread <= bound, (
        f"finite differences disagree between h and h/2 ({spread:.2e} > {bound:.2e})"
    )
    return (4.0 * fine - coarse) / 3.0


def fd_noise(f_value, value, relative_step=1e-5):
    """Round-off noise of a float64 difference quotient of f: about 1000 eps |f| / h."""
    step = relative_step * max(abs(value), 1.0)
    return 1e3 * np.finfo(np.float64).eps * float(np.max(np.abs(f_value))) / step
