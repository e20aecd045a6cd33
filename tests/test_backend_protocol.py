"""The backend contract as typed protocols, its signature check, and the hooks' defaults.

``_contract.verify`` refuses a module whose names or signatures break ``Backend`` (and
``AutodiffBackend``, ``CompilingBackend``, ``Hooks``); ``be.hook`` returns a backend's own
hook or ``DefaultHooks``' plain form; ``be.value_and_grad`` / ``be.jacobian`` are the
backend's derivatives, and ``optics.optimize`` holds their NumPy-valued glue.
"""

from __future__ import annotations

import inspect
import sys
import types

import numpy as np
import pytest

from optics import backend as be
from optics.backend import _contract, _registry
from optics.backend._hooks import DEFAULTS, DefaultHooks
from optics.errors import ConfigurationError
from optics.optimize import gradients, residuals_and_jacobian, value_and_gradient


def test_every_built_in_backend_and_the_strict_one_follow_the_protocols():
    for name in be.available_backends():
        module, info = _registry.load(name), _registry.info(name)
        assert _contract.problems(module, info) == [], name
        assert isinstance(module, _contract.Backend)
        if info.autodiff is not None:
            assert isinstance(module, _contract.AutodiffBackend)
        if info.compile:
            assert isinstance(module, _contract.CompilingBackend)
    pytest.importorskip("array_api_strict")
    import strict_backend  # tests/strict_backend.py, the recipe of docs/backend.md

    strict = be.BackendInfo("strict", "strict_backend")
    assert _contract.problems(strict_backend, strict) == []
    assert not isinstance(strict_backend, _contract.AutodiffBackend)  # no value_and_grad


def _broken(**replaced):
    """A copy of the NumPy backend's module with some names replaced."""
    module, numpy_impl = types.ModuleType("broken_backend"), _registry.load("numpy")
    for name in dir(numpy_impl):
        if not name.startswith("__"):
            setattr(module, name, getattr(numpy_impl, name))
    for name, value in replaced.items():
        setattr(module, name, value)
    return module


def _refusal(module):
    with pytest.raises(be.BackendUnavailableError) as caught:
        _contract.verify(module, be.BackendInfo("broken", "broken_backend"))
    return str(caught.value)


def test_a_creation_function_without_the_dtype_keyword_is_refused_by_name():
    message = _refusal(_broken(zeros=lambda shape: None))
    assert "broken_backend" in message  # the module
    assert "zeros(shape) cannot be called as (shape, /, *, dtype, device=None)" in message
    assert "dtype" in message.rsplit("cannot be called as", 1)[1]  # the mismatch


def test_a_callable_needing_more_than_the_contract_passes_is_refused():
    message = _refusal(_broken(sqrt=lambda x, y: x))
    assert "sqrt(x, y) cannot be called as (x, /)" in message and "'y'" in message


def test_every_problem_is_listed_in_one_refusal():
    module = _broken(name=3, arctan2=lambda y: y, accumulate=lambda total, term: total)
    del module.hypot
    message = _refusal(module)
    assert "does not define hypot" in message
    assert "name is int, not str" in message
    assert "arctan2(y) cannot be called as (y, x, /)" in message
    assert "accumulate(total, term) cannot be called as (total, term, weight, /)" in message


def test_a_signature_that_cannot_be_read_is_taken_on_trust():
    with pytest.raises(ValueError):
        inspect.signature(max)  # a C builtin without a text signature
    assert _contract.mismatch(_contract.signature("maximum"), max) is None
    assert _contract.mismatch(_contract.signature("maximum"), np.maximum) is None


def test_keyword_parameters_must_be_taken_by_keyword_and_varargs_passed_on():
    def positional_axis(x, axis_, keepdims_):
        return x

    assert "keepdims" in _contract.mismatch(_contract.signature("sum"), positional_axis)
    assert _contract.mismatch(_contract.signature("recompute"), lambda fn: fn) is not None
    assert _contract.mismatch(_contract.signature("recompute"), lambda fn, *a: fn) is None


def test_the_registry_refuses_a_backend_with_a_wrong_signature(monkeypatch):
    monkeypatch.setitem(sys.modules, "broken_backend", _broken(eye=lambda: None))
    be.register_backend(be.BackendInfo("broken", "broken_backend"))
    try:
        with pytest.raises(be.BackendUnavailableError, match=r"eye\(\) cannot be called as"):
            with be.using("broken"):
                pass
    finally:
        be.unregister_backend("broken")


def test_default_hooks_define_every_hook_with_the_protocol_s_signature():
    assert set(_contract.OPTIONAL) <= set(dir(DefaultHooks))
    for name in _contract.OPTIONAL:
        wanted = _contract.signature(name)
        if wanted is None:
            assert getattr(DEFAULTS, name) is False  # compile_uses_rows
        else:
            assert inspect.signature(getattr(DEFAULTS, name)) == wanted, name


