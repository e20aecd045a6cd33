"""Backend configuration: which array library, float precision and device.

The process-wide defaults come from the environment variables ``OPTICS_BACKEND``,
``OPTICS_PRECISION`` and ``OPTICS_DEVICE`` (read when optics is imported) and
from :func:`set_backend` / :func:`set_precision` / :func:`set_device`.  The
context manager :func:`using` overrides them through ``contextvars``, so an
override in one thread or task never leaks into another.

Every value is validated where it is read: an unknown name raises
:class:`~optics.errors.ConfigurationError` naming the variable or argument and
listing the allowed values; a backend or device that is not available here
raises :class:`~optics.errors.BackendUnavailableError`.
"""

from __future__ import annotations

import contextlib
import os
from contextvars import ContextVar

from ..errors import BackendUnavailableError, ConfigurationError
from . import _registry

PRECISIONS = ("float64", "float32")

_defaults = {"backend": _registry.names()[0], "precision": "float64", "device": "cpu"}
_override = {
    "backend": ContextVar("optics_backend", default=None),
    "precision": ContextVar("optics_precision", default=None),
    "device": ContextVar("optics_device", default=None),
}
#: Environment settings not yet checked: key -> (variable, value) (see _read_environment).
_ENV_PENDING: dict[str, tuple[str, str]] = {}


def _select(name, source):
    """Validate a backend name and load it (selection runs the backend's setup, e.g. x64)."""
    if name not in _registry.names():
        raise ConfigurationError(
            f"{source}: unknown backend {name!r}; choose one of {', '.join(_registry.names())}"
        )
    if not installed(name):
        raise BackendUnavailableError(_registry.missing_message(name))
    _registry.load(name).select()
    return name


def _check_precision(name, source):
    if name not in PRECISIONS:
        raise ConfigurationError(
            f"{source}: unknown precision {name!r}; choose one of {', '.join(PRECISIONS)}"
        )
    return name


def device_kinds():
    """Every device kind some registered backend knows ("cpu", "cuda" ...)."""
    kinds = []
    for name in _registry.names():
        kinds.extend(k for k in _registry.info(name).device_kinds if k not in kinds)
    return kinds


def _check_device_name(name, source):
    """A device string of a known kind ("cpu", "cuda", "cuda:1"), else ConfigurationError."""
    kinds = device_kinds()
    kind = name.split(":")[0] if isinstance(name, str) else None
    index = name.split(":", 1)[1] if isinstance(name, str) and ":" in name else "0"
    if not kind or kind not in kinds or not index.isdigit():
        raise ConfigurationError(
            f"{source}: unknown device {name!r}; choose one of {', '.join(kinds)} "
            "(optionally with an index, e.g. 'cuda:1')"
        )
    return name


def _check_device_available(name, backend, source):
    """BackendUnavailableError unless ``backend`` (or, for NumPy, any backend) has the device."""
    kind = name.split(":")[0]
    if kind == "cpu":
        return name
    candidates = [backend] if kind in _registry.info(backend).device_kinds else []
    if not candidates:  # NumPy ignores the device: any installed backend that has it will do
        candidates = [n for n in _registry.names() if kind in _registry.info(n).device_kinds]
    for candidate in candidates:
        if installed(candidate) and _registry.load(candidate).device_available(name):
            return name
    found = available_devices(backend)
    raise BackendUnavailableError(
        f"{source}: device {name!r} is not available to the {backend} backend here "
        f"(available: {', '.join(found)})"
    )


def available_devices(backend=None):
    """Devices the backend (default: the configured one) can use here, "cpu" first."""
    backend = backend or get_backend()
    if not installed(backend):
        return ["cpu"]
    return _registry.load(backend).devices()


def installed(name) -> bool:
    """True when the library of backend ``name`` can be imported (without importing it)."""
    return name in _registry.names() and _registry.installed(name)


def _get(key):
    value = _override[key].get()
    if value is not None:
        return value
    if _ENV_PENDING:
        check_environment()  # the first read of any setting checks them all
    return _defaults[key]


def get_backend() -> str:
    """Name of the active backend (one of :func:`available_backends`)."""
    return _get("backend")


def set_backend(name: str) -> None:
    """Make ``name`` ("numpy", "torch" or "jax") the process-wide default backend.

    Inside a :func:`using` block that chose a backend, that choice still holds
    until the block exits (precedence: argument > using() > set_*/environment >
    default).

    Raises
    ------
    ConfigurationError
        For a name that is not a backend (a ValueError too).
    BackendUnavailableError
        When the backend's library is not installed (the message says how to install it).
    """
    _defaults["backend"] = _select(name, "set_backend")
    _ENV_PENDING.pop("backend", None)


def backend_names() -> tuple:
    """Every registered backend name, installed or not (numpy first)."""
    return _registry.names()


