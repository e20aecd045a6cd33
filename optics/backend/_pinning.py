"""One configuration per call: the backend, precision and device a public call started on.

A pinned function holds the settings in force when it is called in this thread's
contextvars until it returns, so another thread's ``set_backend`` applies from the next
call on (docs/backend.md, "Threads and tasks").  Packages pin with :func:`pin_public`.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from contextvars import ContextVar

from . import _config

_PINNED = ContextVar("optics_pinned", default=False)


@contextlib.contextmanager
def _held(values):
    """Hold ``values`` ({"backend": ...}) as this context's overrides, marked pinned."""
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
    """Decorate ``function`` (or a generator function) so that a call runs under one configuration.

    The backend, precision and device in force when the call starts (a generator's: when
    it is created) hold until it returns, whatever other threads set meanwhile.  The
    result is a ``functools.wraps`` of ``function`` (``__wrapped__`` is the original).
    """
    if inspect.isgeneratorfunction(function):

        @functools.wraps(function)
        def call(*args, **kwargs):
            values = _snapshot()  # now, at creation: the steps below run later
            with _held(values):
                steps = function(*args, **kwargs)
            return _stepped(steps, values)

    else:

        @functools.wraps(function)
        def call(*args, **kwargs):
            with _held(_snapshot()):
                return function(*args, **kwargs)

    call.__optics_pinned__ = True
    return call


def is_pinned(function) -> bool:
    """True when ``function`` was made by :func:`pinned`."""
    return getattr(function, "__optics_pinned__", False)


def pin_public(namespace: dict, names) -> None:
    """Pin, in place, every plain function among a package's public ``names`` (``__all__``).

    ``namespace`` is the package's ``globals()``; classes, modules and other values stay.
    """
    for name in names:
        value = namespace.get(name)
        if inspect.isfunction(value) and not is_pinned(value):
            namespace[name] = pinned(value)
