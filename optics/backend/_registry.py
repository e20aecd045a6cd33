"""The backend registry: name -> lazy loader -> capabilities; only it knows backends by name."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from dataclasses import dataclass

from ..errors import BackendUnavailableError
from . import _contract


@dataclass(frozen=True)
class BackendInfo:
    """What optics knows about one backend before importing it.

    Attributes
    ----------
    name : str
        The name users choose it by (``be.set_backend(name)``, ``--backend``).
    module : str
        Implementation module: private to ``optics.backend`` when it starts with "_".
    requires : str or None
        Top-level package that must be importable (None: always available).
    install : str
        How to install it, quoted in :class:`BackendUnavailableError`.
    autodiff : {"tape", "transform", None}
        How it differentiates: recorded operations (torch), function transforms (jax), not.
    compile : bool
        Whether it compiles a whole trace into one graph (``compiled=True``).
    device_kinds : tuple of str
        Device kinds it places arrays on ("cpu", "cuda" ...; an index may follow).
    float64 : bool
        Whether it computes in float64.
    ray_block : int or None
        Rays per block of a CPU eager no-grad trace (accel.ray_block_size); None: one batch.
    batch_buckets : bool
        Whether compiled traces pad batch sizes to shared buckets (torch) or compile each (jax).
    slow_dispatch : bool
        Whether eager operations cost tens of µs (jax): scalar work runs in NumPy (accel.on_host).
    """

    name: str
    module: str
    requires: str | None = None
    install: str = ""
    autodiff: str | None = None
    compile: bool = False
    device_kinds: tuple = ("cpu",)
    float64: bool = True
    ray_block: int | None = None
    batch_buckets: bool = False
    slow_dispatch: bool = False


_REGISTRY: dict[str, BackendInfo] = {}


def register(info: BackendInfo) -> None:
    """Add (or replace) a backend; the first registered one is the default."""
    _REGISTRY[info.name] = info


def unregister(name: str) -> None:
    """Remove a backend registered from outside optics (the built-in ones stay)."""
    if name in ("numpy", "torch", "jax"):
        raise ValueError(f"the built-in backend {name!r} cannot be removed")
    _REGISTRY.pop(name, None)
    impl = _LOADED.pop(name, None)
    for forget in FORGET_HOOKS:  # caches that map array types to implementations
        forget(impl)


def names() -> tuple:
    """Every registered backend name, in registration order (numpy first)."""
    return tuple(_REGISTRY)


def info(name: str) -> BackendInfo:
    """The :class:`BackendInfo` of a registered backend (KeyError otherwise)."""
    return _REGISTRY[name]


def installed(name: str) -> bool:
    """True when ``name`` is registered and its library can be imported (without importing it)."""
    if name not in names():
        return False
    requires = _REGISTRY[name].requires
    if requires is None:
        return True
    if requires in sys.modules:
        return sys.modules[requires] is not None
    try:
        return importlib.util.find_spec(requires) is not None
    except (ImportError, ValueError):
        return False


def missing_message(name: str) -> str:
    """The one message for a backend whose library is not installed."""
    entry = _REGISTRY[name]
    return (
        f"the {name} backend needs {entry.requires}, which is not installed; "
        f"install it with: {entry.install}"
    )


_LOADED: dict[str, object] = {}
#: Called with an unregistered implementation module (``_dispatch`` drops its types).
FORGET_HOOKS: list = []
#: Called with each newly loaded implementation module, so the registry imports no layer above.
LOAD_HOOKS: list = []


def load(name: str):
    """The implementation module of ``name``, imported and checked on first use."""
    impl = _LOADED.get(name)
    if impl is not None:
        return impl
    entry = _REGISTRY[name]
    if not installed(name):
        raise BackendUnavailableError(missing_message(name))
    try:
        private = entry.module.startswith("_")
        impl = importlib.import_module(f"{__package__}.{entry.module}" if private else entry.module)
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise BackendUnavailableError(missing_message(name)) from exc
    _contract.verify(impl, entry)  # every required name is there, or a clear refusal now
    _LOADED[name] = impl
    for hook in LOAD_HOOKS:
        hook(impl)
    return impl


def loaded() -> list:
    """Implementation modules of backends whose library is imported (only those can own arrays)."""
    return [
        load(name)
        for name, entry in _REGISTRY.items()
        if name in _LOADED or entry.requires is None or sys.modules.get(entry.requires) is not None
    ]


register(BackendInfo("numpy", "_numpy_impl", ray_block=2**15))
register(
    BackendInfo(
        "torch",
        "_torch_impl",
        requires="torch",
        install="pip install 'optics[torch]' (or pip install torch)",
        autodiff="tape",
        compile=True,
        device_kinds=("cpu", "cuda", "mps", "meta"),
        ray_block=2**16,
        batch_buckets=True,
    )
)
register(
    BackendInfo(
        "jax",
        "_jax_impl",
        requires="jax",
        install="pip install 'optics[jax]' (or pip install jax)",
        autodiff="transform",
        compile=True,
        device_kinds=("cpu", "cuda", "gpu"),
        slow_dispatch=True,
    )
)
