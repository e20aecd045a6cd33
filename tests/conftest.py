"""Shared fixtures: run backend-sensitive tests on NumPy, Torch and JAX.

``OPTICS_TEST_BACKENDS`` (comma-separated, e.g. "numpy,jax") narrows the set;
torch and jax cases skip cleanly when their library is not installed.  Tests marked ``slow``
run only with ``--runslow`` or ``OPTICS_RUN_SLOW=1``.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from _zemax_corpus import ABSENT, corpus_dir

from optics import backend as be

_ALL = ("numpy", "torch", "jax")


def _requested_backends():
    raw = os.environ.get("OPTICS_TEST_BACKENDS", "")
    names = [n.strip() for n in raw.split(",") if n.strip()] or list(_ALL)
    unknown = set(names) - set(_ALL)
    if unknown:
        raise pytest.UsageError(f"OPTICS_TEST_BACKENDS names unknown backends {sorted(unknown)}")
    return names


BACKENDS = _requested_backends()


def pytest_addoption(parser):
    parser.addoption(
        "--runslow",
        action="store_true",
        default=False,
        help="also run tests marked slow (inductor compiles); or set OPTICS_RUN_SLOW=1",
    )


#: JAX cases whose time is XLA compiling each eager operation (10-30 s each on 2 cores,
#: measured with --durations on a fresh clone; their NumPy and Torch cases still run):
#: marked ``slow``, so they run with OPTICS_RUN_SLOW=1, and the README's test command
#: stays under 10 minutes and .ci/run well under 20.
JAX_COMPILE_HEAVY = (
    "tests/test_wavefront_operands.py::test_operands_run_on_numpy_and_torch_alike[jax]",
    "tests/test_wavefront_systems.py::test_strehl_of_a_slightly_defocused_paraboloid[jax]",
    "tests/test_aiming.py::test_trace_rays_bundle_and_spot_honour_the_mode[jax]",
    "tests/test_wavefront_systems.py::test_wavefront_statistics_converge_with_the_quadrature[jax]",
    "tests/test_aiming.py::test_paraxial_aiming_warns_once_naming_the_fields[jax]",
    "tests/test_optimize_cli.py::test_jax_gradient_and_scipy_drivers_lower_the_merit",
    "tests/test_aiming.py::test_a_ray_that_cannot_reach_its_stop_point_is_invalid_not_dropped[jax]",
    "tests/test_optimize_operands_optical.py::test_new_operand_gradients_match_finite_differences[jax]",
    "tests/test_optimize_gradients.py::test_even_asphere_coefficient_gradient_matches_finite_differences[jax]",
    "tests/test_wavefront_chunked.py::test_chunked_wavefront_samples_equal_one_batch[jax]",
    "tests/test_gradcheck_cli.py::test_derivatives_through_the_real_image_height_field_solve[jax]",
    "tests/test_configurations_batch.py::test_traced_operand_across_configurations_gradient_jax",
    "tests/test_aiming.py::test_float32_aims_to_a_dtype_derived_tolerance[jax]",
    # 2026-12-07, --durations on 2 cores (6-12 s each; every one keeps its NumPy and Torch
    # cases, and its test keeps other JAX cases where it has them):
    "tests/test_wavefront_energy.py::test_airy_energy_inside_the_first_dark_ring[jax]",
    "tests/test_optimize_gradients.py::test_gradient_reaches_conic_index_decenter_tilt_and_curvature_through_flat[jax]",
    "tests/test_gradcheck_cli.py::test_autograd_agrees_with_finite_differences_on_every_surface_type[biconic-jax]",
    "tests/test_corpus.py::test_rms_spots[jax-achromat_finite]",
    "tests/test_corpus.py::test_rms_spots[jax-cassegrain]",
    "tests/test_aiming.py::test_aimed_rays_cross_the_stop_at_the_requested_point[jax-infinite]",
    "tests/test_aiming.py::test_chief_ray_goes_through_the_stop_centre_and_pupil_rim_is_r_stop[jax]",
    "tests/test_aiming.py::test_every_wavelength_is_aimed_at_the_same_stop_point[jax]",
    "tests/test_chunked_trace.py::test_chunked_bundle_equals_one_batch[jax]",
    "tests/test_psf_polychromatic.py::test_polychromatic_mtf_runs_alike_on_every_backend[jax]",
    "tests/test_solvers_scalar_newton.py::test_round_off_tolerance_lets_float32_converge[jax]",
    "tests/test_trace_bundle.py::test_spot_reference_is_the_primary_chief_even_when_not_traced[jax]",
    # compile tests (./dev compile-tests), 17-21 s each: other designs and losses still run
    "tests/test_compiled_retrace.py::test_an_aspheric_first_surface_traced_with_no_step_equals_eager_on_unlike_designs[torch-fisheye]",
    "tests/test_jax_jit_losses.py::test_a_jitted_loss_and_its_gradient_equal_eager_and_central_differences[wavefront-real]",
)


def pytest_collection_modifyitems(config, items):
    """Mark JAX_COMPILE_HEAVY ``slow``; skip ``slow`` tests unless asked (--runslow)."""
    for item in items:
        if item.nodeid.startswith(JAX_COMPILE_HEAVY):
            item.add_marker(pytest.mark.slow)
    wanted = config.getoption("--runslow", default=False)
    if wanted or os.environ.get("OPTICS_RUN_SLOW", "") == "1":
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow or OPTICS_RUN_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def pytest_report_header(config):
    """Say once, at the top, whether the shared Zemax corpus is here."""
    folder = corpus_dir()
    if folder.is_dir():
        return f"zemax corpus: {folder} ({sum(1 for _ in folder.iterdir())} files)"
    return (
        f"zemax corpus: ABSENT ({folder}): the tests that read it skip (one line in the "
        "summary); the reader is still tested on tests/data/zemax/*.zmx. Set "
        "OPTICS_SHARED_DIR to the folder holding zemax/files to run them."
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Give every corpus skip one location, so that ``-ra`` folds them into one line."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if ABSENT in reason:
            report.longrepr = ("tests/_zemax_corpus.py", None, reason.removeprefix("Skipped: "))


def _backend_param(name):
    marks = []
    if name not in be.available_backends():
        marks.append(pytest.mark.skip(reason=f"{name} is not installed"))
    return pytest.param(name, marks=marks, id=name)


@pytest.fixture(params=[_backend_param(n) for n in BACKENDS])
def backend(request):
    """The backend name, active (float64, CPU) for the duration of the test."""
    with be.using(request.param, precision="float64", device="cpu"):
        yield request.param


@pytest.fixture(params=["float64", "float32"])
def precision(request, backend):
    """Both precisions on top of the ``backend`` fixture."""
    with be.using(backend, precision=request.param):
        yield request.param


@pytest.fixture
def torch_backend():
    """The torch backend (float64, CPU); skips when torch is not installed."""
    pytest.importorskip("torch")
    with be.using("torch", precision="float64", device="cpu"):
        yield "torch"


@pytest.fixture(params=[_backend_param(n) for n in BACKENDS if n != "numpy"])
def autodiff_backend(request):
    """Each backend that differentiates (torch, jax), active (float64, CPU)."""
    with be.using(request.param, precision="float64", device="cpu"):
        yield request.param


@pytest.fixture
def jax_backend():
    """The jax backend (float64, CPU); skips when jax is not installed."""
    pytest.importorskip("jax")
    with be.using("jax", precision="float64", device="cpu"):
        yield "jax"


def _namespace_name(x):
    return type(x).__module__.split(".")[0]


def assert_close(actual, expected, rtol=None, atol=0.0, *, check_dtype=True):
    """Assert two arrays agree: same namespace, dtype and shape, then values.

    ``rtol`` defaults to 4*sqrt(eps) of the dtype of ``actual``.  ``expected``
    may be a Python number or a NumPy array, in which case only the values
    (and shape, when it has one) are compared.
    """
    if (
        be.is_array(expected)
        and not isinstance(expected, np.ndarray)
        or (isinstance(expected, np.ndarray) and isinstance(actual, np.ndarray))
    ):
        assert _namespace_name(actual) == _namespace_name(expected), (
            f"namespaces differ: {type(actual)} vs {type(expected)}"
        )
        if check_dtype:
            assert str(actual.dtype) == str(expected.dtype), (
                f"dtypes differ: {actual.dtype} vs {expected.dtype}"
            )
    a = be.to_numpy(actual)
    e = be.to_numpy(expected)
    if np.ndim(e) and np.ndim(a):
        assert a.shape == e.shape, f"shapes differ: {a.shape} vs {e.shape}"
    if rtol is None:
        rtol = 4 * np.sqrt(be.machine_eps(actual))
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)


@pytest.fixture
def close():
    """The :func:`assert_close` helper as a fixture."""
    return assert_close