def test_default_hooks_compute_the_plain_expressions_in_fresh_arrays():
    total, term = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    out = DEFAULTS.accumulate(total, term, 3.0)
    assert out.tolist() == [2.5, -1.0] and total.tolist() == [1.0, 2.0]  # total untouched
    assert DEFAULTS.add_product(1.0, term, total).tolist() == [1.5, -1.0]
    assert DEFAULTS.recompute(lambda a, b: a * b, total, term).tolist() == [0.5, -2.0]
    assert DEFAULTS.compiled_stage(lambda s: (s[0] + 1.0,), (total,))[0].tolist() == [2.0, 3.0]
    rows = np.arange(10.0)
    assert DEFAULTS.row_view(rows, 3, 4).tolist() == [3.0, 4.0, 5.0, 6.0]
    pieces = [rows[0:4], rows[3:7]]  # the last part overlaps the one before by one row
    assert DEFAULTS.join_rows(pieces, [(0, 4), (1, 4)]).tolist() == rows[:7].tolist()
    assert DEFAULTS.block_until_ready(pieces) is pieces
    with DEFAULTS.intra_op_threads(3) as before:
        assert before is None  # no count known, none set


def test_hook_returns_the_backend_s_own_or_the_default():
    numpy_impl = _registry.load("numpy")
    assert be.hook("accumulate", np.zeros(2), 1.0) == numpy_impl.accumulate
    assert be.hook("compiled_stage", np.zeros(2)) == DEFAULTS.compiled_stage  # NumPy: no stage
    assert be.hook("row_view", np.zeros(2)) == DEFAULTS.row_view
    assert be.hook("compile_uses_rows", np.zeros(2)) is False


def test_an_unknown_hook_name_is_refused_by_name():
    with pytest.raises(ValueError, match=r"'acumulate' is not an optional hook.*accumulate"):
        be.hook("acumulate", np.zeros(2))


def test_the_backend_s_derivatives_are_refused_on_numpy():
    with be.using("numpy"):
        with pytest.raises(ConfigurationError, match=r"be.value_and_grad.*'numpy'"):
            be.value_and_grad(lambda x: be.sum(x), [be.zeros(2)])
        with pytest.raises(ConfigurationError, match="automatic differentiation"):
            value_and_gradient(lambda p: p[0], [1.0])


_TOL = 64 * be.machine_eps(1.0)  # float64 rounding of a few operations on O(1) values


def _loss(p):
    """sin(a) * b + a^2: gradient (cos(a) b + 2a, sin(a))."""
    return be.sin(p[0]) * p[1] + p[0] * p[0]


def test_backend_derivatives_match_the_closed_form(autodiff_backend):
    a, b = 0.7, -1.3
    value, (ga, gb) = be.value_and_grad(lambda x, y: _loss([x, y]), [be.array(a), be.array(b)])
    eps = be.machine_eps(1.0)
    assert abs(be.item(value) - (np.sin(a) * b + a * a)) <= 8 * eps
    assert abs(be.item(ga) - (np.cos(a) * b + 2 * a)) <= 8 * eps
    assert abs(be.item(gb) - np.sin(a)) <= 8 * eps
    out, (column,) = be.jacobian(
        lambda x: be.stack([x[0] * x[1], be.sin(x[0])]), [be.array([a, b])]
    )
    expected = [[b, a], [np.cos(a), 0.0]]
    assert np.allclose(be.to_numpy(column), expected, rtol=0.0, atol=8 * eps)
    assert be.to_numpy(out).tolist() == pytest.approx([a * b, np.sin(a)], abs=8 * eps)


@pytest.mark.parametrize("step", [1e-4, 1e-5])
def test_optimize_derivatives_match_central_differences(autodiff_backend, step):
    point = np.array([0.7, -1.3])

    def host(p):
        return np.sin(p[0]) * p[1] + p[0] ** 2

    value, gradient = value_and_gradient(_loss, point)
    central = [(host(point + step * e) - host(point - step * e)) / (2 * step) for e in np.eye(2)]
    assert value == pytest.approx(host(point), abs=_TOL)
    assert gradient == pytest.approx(central, rel=0.0, abs=step**2)  # O(h^2) truncation
    residuals, jac = residuals_and_jacobian(lambda p: be.stack([_loss(p), p[0] * p[1]]), point)
    assert jac.shape == (2, 2) and residuals.shape == (2,)
    assert jac[0] == pytest.approx(central, abs=step**2)
    assert jac[1] == pytest.approx([point[1], point[0]], abs=_TOL)
    total, (g,) = gradients(lambda x: be.sum(x * x), [be.asarray(point)])
    assert total == pytest.approx(float(point @ point), abs=_TOL)
    assert g.tolist() == pytest.approx((2 * point).tolist(), abs=_TOL)
