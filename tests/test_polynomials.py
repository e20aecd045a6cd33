"""Chebyshev polynomials, and rules that hold for the whole optics.polynomials package.

Zernike and Forbes families are tested in test_polynomials_zernike.py and
test_polynomials_forbes.py.
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest
from _polynomial_checks import (
    assert_derivative_matches,
    assert_on_backend_of,
    numpy_and_torch,
    to_backend,
)
from conftest import assert_close
from numpy.polynomial import chebyshev as npcheb

import optics.polynomials
from optics import backend as be
from optics.polynomials import chebyshev_2d, chebyshev_sum, chebyshev_t

N_MAX = 12
POINTS = np.linspace(-1.0, 1.0, 41)


def _unit(n, size):
    c = np.zeros(size)
    c[n] = 1.0
    return c


def test_chebyshev_values_match_numpy_polynomial(backend):
    points = to_backend(POINTS)
    values, slopes = chebyshev_t(points, N_MAX)
    assert_on_backend_of(points, values, slopes)
    expected = np.stack([npcheb.chebval(POINTS, _unit(n, N_MAX + 1)) for n in range(N_MAX + 1)])
    assert tuple(values.shape) == (N_MAX + 1, POINTS.size)
    assert_close(values, expected, rtol=0, atol=1e-13)


def test_chebyshev_derivatives_match_numpy_chebder(backend):
    _, slopes = chebyshev_t(to_backend(POINTS), N_MAX)
    expected = np.stack(
        [npcheb.chebval(POINTS, npcheb.chebder(_unit(n, N_MAX + 1))) for n in range(N_MAX + 1)]
    )
    assert_close(slopes, expected, rtol=0, atol=1e-12)


def test_chebyshev_derivatives_match_central_differences(backend):
    x = np.linspace(-0.97, 0.97, 23)
    _, slopes = chebyshev_t(to_backend(x), N_MAX)
    for n in range(N_MAX + 1):

        def t_n(points, n=n):
            return be.to_numpy(chebyshev_t(to_backend(points), N_MAX)[0][n])

        assert_derivative_matches(t_n, x, slopes[n])


def test_chebyshev_endpoint_derivatives_are_exact(backend):
    ends = to_backend(np.array([-1.0, 1.0]))
    _, slopes = chebyshev_t(ends, 40)
    n = np.arange(41, dtype=np.float64)
    expected = np.stack([(-1.0) ** (n - 1) * n**2, n**2], axis=1)
    np.testing.assert_array_equal(be.to_numpy(slopes), expected)


def test_chebyshev_autograd_is_finite_and_exact_at_endpoints(torch_backend):
    x = be.parameter([-1.0, 1.0])
    values, slopes = chebyshev_t(x, N_MAX)
    for n in range(N_MAX + 1):
        (first,) = _grad(values[n], x)
        np.testing.assert_array_equal(be.to_numpy(first), [(-1.0) ** (n - 1) * n**2, n**2])
        (second,) = _grad(slopes[n], x)
        exact_second = (n**4 - n**2) / 3.0  # T_n''(1); T_n''(-1) = (-1)^n T_n''(1)
        np.testing.assert_allclose(
            be.to_numpy(second), [(-1.0) ** n * exact_second, exact_second], rtol=1e-12
        )


def _grad(output, wrt):
    """Autograd of sum(output) with respect to ``wrt`` (torch only), keeping the graph."""
    import torch

    return torch.autograd.grad(output.sum(), wrt, create_graph=True)


def test_chebyshev_sum_matches_chebval_and_chebder(backend):
    coefficients = [0.3, -1.2, 0.5, 2.0, -0.7, 0.11]
    f, df = chebyshev_sum(coefficients, to_backend(POINTS))
    assert_close(f, npcheb.chebval(POINTS, coefficients), rtol=0, atol=1e-13)
    assert_close(df, npcheb.chebval(POINTS, npcheb.chebder(coefficients)), rtol=0, atol=1e-12)


def test_chebyshev_2d_matches_chebval2d_and_its_derivatives(backend):
    rng = np.random.default_rng(1)
    c = rng.normal(size=(5, 4))
    u = rng.uniform(-1, 1, size=(3, 7))
    v = rng.uniform(-1, 1, size=(3, 7))
    f, df_du, df_dv = chebyshev_2d(to_backend(c), *to_backend(u, v))
    assert_on_backend_of(to_backend(u), f, df_du, df_dv)
    assert_close(f, npcheb.chebval2d(u, v, c), rtol=0, atol=1e-12)
    assert_close(df_du, npcheb.chebval2d(u, v, npcheb.chebder(c, axis=0)), rtol=0, atol=1e-12)
    assert_close(df_dv, npcheb.chebval2d(u, v, npcheb.chebder(c, axis=1)), rtol=0, atol=1e-12)


def test_chebyshev_2d_gradient_matches_central_differences(backend):
    rng = np.random.default_rng(2)
    c = to_backend(rng.normal(size=(6, 5)))
    u = rng.uniform(-0.95, 0.95, size=15)
    v = rng.uniform(-0.95, 0.95, size=15)
    _, df_du, df_dv = chebyshev_2d(c, *to_backend(u, v))
    assert_derivative_matches(
        lambda p: be.to_numpy(chebyshev_2d(c, *to_backend(p, v))[0]), u, df_du
    )
    assert_derivative_matches(
        lambda p: be.to_numpy(chebyshev_2d(c, *to_backend(u, p))[0]), v, df_dv
    )


def test_chebyshev_2d_broadcasts_u_against_v(backend):
    c = to_backend(np.arange(12.0).reshape(3, 4) / 10)
    u = np.linspace(-1, 1, 5)[:, None]
    v = np.linspace(-1, 1, 4)[None, :]
    f, df_du, df_dv = chebyshev_2d(c, *to_backend(u, v))
    assert tuple(f.shape) == tuple(df_du.shape) == tuple(df_dv.shape) == (5, 4)
    assert_close(f, npcheb.chebgrid2d(u[:, 0], v[0], be.to_numpy(c)), rtol=0, atol=1e-13)


def test_chebyshev_2d_rejects_coefficients_that_are_not_a_matrix(backend):
    with pytest.raises(ValueError, match="matrix"):
        chebyshev_2d([1.0, 2.0], *to_backend(POINTS, POINTS))


def test_chebyshev_2d_coefficient_gradient_matches_finite_differences(torch_backend):
    import torch

    rng = np.random.default_rng(3)
    values = rng.normal(size=(3, 3))
    leaves = [
        [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in row] for row in values
    ]
    u, v = to_backend(rng.uniform(-1, 1, 9), rng.uniform(-1, 1, 9))
    weights = to_backend(rng.normal(size=9))

    def loss(c):
        f, df_du, df_dv = chebyshev_2d(c, u, v)
        return be.sum(weights * (f + 0.5 * df_du - 0.25 * df_dv))

    total = loss(leaves)
    total.backward()
    h = 1e-6
    for i in range(3):
        for j in range(3):
            plus, minus = values.copy(), values.copy()
            plus[i, j] += h
            minus[i, j] -= h
            fd = (be.item(loss(to_backend(plus))) - be.item(loss(to_backend(minus)))) / (2 * h)
            assert leaves[i][j].grad is not None
            assert abs(leaves[i][j].grad.item() - fd) <= 1e-7 * max(1.0, abs(fd))


def test_chebyshev_numpy_and_torch_agree():
    pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    c, u, v = rng.normal(size=(4, 6)), rng.uniform(-1, 1, 20), rng.uniform(-1, 1, 20)

    def run():
        return (*chebyshev_t(to_backend(u), 9), *chebyshev_2d(to_backend(c), *to_backend(u, v)))

    on_numpy, on_torch = numpy_and_torch(run)
    for a, b in zip(on_numpy, on_torch):
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)


def test_polynomials_package_never_imports_an_array_library_directly():
    package = pathlib.Path(optics.polynomials.__file__).parent
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in {"torch", "numpy", "scipy"}, (
                    f"{path.name} imports {name}"
                )
        assert '"torch"' not in path.read_text() and "'torch'" not in path.read_text(), path.name
