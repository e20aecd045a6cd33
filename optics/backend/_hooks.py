"""What the layers above ask of a backend without knowing it: capabilities and optional hooks.

:func:`capabilities` is the registry's :class:`~optics.backend.BackendInfo`
of a backend (the configured one by default), and :func:`hook` one of the
optional names of the contract (:data:`optics.backend._contract.OPTIONAL`)
as the backend of some arrays defines it, or None.  The speed strategies of
:mod:`optics.accel` are written against these (and :func:`on_backend_load`),
never against a backend name or an implementation module.
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
        An optional name of the backend contract (``"accumulate"``,
        ``"add_product"``, ``"compiled_stage"`` ...).
    *arrays : arrays or numbers
        Operands that choose the backend (Python numbers adapt); without any
        array, the configured backend.

    Returns
    -------
    callable or None
    """
    impl = impl_of_all(*arrays) if impls_of(arrays) else configured()
    return getattr(impl, name, None)


def on_backend_load(callback) -> None:
    """Call ``callback(name)`` for every backend loaded so far and each one loaded later.

    For set-up that the layers above tie to the first array operation (the
    process's malloc thresholds, :mod:`optics.accel.allocator`): it runs where
    the caller's error handling is already in place, not at import.
    """
    _registry.LOAD_HOOKS.append(lambda impl: callback(impl.name))
    for name in list(_registry._LOADED):
        callback(name)