def autodiff_backends() -> list[str]:
    """Installed backends that compute exact derivatives (torch, jax)."""
    return [n for n in available_backends() if _registry.info(n).autodiff is not None]


def available_backends() -> list[str]:
    """Backends that can be used here: numpy always, torch and jax when installed."""
    return [name for name in _registry.names() if installed(name)]


def get_precision() -> str:
    """Default floating precision for new arrays: ``"float64"`` or ``"float32"``."""
    return _get("precision")


def set_precision(name: str) -> None:
    """Set the process-wide default float precision ("float64" or "float32")."""
    _defaults["precision"] = _check_precision(name, "set_precision")
    _ENV_PENDING.pop("precision", None)


def get_device() -> str:
    """Device for new arrays of device-aware backends (``"cpu"``, ``"cuda:1"`` ...)."""
    return _get("device")


def set_device(name: str) -> None:
    """Set the process-wide default device; NumPy arrays always live on the CPU.

    Raises
    ------
    ConfigurationError
        For a device kind no backend knows.
    BackendUnavailableError
        For a device that is not present here (``"cuda"`` without CUDA).
    """
    name = _check_device_name(name, "set_device")
    _defaults["device"] = _check_device_available(name, get_backend(), "set_device")
    _ENV_PENDING.pop("device", None)


@contextlib.contextmanager
def using(name: str | None = None, *, precision: str | None = None, device: str | None = None):
    """Temporarily choose backend, precision and/or device in this context only.

    The choice lives in ``contextvars``: it holds in this thread (or asyncio
    task) until the block exits, also when the block raises, and never shows in
    another thread.  A ``None`` argument keeps the enclosing choice.  Explicit
    ``dtype``/``device`` arguments of creation functions still win over it, and
    it wins over :func:`set_backend` and friends and the environment.

    Parameters
    ----------
    name : {"numpy", "torch", "jax"}, optional
        Backend for array creation inside the block.
    precision : {"float64", "float32"}, optional
        Default float dtype of new arrays.
    device : str, optional
        Device of new arrays ("cpu", "cuda", "cuda:1", ...).

    Raises
    ------
    ConfigurationError
        For an unknown backend, precision or device kind (nothing changes).
    BackendUnavailableError
        For a backend that is not installed or a device that is not present.

    Examples
    --------
    >>> from optics import backend as be
    >>> with be.using("numpy", precision="float32"):
    ...     be.zeros(3).dtype
    dtype('float32')
    """
    checked = {}
    if name is not None:
        checked["backend"] = _select(name, "using(name=...)")
    if precision is not None:
        checked["precision"] = _check_precision(precision, "using(precision=...)")
    if device is not None:
        device = _check_device_name(device, "using(device=...)")
        backend = checked.get("backend") or get_backend()
        checked["device"] = _check_device_available(device, backend, "using(device=...)")
    tokens = [(key, _override[key].set(value)) for key, value in checked.items()]
    try:
        yield
    finally:
        for key, token in reversed(tokens):
            _override[key].reset(token)


_ENV_VARS = {
    "backend": "OPTICS_BACKEND",
    "precision": "OPTICS_PRECISION",
    "device": "OPTICS_DEVICE",
}


def _read_environment():
    """Note OPTICS_BACKEND / OPTICS_PRECISION / OPTICS_DEVICE; they are checked on first use.

    ``import optics`` never fails on them: a misspelt name, a library that is
    not installed or a device that is not present raises
    :class:`~optics.errors.ConfigurationError` (or BackendUnavailableError)
    naming the variable on the first read of that setting
    (:func:`check_environment`), where a caller's error handling is in place
    (the ``optics`` command reports it as one line, exit status 2).
    """
    for key, var in _ENV_VARS.items():
        value = os.environ.get(var, "").strip()
        if value:
            _ENV_PENDING[key] = (var, value)


def _check_environment(key):
    """First use of an environment choice: validate it, then make it the default."""
    var, value = _ENV_PENDING.pop(key)
    source = f"environment variable {var}"
    try:
        if key == "backend":
            _select(value, source)
        elif key == "precision":
            _check_precision(value, source)
        else:
            _check_device_name(value, source)
            _check_device_available(value, get_backend(), f"{source}={value!r}")
    except BaseException:
        _ENV_PENDING[key] = (var, value)  # still pending (and raising) while it is wrong
        raise
    _defaults[key] = value


def check_environment() -> None:
    """Validate every OPTICS_* environment setting not yet used; raise on the first bad one.

    Raises
    ------
    ConfigurationError
        A variable names an unknown backend, precision or device.
    BackendUnavailableError
        Its backend's library or its device is not available here.
    """
    for key in list(_ENV_PENDING):
        if key in _ENV_PENDING:
            _check_environment(key)


_read_environment()
