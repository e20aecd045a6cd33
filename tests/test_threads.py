"""Threads never see each other's backend: traces in several threads while others switch.

Two ways of choosing a backend meet here.  A ``be.using(...)`` block lives in
its thread's ``contextvars`` and never shows in another thread.  The
process-wide defaults (``be.set_backend`` ...) are shared by design, so a
thread that chose nothing follows them, but one call runs under the settings in
force when it started (``be.pinned``): a switch by another thread mid-trace
applies from the next call on, and never mixes NumPy and Torch arrays inside
one trace (before pinning, 76 of 5059 such traces raised ``TypeError``).
"""

from __future__ import annotations

import collections
import sys
import threading
import time

import numpy as np
import pytest

import optics
import optics.analysis
import optics.imaging
import optics.io
import optics.optimize
import optics.thermal
import optics.tolerance
import optics.trace
from optics import backend as be

PX = np.linspace(-0.7, 0.7, 11)
PY = np.zeros(11)
FIELD = (0.0, 0.5)
SECONDS = 2.0  # how long the threads run side by side in each test
SWITCHES = 1000  # at least this many process-default switches happen meanwhile


def _installed(*names):
    return [name for name in names if name in be.available_backends()]


def _trace(optic, bundle=True):
    """A small real trace and (when ``bundle``) a bundle, as host arrays."""
    rays = optics.trace_rays(optic, FIELD, (PX, PY))
    x = be.to_numpy(optics.trace_bundle(optic, pupil=2).rays.x) if bundle else None
    return be.to_numpy(rays.y), x


@pytest.fixture(scope="module")
def optic():
    return optics.load("cooke_triplet")


@pytest.fixture(autouse=True)
def _restore_defaults():
    backend, precision = be.get_backend(), be.get_precision()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)  # hand the GIL over often: switches land mid-trace
    yield
    sys.setswitchinterval(interval)
    be.set_backend(backend)
    be.set_precision(precision)


def _switch_defaults(stop, names, switched):
    """Flip the process-wide backend and precision SWITCHES times, for at least SECONDS."""
    i, end = 0, time.monotonic() + SECONDS
    while i < SWITCHES or time.monotonic() < end:
        be.set_backend(names[i % len(names)])
        be.set_precision(("float64", "float32")[i % 2])
        i += 1
        time.sleep(0)  # let the tracing threads run between flips
    switched.append(i)


def _run(workers, switcher):
    stop = threading.Event()
    threads = [threading.Thread(target=w, args=(stop,)) for w in workers]
    threads.append(threading.Thread(target=switcher, args=(stop,)))
    for t in threads:
        t.start()
    threads[-1].join(120)  # the switcher's SWITCHES flips
    stop.set()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads)


def test_using_blocks_hold_in_every_thread_while_others_switch_the_defaults(optic):
    names = _installed("numpy", "torch", "jax")
    reference = {}
    for name in names:
        with be.using(name, precision="float64"):
            reference[name] = _trace(optic, bundle=name != "jax")  # eager JAX is slow
    done, errors = collections.Counter(), []
    switched = []

    def worker(name):
        def body(stop):
            while not stop.is_set():
                try:
                    with be.using(name, precision="float64"):
                        y, x = _trace(optic, bundle=name != "jax")  # eager JAX is slow
                    np.testing.assert_array_equal(y, reference[name][0])
                    if x is not None:
                        np.testing.assert_array_equal(x, reference[name][1])
                    done[name] += 1
                except Exception as exc:  # collected, reported by the main thread
                    errors.append(f"{name}: {type(exc).__name__}: {exc}")

        return body

    workers = [worker(name) for name in names] + [worker("numpy")]
    _run(workers, lambda stop: _switch_defaults(stop, names, switched))
    assert errors == []
    assert switched[0] >= SWITCHES
    assert all(done[name] > 0 for name in names), done


def test_a_call_runs_on_the_defaults_it_started_with_while_another_thread_switches(optic):
    names = _installed("numpy", "torch")
    reference = {}
    for name in names:
        with be.using(name, precision="float64"):
            reference[name] = _trace(optic)
    done, errors, switched = [0], [], []

    def body(stop):
        while not stop.is_set():
            try:
                y, x = _trace(optic)  # no using(): the process default, whatever it is now
                # Both backends agree to rounding; float32 calls are within float32 rounding.
                np.testing.assert_allclose(y, reference["numpy"][0], rtol=0, atol=1e-4)
                np.testing.assert_allclose(x, reference["numpy"][1], rtol=0, atol=1e-4)
                done[0] += 1
            except Exception as exc:  # collected, reported by the main thread
                errors.append(f"{type(exc).__name__}: {exc}")

    def switcher(stop):
        _switch_defaults(stop, names, switched)

    _run([body, body], switcher)
    assert errors == []
    assert done[0] > 20 and switched[0] >= SWITCHES


def test_a_generator_keeps_the_settings_it_was_created_under(optic):
    if "torch" not in be.available_backends():
        pytest.skip("torch is not installed")
    with be.using("numpy", precision="float64"):
        slices = optics.trace.iter_bundle(optic, pupil=2, method=optics.trace.Streamed(7))
    be.set_backend("torch")  # the process default changes before the first step
    first = next(slices)
    assert be.backend_of(first.rays.x) == "numpy"
    assert all(be.backend_of(s.rays.x) == "numpy" for s in slices)


PACKAGES = [
    optics,
    optics.trace,
    optics.analysis,
    optics.io,
    optics.optimize,
    optics.tolerance,
    optics.imaging,
    optics.thermal,
]


@pytest.mark.parametrize("module", PACKAGES, ids=lambda m: m.__name__)
def test_every_public_function_is_pinned(module):
    functions = [
        name
        for name in module.__all__
        if callable(getattr(module, name))
        and not isinstance(getattr(module, name), type)
        and not hasattr(getattr(module, name), "__path__")
    ]
    assert functions
    assert [name for name in functions if not be.is_pinned(getattr(module, name))] == []
