"""What the layers above ask of a backend without knowing it: capabilities and optional hooks.

:mod:`optics.accel` is written against these, never a backend name or implementation module.
"""

from __future__ import annotations

from . import _config, _registry
from ._dispatch import configured, impl_of_all, impls_of


def capabilities(name: str | None = None) -> _registry.BackendInfo:
    """The :class:`~optics.backend.BackendInfo` of backend ``name`` (default: the configured)."""
    return _registry.info(_config.get_backend() if name is None else name)


def hook(name: str, *arrays):
    """The optional hook ``name`` of the backend of ``arrays``, or None where it has none.

    Parameters
    ----------
    name : str
        An optional name of the contract (``_contract.OPTIONAL``: ``"accumulate"`` ...).
    *arrays : arrays or numbers
        Operands that choose the backend; without any array, the configured backend.

    Returns
    -------
    callable or None
    """
    impl = impl_of_all(*arrays) if impls_of(arrays) else configured()
    return getattr(impl, name, None)


def on_backend_load(callback) -> None:
    """Call ``callback(name)`` for every backend loaded so far and each one loaded later.

    For set-up tied to the first array operation rather than import (the malloc
    thresholds of :mod:`optics.accel.allocator`).
    """
    _registry.LOAD_HOOKS.append(lambda impl: callback(impl.name))
    for name in list(_registry._LOADED):
        callback(name)
