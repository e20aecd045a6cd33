"""Shared checks for the polynomial tests: finite differences, quadratures, reference data."""

from __future__ import annotations

import numpy as np

from optics import backend as be

EPS = float(np.finfo(np.float64).eps)
FD_STEPS = (1e-3, 5e-4)


def assert_derivative_matches(f, x, analytic, steps=FD_STEPS):
    """Central differences of f at x match ``analytic`` with the O(h^2) error shrinking.

    ``f`` maps a float64 NumPy array to a NumPy array shaped like it.  At two
    step sizes h and h/2 the error must be small and fall by roughly 4x, or
    be at roundoff level already (which proves the derivative is right, not
    just close).
    """
    x = np.asarray(x, dtype=np.float64)
    analytic = be.to_numpy(analytic)
    scale = max(1.0, float(np.max(np.abs(analytic))))
    roundoff = 50 * EPS * max(1.0, float(np.max(np.abs(f(x))))) / min(steps)
    errors = []
    for h in steps:
        central = (f(x + h) - f(x - h)) / (2 * h)
        errors.append(float(np.max(np.abs(central - analytic))))
    assert errors[0] <= 1e-3 * scale, f"finite-difference error {errors[0]:.3e} too large"
    assert errors[1] <= 0.3 * errors[0] + roundoff, f"error did not fall as h^2: {errors}"


def gauss_chebyshev_nodes(count):
    """Nodes t_k and weight of int_{-1}^1 p(t) (1 - t^2)^(-1/2) dt, exact to degree 2 count - 1."""
    k = np.arange(1, count + 1)
    return np.cos((2 * k - 1) * np.pi / (2 * count)), np.pi / count


def disk_grid_legendre(radial_count, angular_count):
    """(x, y, weight) exact for (1/pi) int_disk p dA when p is a polynomial of modest degree.

    Gauss-Legendre in s = rho^2 (dA = ds dtheta / 2) times the uniform rule in theta.
    """
    nodes, weights = np.polynomial.legendre.leggauss(radial_count)
    s = 0.5 * (nodes + 1.0)
    ws = 0.5 * weights
    theta = 2 * np.pi * np.arange(angular_count) / angular_count
    rho = np.sqrt(s)[:, None]
    x = rho * np.cos(theta)[None, :]
    y = rho * np.sin(theta)[None, :]
    weight = (ws[:, None] * np.full(angular_count, 2 * np.pi / angular_count)[None, :]) / (
        2 * np.pi
    )
    return x, y, weight


def to_backend(*arrays):
    """NumPy arrays as arrays of the active backend."""
    out = tuple(be.asarray(a) for a in arrays)
    return out if len(out) > 1 else out[0]


def numpy_and_torch(fn):
    """fn() evaluated on both backends (float64), results as NumPy arrays."""
    results = []
    for name in ("numpy", "torch"):
        with be.using(name, precision="float64", device="cpu"):
            results.append([be.to_numpy(r) for r in fn()])
    return results


def assert_on_backend_of(like, *results):
    """Every result is an array of the same type (backend) as ``like``."""
    for result in results:
        assert type(result) is type(like), f"{type(result)} is not {type(like)}"


def assert_smooth_at_origin(evaluate, step=1e-5):
    """``evaluate(x, y) -> (z, dz_dx, dz_dy)`` is smooth at (0, 0) under torch autograd.

    Autograd of z reproduces the analytic gradient, and autograd of the
    analytic gradient (the Hessian) is finite and matches central differences
    of the gradient computed on NumPy.  Call inside the torch backend.
    """
    import torch

    x, y = be.parameter([0.0]), be.parameter([0.0])
    z, dz_dx, dz_dy = evaluate(x, y)
    first = torch.autograd.grad(z.sum(), (x, y), create_graph=True)
    np.testing.assert_allclose([g.item() for g in first], [dz_dx.item(), dz_dy.item()], rtol=1e-13)
    rows = [torch.autograd.grad(g.sum(), (x, y), retain_graph=True) for g in (dz_dx, dz_dy)]
    hessian = np.array([[entry.item() for entry in row] for row in rows])
    assert np.all(np.isfinite(hessian))

    def gradient_at(px, py):
        with be.using("numpy"):
            _, gx, gy = evaluate(np.array([px]), np.array([py]))
        return np.array([gx[0], gy[0]])

    fd = np.stack(
        [
            (gradient_at(step, 0.0) - gradient_at(-step, 0.0)) / (2 * step),
            (gradient_at(0.0, step) - gradient_at(0.0, -step)) / (2 * step),
        ],
        axis=1,
    )
    np.testing.assert_allclose(hessian, fd, rtol=1e-7, atol=1e-7)
