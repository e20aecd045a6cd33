"""One configuration per call: the backend, precision and device a public call started on.

:func:`~optics.backend.set_backend` and its siblings change process-wide
defaults, which every thread reads.  Without a pin, a trace running in one
thread while another thread calls ``set_backend("torch")`` would create its
first arrays with NumPy and its later ones with Torch, and fail (or mix
precisions) half-way.  A pinned function reads the three settings once, when it
is called, and holds them in this thread's ``contextvars`` until it returns:
the other thread's change applies from the next call on.  Calls nested inside a
pinned call run under the outer call's pin; a :func:`~optics.backend.using`
block inside it still overrides it, as everywhere.

The public functions of optics' packages are pinned with :func:`pin_public`.
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
    """Hold ``values`` ({"backend": ..., ...}) as this context's overrides, and mark it pinned."""
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
    """Decorate ``function`` so that one call runs under one backend, precision and device.

    The settings in force when the call starts hold until it returns, whatever
    other threads set meanwhile.  A generator function is pinned to the
    settings in force when the generator is created, for every step.

    Parameters
    ----------
    function : callable
        A function or generator function.

    Returns
    -------
    callable
        The pinned function (``functools.wraps`` of ``function``; ``__wrapped__``
        is the original).
    """
    if inspect.isgeneratorfunction(function):

        @functools.wraps(function)
        def generator(*args, **kwargs):
            values = _snapshot()  # now, at creation: the steps below run later
            with _held(values):
                steps = function(*args, **kwargs)
            return _stepped(steps, values)

        generator.__optics_pinned__ = True
        return generator

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
    """Pin every plain function among a package's public ``names``, in place.

    Parameters
    ----------
    namespace : dict
        The package's ``globals()``.
    names : iterable of str
        Its public names (``__all__``); classes, modules and other values are left alone.
    """
    for name in names:
        value = namespace.get(name)
        if inspect.isfunction(value) and not is_pinned(value):
            namespace[name] = pinned(value)
