"""Bad configuration is refused where it is read, naming the variable and the allowed values.

Environment variables, ``set_*`` calls and ``using()`` arguments all raise an
:class:`~optics.errors.OpticsError` subclass: ``ConfigurationError`` for a name
that is not a backend, precision or device kind, ``BackendUnavailableError``
for a device that is not present (CUDA on a machine without it).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from optics import BackendUnavailableError, OpticsError
from optics import backend as be
from optics.backend import _config
from optics.errors import ConfigurationError

ENV_VARS = ("OPTICS_BACKEND", "OPTICS_PRECISION", "OPTICS_DEVICE")
CUDA_HERE = any(
    d.startswith("cuda") for n in be.available_backends() for d in be.available_devices(n)
)
no_cuda = pytest.mark.skipif(CUDA_HERE, reason="this machine has CUDA")


@pytest.fixture(autouse=True)
def process_defaults(monkeypatch):
    """Each test starts from the built-in defaults and cannot leak its set_* calls."""
    monkeypatch.setattr(_config, "_defaults", dict(_config._defaults))
    monkeypatch.setattr(_config, "_ENV_PENDING", {})
    _config._defaults.update(backend="numpy", precision="float64", device="cpu")


def _run(code, **env_vars):
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    env.update(env_vars)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


BAD_ENVIRONMENT = [
    ("OPTICS_BACKEND", "bogus", "numpy, torch, jax"),
    ("OPTICS_PRECISION", "float16", "float64, float32"),
]


@pytest.mark.parametrize("var, value, allowed", BAD_ENVIRONMENT)
def test_a_bad_environment_name_fails_on_first_use_naming_the_variable_and_the_choices(
    var, value, allowed
):
    code = "import optics\nprint('imported')\noptics.backend.zeros(1)"
    result = _run(code, **{var: value})
    assert result.returncode != 0 and result.stdout.strip() == "imported"
    last = result.stderr.strip().splitlines()[-1]
    assert "ConfigurationError" in last and var in last and repr(value) in last and allowed in last


@pytest.mark.parametrize("command", ["analyze", "wavefront", "mtf"])
@pytest.mark.parametrize("var, value, allowed", BAD_ENVIRONMENT)
def test_every_command_reports_a_bad_environment_as_one_line_with_status_2(
    command, var, value, allowed
):
    code = f"import sys, optics.cli\nsys.exit(optics.cli.main([{command!r}, 'cooke_triplet']))"
    result = _run(code, **{var: value})
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and var in lines[0] and allowed in lines[0]
    assert lines[0].startswith(f"optics {command}: error:")


@no_cuda
def test_an_environment_cuda_device_without_cuda_fails_on_first_use_naming_the_variable():
    code = "from optics import backend as be\ntry:\n    be.get_device()\n"
    code += "except be.BackendUnavailableError as e:\n    print('refused:', e)\n"
    result = _run(code, OPTICS_DEVICE="cuda")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("refused:")
    assert "OPTICS_DEVICE='cuda'" in result.stdout and "available: cpu" in result.stdout


@pytest.mark.parametrize(
    "call, names",
    [
        (lambda: be.set_backend("bogus"), ("set_backend", "'bogus'", "numpy, torch, jax")),
        (lambda: be.set_precision("float16"), ("set_precision", "'float16'", "float64, float32")),
        (lambda: be.set_device("tpu"), ("set_device", "'tpu'", "cpu, cuda")),
        (lambda: be.using("bogus").__enter__(), ("using(name=...)", "'bogus'", "numpy")),
        (lambda: be.using(precision="half").__enter__(), ("using(precision=...)", "float32")),
        (lambda: be.using(device="cuda:x").__enter__(), ("using(device=...)", "'cuda:x'")),
    ],
    ids=["set_backend", "set_precision", "set_device", "using", "using-precision", "using-device"],
)
def test_an_unknown_name_raises_configuration_error_naming_the_argument_and_choices(call, names):
    with pytest.raises(ConfigurationError) as info:
        call()
    assert isinstance(info.value, OpticsError) and isinstance(info.value, ValueError)
    for name in names:
        assert name in str(info.value)
    assert (be.get_backend(), be.get_precision(), be.get_device()) == ("numpy", "float64", "cpu")


@no_cuda
@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_using_a_cuda_device_without_cuda_raises_backend_unavailable(backend):
    if backend not in be.available_backends():
        pytest.skip(f"{backend} is not installed")
    with pytest.raises(BackendUnavailableError) as info:
        with be.using(backend, device="cuda"):
            pass  # pragma: no cover - never entered
    message = str(info.value)
    assert "using(device=...)" in message and "'cuda'" in message and "available: cpu" in message
    assert be.get_backend() == "numpy"


@no_cuda
def test_set_device_cuda_without_cuda_raises_backend_unavailable_and_keeps_the_old_device():
    with pytest.raises(BackendUnavailableError, match=r"set_device: device 'cuda' is not"):
        be.set_device("cuda")
    assert be.get_device() == "cpu"
