"""Backend configuration: defaults, set_/get_, ``using()``, threads, environment, errors.

Precedence, as these tests pin it down (highest first):

1. an explicit ``dtype=`` / ``device=`` argument of a creation function;
2. the innermost active ``be.using(...)`` block of this thread or task;
3. the process default, last set by ``be.set_backend`` / ``set_precision`` /
   ``set_device`` or, at import, by OPTICS_BACKEND / OPTICS_PRECISION / OPTICS_DEVICE;
4. the built-in default: numpy, float64, cpu.

A ``set_*`` call inside a ``using()`` block changes the process default only:
the block keeps its choice until it exits.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from optics import BackendUnavailableError
from optics import backend as be
from optics.backend import _config, _registry

needs_torch = pytest.mark.skipif(
    "torch" not in be.available_backends(), reason="torch is not installed"
)
ENV_VARS = ("OPTICS_BACKEND", "OPTICS_PRECISION", "OPTICS_DEVICE")


@pytest.fixture(autouse=True)
def process_defaults(monkeypatch):
    """Each test starts from the built-in defaults and cannot leak its set_* calls."""
    monkeypatch.setattr(_config, "_defaults", dict(_config._defaults))
    for key, value in (("backend", "numpy"), ("precision", "float64"), ("device", "cpu")):
        _config._defaults[key] = value


def run_python(code, **env_vars):
    """Run ``code`` in a fresh interpreter with OPTICS_* taken only from ``env_vars``."""
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    env.update(env_vars)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


def python_output(code, **env_vars):
    result = run_python(code, **env_vars)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


# --- defaults and set_/get_ --------------------------------------------------


def test_defaults_in_a_fresh_interpreter_are_numpy_float64_cpu():
    code = "from optics import backend as be; print(be.get_backend(), be.get_precision(), "
    code += "be.get_device(), be.zeros(1).dtype)"
    assert python_output(code) == ["numpy", "float64", "cpu", "float64"]


@needs_torch
def test_torch_creates_float64_by_default_too():
    with be.using("torch"):
        assert str(be.zeros(2).dtype) == "torch.float64"
        assert str(be.asarray([0.5]).dtype) == "torch.float64"


def test_set_precision_and_get_precision():
    be.set_precision("float32")
    assert be.get_precision() == "float32"
    assert be.zeros(2).dtype == np.float32


@needs_torch
def test_set_device_and_get_device():
    be.set_device("meta")
    assert be.get_device() == "meta"
    assert be.zeros(2).dtype == np.float64  # numpy arrays ignore the configured device


@needs_torch
def test_set_backend_and_get_backend():
    be.set_backend("torch")
    assert be.get_backend() == "torch"
    assert type(be.zeros(2)).__module__.startswith("torch")
    be.set_backend("numpy")
    assert isinstance(be.zeros(2), np.ndarray)


@pytest.mark.parametrize(
    "setter, value",
    [(be.set_backend, "bogus"), (be.set_precision, "float16"), (be.set_device, "")],
    ids=["backend", "precision", "device"],
)
def test_setters_reject_unknown_values_and_keep_the_old_one(setter, value):
    before = (be.get_backend(), be.get_precision(), be.get_device())
    with pytest.raises(ValueError):
        setter(value)
    assert (be.get_backend(), be.get_precision(), be.get_device()) == before


def test_available_backends_lists_numpy_first():
    assert be.available_backends()[0] == "numpy"
    assert set(be.available_backends()) <= {"numpy", "torch", "jax"}


# --- using() -----------------------------------------------------------------


def test_using_nests_and_restores():
    with be.using(precision="float32", device="meta"):
        assert (be.get_precision(), be.get_device()) == ("float32", "meta")
        with be.using(precision="float64"):
            assert (be.get_precision(), be.get_device()) == ("float64", "meta")
        assert be.get_precision() == "float32"
    assert (be.get_precision(), be.get_device()) == ("float64", "cpu")


@needs_torch
def test_using_backend_nests_and_restores():
    with be.using("torch"):
        with be.using("numpy"):
            assert be.get_backend() == "numpy"
        assert be.get_backend() == "torch"
    assert be.get_backend() == "numpy"


def test_using_restores_after_an_exception_inside():
    with pytest.raises(KeyError), be.using(precision="float32", device="meta"):
        raise KeyError("inside")
    assert (be.get_precision(), be.get_device()) == ("float64", "cpu")


def test_using_with_one_bad_value_changes_nothing():
    with pytest.raises(ValueError), be.using("numpy", precision="float16"):
        pass  # pragma: no cover - never entered
    assert (be.get_backend(), be.get_precision()) == ("numpy", "float64")


def test_set_inside_using_changes_the_default_not_the_block():
    with be.using(precision="float32"):
        be.set_precision("float64")
        assert be.get_precision() == "float32"  # the block keeps its choice
        with be.using(precision="float32"):
            be.set_precision("float64")
        assert be.get_precision() == "float32"  # the same however blocks are nested
    assert be.get_precision() == "float64"  # ...and the new default shows after it


# --- precedence --------------------------------------------------------------


def test_explicit_dtype_beats_using_beats_set_precision():
    be.set_precision("float32")
    assert be.zeros(1).dtype == np.float32
    with be.using(precision="float64"):
        assert be.zeros(1).dtype == np.float64
        assert be.zeros(1, dtype=np.float32).dtype == np.float32
        assert be.asarray([1.0], dtype="float32").dtype == np.float32


@needs_torch
def test_explicit_device_beats_using_beats_set_device():
    be.set_device("meta")
    with be.using("torch"):
        assert be.zeros(1).device.type == "meta"
        with be.using(device="cpu"):
            assert be.zeros(1).device.type == "cpu"
            assert be.ones(1, device="meta").device.type == "meta"


def test_an_explicit_gpu_device_is_refused_on_numpy():
    with pytest.raises(ValueError, match="torch backend"):
        be.zeros(2, device="cuda")


def test_environment_sets_the_defaults_at_import():
    code = "from optics import backend as be; print(be.get_precision(), be.get_device(), "
    code += "be.zeros(1).dtype)"
    out = python_output(code, OPTICS_PRECISION="float32", OPTICS_DEVICE="cpu")
    assert out == ["float32", "cpu", "float32"]


def test_using_and_set_precision_beat_the_environment():
    code = "from optics import backend as be\nwith be.using(precision='float64'): "
    code += "print(be.zeros(1).dtype)\nbe.set_precision('float64'); print(be.zeros(1).dtype)"
    assert python_output(code, OPTICS_PRECISION="float32") == ["float64", "float64"]


@needs_torch
def test_environment_backend_torch_is_used_without_importing_torch_at_import():
    code = "import sys; from optics import backend as be; print('torch' in sys.modules); "
    code += "print(be.get_backend(), type(be.zeros(1)).__module__.split('.')[0])"
    assert python_output(code, OPTICS_BACKEND="torch") == ["False", "torch", "torch"]


@pytest.mark.parametrize(
    "var, value",
    [("OPTICS_BACKEND", "bogus"), ("OPTICS_PRECISION", "float16"), ("OPTICS_DEVICE", "tpu9")],
    ids=["backend", "precision", "device"],
)
def test_a_bad_environment_value_names_the_variable(var, value):
    result = run_python("import optics\noptics.backend.zeros(1)", **{var: value})
    assert result.returncode != 0
    assert var in result.stderr and value in result.stderr
    assert "ConfigurationError" in result.stderr and "choose one of" in result.stderr


# --- threads and tasks -------------------------------------------------------


def _run_in_thread(body):
    errors = []

    def target():
        try:
            body()
        except BaseException as exc:  # reported in the main thread
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    return thread, errors


def test_using_in_a_thread_does_not_leak_into_the_main_thread_and_vice_versa():
    entered, checked = threading.Event(), threading.Event()
    seen_in_thread = []

    def body():
        with be.using(precision="float32"):
            entered.set()
            assert checked.wait(10)
            seen_in_thread.append(be.get_precision())

    thread, errors = _run_in_thread(body)
    assert entered.wait(10)
    assert be.get_precision() == "float64"  # the thread's block is not visible here
    with be.using(precision="float64", device="meta"):
        checked.set()
        thread.join(10)
    assert not errors and seen_in_thread == ["float32"]


@needs_torch
def test_a_thread_inside_using_torch_leaves_the_main_thread_on_numpy():
    entered, checked = threading.Event(), threading.Event()
    seen = []

    def body():
        with be.using("torch"):
            entered.set()
            assert checked.wait(10)
            seen.append((be.get_backend(), type(be.zeros(1)).__module__.split(".")[0]))

    thread, errors = _run_in_thread(body)
    assert entered.wait(10)
    assert be.get_backend() == "numpy" and isinstance(be.zeros(1), np.ndarray)
    checked.set()
    thread.join(10)
    assert not errors and seen == [("torch", "torch")]


def test_a_new_thread_sees_the_process_default_not_the_callers_block():
    seen = []
    be.set_precision("float32")
    with be.using(precision="float64"):
        thread, errors = _run_in_thread(lambda: seen.append(be.get_precision()))
        thread.join(10)
    assert not errors and seen == ["float32"]


def test_using_in_concurrent_asyncio_tasks_stays_in_each_task():
    async def task(precision, results):
        with be.using(precision=precision):
            await asyncio.sleep(0)  # let the other task enter its block
            results.append((precision, be.get_precision()))

    async def main():
        results = []
        await asyncio.gather(task("float32", results), task("float64", results))
        return results

    assert sorted(asyncio.run(main())) == [("float32", "float32"), ("float64", "float64")]


# --- unavailable torch and mixed arrays --------------------------------------


def test_torch_missing_raises_backend_unavailable_with_the_install_command(monkeypatch):
    monkeypatch.setattr(_registry, "installed", lambda name: name == "numpy")
    assert be.available_backends() == ["numpy"]
    for choose in (lambda: be.set_backend("torch"), lambda: be.using("torch").__enter__()):
        with pytest.raises(BackendUnavailableError, match="pip install") as info:
            choose()
        assert isinstance(info.value, ImportError)
    assert be.get_backend() == "numpy"


TORCH_BLOCKED = "import sys; sys.modules['torch'] = None\nfrom optics import backend as be\n"


def test_without_torch_optics_imports_and_refuses_the_torch_backend():
    code = TORCH_BLOCKED + "print(be.available_backends(), float(be.sum(be.sqrt(be.ones(4)))))\n"
    code += "try:\n    be.set_backend('torch')\nexcept be.BackendUnavailableError as e:\n"
    code += "    print('refused:', e)\n"
    out = " ".join(python_output(code))
    assert out.startswith("['numpy'") and "'torch'" not in out.split("]")[0]
    assert " 4.0 refused:" in out
    assert "pip install" in out


def test_without_torch_an_environment_choice_of_torch_fails_on_first_use_with_install_hint():
    code = TORCH_BLOCKED + "print('imported')\n"
    code += "try:\n    be.zeros(2)\nexcept be.BackendUnavailableError as e:\n    print(e)\n"
    out = " ".join(python_output(code, OPTICS_BACKEND="torch"))
    assert out.startswith("imported ") and "OPTICS_BACKEND" not in out and "pip install" in out


@needs_torch
@pytest.mark.parametrize(
    "call",
    [
        lambda n, t: be.hypot(n, t),
        lambda n, t: be.hypot(t, n),
        lambda n, t: be.where(n > 0, n, t),
        lambda n, t: be.stack([n, t]),
        lambda n, t: be.matmul(n, t),
        lambda n, t: be.clip(t, n, None),
    ],
    ids=["hypot", "hypot-reversed", "where", "stack", "matmul", "clip"],
)
def test_mixing_numpy_and_torch_raises_type_error_naming_both(call):
    import torch

    with pytest.raises(TypeError) as info:
        call(np.ones(3), torch.ones(3, dtype=torch.float64))
    assert "numpy.ndarray" in str(info.value) and "torch.Tensor" in str(info.value)


def test_mixing_numpy_and_another_array_api_library_raises_type_error_naming_both():
    xp = pytest.importorskip("array_api_strict")
    with pytest.raises(TypeError) as info:
        be.maximum(np.ones(2), xp.ones(2))
    assert "numpy.ndarray" in str(info.value) and "array_api_strict" in str(info.value)
