"""Pinning: a call runs under the backend, precision and device it started on (contextvars)."""

from __future__ import annotations

import contextlib
import functools
import inspect
from contextvars import ContextVar

from . import _config

_PINNED = ContextVar("optics_pinned", default=False)


@contextlib.contextmanager
def _held(values):
    """Hold ``values`` ({"backend": ...}; None: nothing) as this context's pinned overrides."""
    if values is None:
        yield
        return
    tokens = [
        (_config._override[key], _config._override[key].set(value)) for key, value in values.items()
    ]
    pin = _PINNED.set(True)
    try:
        yield
    finally:
        _PINNED.reset(pin)
        for var, token in reversed(tokens):
            var.reset(token)


def _snapshot():
    """The settings in force now, or None inside a call that is already pinned."""
    if _PINNED.get():
        return None
    return {key: _config._get(key) for key in _config._override}


def _stepped(steps, values):
    """Run each step of the generator ``steps`` under ``values``."""
    try:
        while True:
            with _held(values):
                try:
                    item = next(steps)
                except StopIteration as stop:
                    return stop.value
            yield item
    finally:
        steps.close()


def pinned(function):
    """``function`` (or a generator function) wrapped to run under one configuration.

    The settings in force when a call starts (a generator's: when it is created) hold until
    it returns, whatever other threads set meanwhile; ``__wrapped__`` is the original.
    """
    generator = inspect.isgeneratorfunction(function)

    @functools.wraps(function)
    def call(*args, **kwargs):
        values = _snapshot()  # a generator's at creation: its steps run later
        with _held(values):
            result = function(*args, **kwargs)
        return _stepped(result, values) if generator else result

    call.__optics_pinned__ = True
    return call


def is_pinned(function) -> bool:
    """True when ``function`` was made by :func:`pinned`."""
    return getattr(function, "__optics_pinned__", False)


def pin_public(namespace: dict, names) -> None:
    """Pin, in the package's ``globals()`` ``namespace``, every plain function among ``names``."""
    for name in names:
        value = namespace.get(name)
        if inspect.isfunction(value) and not is_pinned(value):
            namespace[name] = pinned(value)
