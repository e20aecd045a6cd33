"""What the layers above ask of a backend without knowing it: capabilities and optional hooks.

:mod:`optics.accel` is written against these, never a backend name or implementation module.
A hook a backend does not define is :class:`DefaultHooks`' method of that name: the plain
form, with the values the backend's own hook would give.
"""

from __future__ import annotations

import contextlib

from . import _config, _contract, _registry
from ._dispatch import configured, impl_of_all, impls_of
from ._math import concatenate


class DefaultHooks(_contract.Hooks):
    """The optional hooks of the contract (``_contract.Hooks``) where a backend has none.

    Each method has the signature of the hook it stands in for and computes the plain
    expression (a fresh array, a slice, a direct call); the one instance is
    :data:`DEFAULTS`, and ``be.hook(name, *arrays)`` returns its method when the backend
    of ``arrays`` lacks ``name``.
    """

    #: ``compile_function`` is not given ``rows=``, ``chunk_rows=`` or ``runner=``.
    compile_uses_rows = False

    def accumulate(self, total, term, weight, /):
        """``total + weight * term``, a fresh array.

        Parameters
        ----------
        total : array
            Any shape.
        term, weight : array or number
            Broadcasting against ``total``.

        Returns
        -------
        array
            The broadcast shape.
        """
        return total + weight * term

    def add_product(self, a, t, b, /):
        """``a + t * b``, a fresh array.

        Parameters
        ----------
        a, t, b : array or number
            Broadcasting together.

        Returns
        -------
        array
            The broadcast shape.
        """
        return a + t * b

    def recompute(self, fn, /, *arrays):
        """``fn(*arrays)`` as it is: its backward keeps its intermediates.

        Parameters
        ----------
        fn : callable
            Pure in ``arrays`` and the parameters it closes over.
        *arrays : array
            Its inputs.

        Returns
        -------
        object
            ``fn``'s result.
        """
        return fn(*arrays)

    def compiled_stage(self, fn, state, /):
        """``fn(state)`` inside the enclosing compiled function, no stage of its own.

        Parameters
        ----------
        fn : callable
            Maps ``state`` to a tuple of the same shapes and dtypes.
        state : tuple of array
            The stage's inputs.

        Returns
        -------
        tuple of array
            ``fn(state)``.
        """
        return fn(state)

    def row_view(self, x, start, size, /):
        """Rows ``start`` to ``start + size`` of ``x`` as a plain slice.

        Parameters
        ----------
        x : array, shape (rows, ...)
        start, size : int

        Returns
        -------
        array, shape (size, ...)
        """
        return x[start : start + size]

    def join_rows(self, pieces, owned, /):
        """The rows ``(lo, hi)`` of each piece, concatenated eagerly.

        Parameters
        ----------
        pieces : list of array, each shape (size, ...)
        owned : list of (int, int)
            The rows each piece contributes.

        Returns
        -------
        array, shape (sum of hi - lo, ...)
        """
        return concatenate([piece[lo:hi] for piece, (lo, hi) in zip(pieces, owned)])

    def block_until_ready(self, out, /):
        """``out`` as returned: nothing to wait for.

        Parameters
        ----------
        out : object
            Results (arrays, or a structure of them).

        Returns
        -------
        object
            ``out`` itself.
        """
        return out

    @contextlib.contextmanager
    def intra_op_threads(self, count=None, /):
        """Context manager leaving the backend's own threading as it is.

        Parameters
        ----------
        count : int, optional
            Ignored: no thread count is chosen.

        Returns
        -------
        context manager
            Yields None: the count is not known.
        """
        yield None


#: The one instance ``be.hook`` falls back on.
DEFAULTS = DefaultHooks()
_NAMES = frozenset(_contract.OPTIONAL)


def capabilities(name: str | None = None) -> _registry.BackendInfo:
    """The :class:`~optics.backend.BackendInfo` of backend ``name`` (default: the configured).

    Parameters
    ----------
    name : str, optional
        A registered backend name.

    Returns
    -------
    BackendInfo
    """
    return _registry.info(_config.get_backend() if name is None else name)


def hook(name: str, *arrays):
    """The optional hook ``name`` of the backend of ``arrays``, or its default.

    Parameters
    ----------
    name : str
        An optional name of the contract (``_contract.OPTIONAL``: ``"accumulate"`` ...).
    *arrays : arrays or numbers
        Operands that choose the backend; without any array, the configured backend.

    Returns
    -------
    callable or bool
        The backend's own hook, else :class:`DefaultHooks`' (``compile_uses_rows``: a bool).

    Raises
    ------
    ValueError
        ``name`` is not a hook of the contract.
    """
    impl = impl_of_all(*arrays) if impls_of(arrays) else configured()
    return hook_of(impl, name)


def hook_of(impl, name: str):
    """The hook ``name`` of the implementation module ``impl``, or :data:`DEFAULTS`'."""
    if name not in _NAMES:
        raise ValueError(
            f"{name!r} is not an optional hook of the backend contract; the hooks are "
            f"{', '.join(_contract.OPTIONAL)}"
        )
    own = getattr(impl, name, None)
    return getattr(DEFAULTS, name) if own is None else own


def on_backend_load(callback) -> None:
    """Call ``callback(name)`` for every backend loaded so far and each one loaded later.

    For set-up tied to the first array operation rather than import (the malloc
    thresholds of :mod:`optics.accel.allocator`).
    """
    _registry.LOAD_HOOKS.append(lambda impl: callback(impl.name))
    for name in list(_registry._LOADED):
        callback(name)
