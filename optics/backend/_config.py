"""Backend configuration: which array library, float precision and device.

The process-wide defaults come from the environment variables ``OPTICS_BACKEND``,
``OPTICS_PRECISION`` and ``OPTICS_DEVICE`` (read when optics is imported) and
from :func:`set_backend` / :func:`set_precision` / :func:`set_device`.  The
context manager :func:`using` overrides them through ``contextvars``, so an
override in one thread or task never leaks into another.
"""

from __future__ import annotations

import contextlib
import os
from contextvars import ContextVar

from ..errors import BackendUnavailableError

BACKENDS = ("numpy", "torch")
PRECISIONS = ("float64", "float32")

_defaults = {"backend": "numpy", "precision": "float64", "device": "cpu"}
_override = {
    "backend": ContextVar("optics_backend", default=None),
    "precision": ContextVar("optics_precision", default=None),
    "device": ContextVar("optics_device", default=None),
}


TORCH_MISSING = (
    "the torch backend needs PyTorch, which is not installed; "
    "install it with: pip install 'optics[torch]' (or pip install torch)"
)


def _check_backend(name):
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "torch" and not torch_installed():
        raise BackendUnavailableError(TORCH_MISSING)
    return name


def _check_precision(name):
    if name not in PRECISIONS:
        raise ValueError(f"unknown precision {name!r}; choose 'float64' or 'float32'")
    return name


def _check_device(name):
    if not isinstance(name, str) or not name:
        raise ValueError(f"device must be a non-empty string such as 'cpu' or 'cuda', not {name!r}")
    return name


_CHECKS = {"backend": _check_backend, "precision": _check_precision, "device": _check_device}


def torch_installed() -> bool:
    """True when PyTorch can be imported (checked without importing it)."""
    import importlib.util

    return importlib.util.find_spec("torch") is not None


def _get(key):
    value = _override[key].get()
    return _defaults[key] if value is None else value


def _set(key, value):
    # Only the process-wide default changes: an active ``using()`` block keeps its
    # choice until it exits (precedence: argument > using() > set_*/environment >
    # default).  Writing the override here too would be undone by the exit of the
    # innermost block only, so the result would depend on how blocks are nested.
    _defaults[key] = _CHECKS[key](value)


def get_backend() -> str:
    """Name of the active backend: ``"numpy"`` or ``"torch"``."""
    return _get("backend")


def set_backend(name: str) -> None:
    """Make ``name`` ("numpy" or "torch") the process-wide default backend.

    Inside a :func:`using` block that chose a backend, that choice still holds
    until the block exits.

    Raises
    ------
    ValueError
        For a name that is not a backend.
    BackendUnavailableError
        For "torch" when PyTorch is not installed (the message says how to install it).
    """
    _set("backend", name)


def available_backends() -> list[str]:
    """Backends that can be used here: numpy always, torch when installed."""
    return ["numpy", "torch"] if torch_installed() else ["numpy"]


def get_precision() -> str:
    """Default floating precision for new arrays: ``"float64"`` or ``"float32"``."""
    return _get("precision")


def set_precision(name: str) -> None:
    """Set the process-wide default float precision ("float64" or "float32")."""
    _set("precision", name)


def get_device() -> str:
    """Device for new torch tensors (``"cpu"``, ``"cuda"``, ``"cuda:1"`` ...)."""
    return _get("device")


def set_device(name: str) -> None:
    """Set the process-wide default device; NumPy arrays always live on the CPU."""
    _set("device", name)


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
    name : {"numpy", "torch"}, optional
        Backend for array creation inside the block.
    precision : {"float64", "float32"}, optional
        Default float dtype of new arrays.
    device : str, optional
        Device of new torch tensors ("cpu", "cuda", "cuda:1", ...).

    Raises
    ------
    ValueError
        For an unknown backend or precision, or an empty device.
    BackendUnavailableError
        For "torch" when PyTorch is not installed.

    Examples
    --------
    >>> from optics import backend as be
    >>> with be.using("numpy", precision="float32"):
    ...     be.zeros(3).dtype
    dtype('float32')
    """
    tokens = []
    try:
        for key, value in (("backend", name), ("precision", precision), ("device", device)):
            if value is not None:
                tokens.append((key, _override[key].set(_CHECKS[key](value))))
        yield
    finally:
        for key, token in reversed(tokens):
            _override[key].reset(token)


def _read_environment():
    """Apply OPTICS_BACKEND / OPTICS_PRECISION / OPTICS_DEVICE as the defaults."""
    for key, var in (
        ("backend", "OPTICS_BACKEND"),
        ("precision", "OPTICS_PRECISION"),
        ("device", "OPTICS_DEVICE"),
    ):
        value = os.environ.get(var, "").strip()
        if not value:
            continue
        if key == "backend" and value not in BACKENDS:
            raise ValueError(f"{var}={value!r} is not a backend; choose numpy or torch")
        # Availability of torch is checked when it is first used, so that a bad
        # environment never makes ``import optics`` itself fail on a missing torch.
        try:
            _defaults[key] = value if key == "backend" else _CHECKS[key](value)
        except ValueError as exc:
            raise ValueError(f"environment variable {var}: {exc}") from None


_read_environment()
