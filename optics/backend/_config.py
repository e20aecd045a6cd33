"""Backend configuration: library, precision and device of new arrays (docs/backend.md)."""

from __future__ import annotations

import contextlib
import os
from contextvars import ContextVar

from ..errors import BackendUnavailableError, ConfigurationError
from . import _registry

__all__ = (
    "get_backend set_backend backend_names available_backends autodiff_backends "
    "available_devices get_precision set_precision get_device set_device using check_environment"
).split()
PRECISIONS = ("float64", "float32")

_defaults = {"backend": _registry.names()[0], "precision": "float64", "device": "cpu"}
_override = {key: ContextVar(f"optics_{key}", default=None) for key in _defaults}
_ENV_VARS = {key: f"OPTICS_{key.upper()}" for key in _defaults}
#: OPTICS_* settings read at import, checked on first use so ``import optics`` never fails on them.
_ENV_PENDING = {
    key: (var, os.environ[var].strip())
    for key, var in _ENV_VARS.items()
    if os.environ.get(var, "").strip()
}


def _check_device(name, backend, source, available_source):
    """``name`` if its kind is known and ``backend`` (for NumPy: any backend) has the device."""
    kinds = dict.fromkeys(k for n in _registry.names() for k in _registry.info(n).device_kinds)
    kind = name.split(":")[0] if isinstance(name, str) else None
    index = name.split(":", 1)[1] if isinstance(name, str) and ":" in name else "0"
    if not kind or kind not in kinds or not index.isdigit():
        raise ConfigurationError(
            f"{source}: unknown device {name!r}; choose one of {', '.join(kinds)} "
            "(optionally with an index, e.g. 'cuda:1')"
        )
    backend = backend or get_backend()
    if kind == "cpu":
        return name
    candidates = [backend] if kind in _registry.info(backend).device_kinds else []
    if not candidates:  # NumPy ignores the device: any installed backend that has it will do
        candidates = [n for n in _registry.names() if kind in _registry.info(n).device_kinds]
    for candidate in candidates:
        if _registry.installed(candidate) and _registry.load(candidate).device_available(name):
            return name
    raise BackendUnavailableError(
        f"{available_source}: device {name!r} is not available to the {backend} backend here "
        f"(available: {', '.join(available_devices(backend))})"
    )


def _checked(key, value, source, backend=None, device_source=None):
    """``value`` validated for ``key``; a backend is selected too (its setup: jax's x64)."""
    if key == "device":
        return _check_device(value, backend, source, device_source or source)
    choices = _registry.names() if key == "backend" else PRECISIONS
    if value not in choices:
        raise ConfigurationError(
            f"{source}: unknown {key} {value!r}; choose one of {', '.join(choices)}"
        )
    if key == "backend":
        if not _registry.installed(value):
            raise BackendUnavailableError(_registry.missing_message(value))
        _registry.load(value).select()
    return value


def available_devices(backend=None):
    """Devices the backend (default: the configured one) can use here, "cpu" first."""
    backend = backend or get_backend()
    if not _registry.installed(backend):
        return ["cpu"]
    return _registry.load(backend).devices()


def _get(key):
    value = _override[key].get()
    if value is not None:
        return value
    if _ENV_PENDING:
        check_environment()  # the first read of any setting checks them all
    return _defaults[key]


def _set_default(key, value, source):
    _defaults[key] = _checked(key, value, source)
    _ENV_PENDING.pop(key, None)


def get_backend() -> str:
    """Name of the active backend (one of :func:`available_backends`)."""
    return _get("backend")


def set_backend(name: str) -> None:
    """Make ``name`` ("numpy", "torch", "jax") the process-wide default backend.

    An enclosing :func:`using` block that chose a backend keeps its choice until it exits.
    Raises as :func:`using` does (a ConfigurationError is a ValueError too).
    """
    _set_default("backend", name, "set_backend")


def backend_names() -> tuple:
    """Every registered backend name, installed or not (numpy first)."""
    return _registry.names()


def autodiff_backends() -> list[str]:
    """Installed backends that compute exact derivatives (torch, jax)."""
    return [n for n in available_backends() if _registry.info(n).autodiff is not None]


def available_backends() -> list[str]:
    """Backends that can be used here: numpy always, torch and jax when installed."""
    return [name for name in _registry.names() if _registry.installed(name)]


def get_precision() -> str:
    """Default floating precision for new arrays: ``"float64"`` or ``"float32"``."""
    return _get("precision")


def set_precision(name: str) -> None:
    """Set the process-wide default float precision ("float64" or "float32")."""
    _set_default("precision", name, "set_precision")


def get_device() -> str:
    """Device for new arrays of device-aware backends (``"cpu"``, ``"cuda:1"`` ...)."""
    return _get("device")


def set_device(name: str) -> None:
    """Set the process-wide default device (NumPy arrays stay on the CPU); raises as ``using``."""
    _set_default("device", name, "set_device")


@contextlib.contextmanager
def using(name: str | None = None, *, precision: str | None = None, device: str | None = None):
    """Choose backend, precision and/or device for this block, in this thread or task only.

    ``None`` keeps the enclosing choice; explicit ``dtype``/``device`` arguments still win.

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
        For a backend not installed (the message says how to install it) or a device not present.
    """
    checked = {}
    for key, value in {"backend": name, "precision": precision, "device": device}.items():
        if value is not None:
            source = f"using({'name' if key == 'backend' else key}=...)"
            checked[key] = _checked(key, value, source, checked.get("backend"))
    tokens = [(key, _override[key].set(value)) for key, value in checked.items()]
    try:
        yield
    finally:
        for key, token in reversed(tokens):
            _override[key].reset(token)


def check_environment() -> None:
    """Validate every OPTICS_* environment setting not yet used; raise on the first bad one.

    The errors are :func:`using`'s, naming the variable and its value.
    """
    for key in list(_ENV_PENDING):
        if key not in _ENV_PENDING:
            continue  # checked meanwhile, by a read inside an earlier check
        var, value = _ENV_PENDING.pop(key)
        source = f"environment variable {var}"
        try:
            _checked(key, value, source, device_source=f"{source}={value!r}")
        except BaseException:
            _ENV_PENDING[key] = (var, value)  # still pending (and raising) while it is wrong
            raise
        _defaults[key] = value
