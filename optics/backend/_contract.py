"""The backend contract as typed protocols: every name a backend module defines, and its hooks.

A backend is a module that satisfies :class:`Backend` structurally (a type checker accepts a
module for a protocol); :class:`AutodiffBackend` and :class:`CompilingBackend` add what a
``BackendInfo`` with ``autodiff`` or ``compile`` promises, and :class:`Hooks` lists the
optional names optics asks for with ``be.hook`` (their defaults: ``_hooks.DefaultHooks``).
Parameters before ``/`` are passed by position, those after ``*`` by keyword: :func:`verify`
checks each callable's signature against them when the module first loads.
docs/backend.md, "The contract", lists the same names (tests/test_architecture_doc.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol, runtime_checkable

from ..errors import BackendUnavailableError

Array = Any  # one array of the backend (an ndarray, a tensor, a jax.Array, a tracer)
DType = Any  # one dtype of the backend (or a NumPy dtype it converts)


@runtime_checkable
class Backend(Protocol):
    """What every backend module defines (``_numpy_impl`` is the reference)."""

    # identity and dtypes
    name: str  # the registered name ("numpy")
    array_types: tuple  # the classes of its arrays (dispatch tests isinstance against them)
    FLOAT_DTYPES: Mapping  # "float64" and "float32" -> its dtypes
    INT64: DType  # its 64-bit integer dtype
    BOOL: DType  # its boolean dtype

    def float_dtype(self, precision: str, /) -> DType:
        """The dtype of ``precision`` ("float64" or "float32")."""

    def owns_dtype(self, dtype: Any, /) -> bool:
        """True when ``dtype`` is one of this library's dtype objects."""

    def finfo(self, dtype: DType, /) -> Any:
        """Floating-point limits of ``dtype`` (eps, tiny, max)."""

    def is_floating(self, x: Array, /) -> bool:
        """True when ``x`` has a real floating dtype."""

    def astype(self, x: Array, dtype: DType, /) -> Array:
        """``x`` converted to ``dtype`` (no copy when it has it)."""

    # creation: a dtype keyword (None: the library's default) and a device string
    def asarray(
        self, obj: Any, /, *, dtype: DType = None, device: str | None = None, copy: bool = False
    ) -> Array:
        """``obj`` as an array (no copy when it already is one, unless ``copy``)."""

    def zeros(self, shape: Any, /, *, dtype: DType, device: str | None = None) -> Array:
        """Zeros of ``shape`` (an int or a tuple)."""

    def ones(self, shape: Any, /, *, dtype: DType, device: str | None = None) -> Array:
        """Ones of ``shape``."""

    def empty(self, shape: Any, /, *, dtype: DType, device: str | None = None) -> Array:
        """An uninitialised array of ``shape``."""

    def full(self, shape: Any, value: Any, /, *, dtype: DType, device: str | None = None) -> Array:
        """``value`` everywhere; a value that carries a gradient stays attached."""

    def arange(self, start, stop, step, /, *, dtype: DType, device: str | None = None) -> Array:
        """Evenly spaced values in [start, stop)."""

    def linspace(self, start, stop, num, /, *, dtype: DType, device: str | None = None) -> Array:
        """``num`` values from ``start`` to ``stop`` inclusive."""

    def eye(self, n: int, /, *, dtype: DType, device: str | None = None) -> Array:
        """The n x n identity."""

    def zeros_like(self, x: Array, /, *, dtype: DType = None) -> Array:
        """Zeros with the shape, dtype (unless given) and device of ``x``."""

    def ones_like(self, x: Array, /, *, dtype: DType = None) -> Array:
        """Ones like ``x``."""

    def empty_like(self, x: Array, /, *, dtype: DType = None) -> Array:
        """Uninitialised like ``x``."""

    def full_like(self, x: Array, value: Any, /, *, dtype: DType = None) -> Array:
        """``value`` like ``x``; a value that carries a gradient stays attached."""

    # elementwise math, one meaning per name (NumPy's; angles in radians)
    def sqrt(self, x: Array, /) -> Array:
        """Square root."""

    def sin(self, x: Array, /) -> Array:
        """Sine."""

    def cos(self, x: Array, /) -> Array:
        """Cosine."""

    def tan(self, x: Array, /) -> Array:
        """Tangent."""

    def arcsin(self, x: Array, /) -> Array:
        """Inverse sine."""

    def arccos(self, x: Array, /) -> Array:
        """Inverse cosine."""

    def arctan(self, x: Array, /) -> Array:
        """Inverse tangent."""

    def arctan2(self, y: Array, x: Array, /) -> Array:
        """Quadrant-aware arctan(y / x); either operand may be a Python number."""

    def exp(self, x: Array, /) -> Array:
        """Exponential."""

    def log(self, x: Array, /) -> Array:
        """Natural logarithm."""

    def abs(self, x: Array, /) -> Array:
        """Absolute value."""

    def sign(self, x: Array, /) -> Array:
        """-1, 0 or 1."""

    def square(self, x: Array, /) -> Array:
        """x * x."""

    def floor(self, x: Array, /) -> Array:
        """Largest integer not above x."""

    def copysign(self, a: Array, b: Array, /) -> Array:
        """Magnitude of ``a``, sign of ``b``."""

    def hypot(self, a: Array, b: Array, /) -> Array:
        """sqrt(a^2 + b^2) without overflow."""

    def maximum(self, a: Array, b: Array, /) -> Array:
        """Elementwise maximum; NaN propagates."""

    def minimum(self, a: Array, b: Array, /) -> Array:
        """Elementwise minimum; NaN propagates."""

    def isfinite(self, x: Array, /) -> Array:
        """True where x is neither inf nor NaN."""

    def isnan(self, x: Array, /) -> Array:
        """True where x is NaN."""

    def logical_and(self, a: Array, b: Array, /) -> Array:
        """Elementwise and."""

    def logical_or(self, a: Array, b: Array, /) -> Array:
        """Elementwise or."""

    def logical_not(self, x: Array, /) -> Array:
        """Elementwise not."""

    def where(self, cond: Array, a: Any, b: Any, /) -> Array:
        """``a`` where ``cond`` else ``b``; a Python number takes the array operand's dtype."""

    def clip(self, x: Array, lo: Any, hi: Any, /) -> Array:
        """``x`` limited to [lo, hi]; either bound None or an array."""

    def matmul(self, a: Array, b: Array, /) -> Array:
        """Matrix product with NumPy broadcasting."""

    # reductions: 0-d arrays, never Python numbers (axis an int or a tuple)
    def sum(self, x: Array, /, *, axis: Any = None, keepdims: bool = False) -> Array:
        """Sum over ``axis`` (None: all)."""

    def mean(self, x: Array, /, *, axis: Any = None, keepdims: bool = False) -> Array:
        """Mean; NaN propagates; float64 for integers."""

    def max(self, x: Array, /, *, axis: Any = None, keepdims: bool = False) -> Array:
        """Maximum, keeping the gradient; NaN propagates."""

    def min(self, x: Array, /, *, axis: Any = None, keepdims: bool = False) -> Array:
        """Minimum, keeping the gradient; NaN propagates."""

    def all(self, x: Array, /, *, axis: Any = None, keepdims: bool = False) -> Array:
        """True where every element is."""

    def any(self, x: Array, /, *, axis: Any = None, keepdims: bool = False) -> Array:
        """True where some element is."""

    # shapes, joining, linear algebra, masked writes
    def reshape(self, x: Array, shape: Any, /) -> Array:
        """Same data, new shape (an int or a tuple, -1 allowed)."""

    def broadcast_to(self, x: Array, shape: Any, /) -> Array:
        """A read-only broadcast of ``x`` to ``shape``."""

    def stack(self, arrays: Any, /, *, axis: int = 0) -> Array:
        """Join a sequence of arrays along a new axis."""

    def concatenate(self, arrays: Any, /, *, axis: int = 0) -> Array:
        """Join a sequence of arrays along an existing axis."""

    def solve(self, a: Array, b: Array, /) -> Array:
        """x of a @ x = b; ``b`` is a vector only when 1-D (NumPy 2)."""

    def scatter(self, base: Array, mask: Array, values: Array, /) -> Array:
        """A copy of ``base`` with ``values`` where ``mask``; gradients reach both."""

    # autodiff switches (no-ops on a backend without derivatives)
    def detach(self, x: Array, /) -> Array:
        """``x`` cut from differentiation."""

    def detach_all(self, obj: Any, /) -> Any:
        """``obj`` with every array detached (while a transformation traces)."""

    def requires_grad(self, x: Array, /) -> bool:
        """True when ``x`` may carry a derivative (a recording tensor, a tracer)."""

    def grad_enabled(self) -> bool:
        """True when derivatives of the current computation are recorded."""

    def no_grad(self) -> AbstractContextManager:
        """Context manager: nothing recorded inside."""

    def enable_grad(self) -> AbstractContextManager:
        """Context manager: recording back on inside a no_grad block."""

    def as_parameter(self, x: Array, /) -> Array:
        """``x`` as a trainable leaf (itself where there are no leaves)."""

    def tracing(self) -> bool:
        """True while a transformation traces the calling code."""

    def compiling(self) -> bool:
        """True while a graph compiler captures the calling code."""

    def abstract(self, x: Array, /) -> bool:
        """True when ``x``'s value cannot be read on the host (a jit tracer)."""

    def graph_free_loop(self, body: Callable, state: Any, steps: int, active: Any, /) -> Any:
        """``state`` after ``steps`` of ``body``, never differentiated (``active``: None too)."""

    def mark_trace_constant(self, fn: Callable, /) -> None:
        """Let a graph compiler evaluate ``fn()`` once at trace time."""

    def reset_compiled(self) -> None:
        """Forget every compiled graph."""

    # devices, host transfer, set-up
    def select(self) -> None:
        """Set-up when the backend is chosen (jax: float64 on)."""

    def devices(self) -> list:
        """The device strings usable here, "cpu" first."""

    def device_available(self, device: str, /) -> bool:
        """True when ``device`` ("cuda:1" ...) is present."""

    def device_of(self, x: Array, /) -> str:
        """The device string of ``x`` ("cpu" for host memory)."""

    def to_numpy(self, x: Array, /) -> Any:
        """A NumPy array of ``x``'s values, detached (a host sync)."""

    def item(self, x: Array, /) -> Any:
        """A one-element array as a Python number (a host sync)."""

    def quiet_float_errors(self) -> AbstractContextManager:
        """Context manager silencing divide/invalid warnings where inf is the answer."""


@runtime_checkable
class AutodiffBackend(Backend, Protocol):
    """What a backend whose ``BackendInfo.autodiff`` is set adds."""

    def value_and_grad(self, fn: Callable, arrays: list, /) -> tuple:
        """``fn(*arrays)`` (0-d) and the list of its gradients, one per array (zeros if unused)."""

    def jacobian(self, fn: Callable, arrays: list, /) -> tuple:
        """``fn(*arrays)`` (shape (m,)) and per array j its Jacobian, shape (m, *shape_j)."""


@runtime_checkable
class CompilingBackend(Backend, Protocol):
    """What a backend whose ``BackendInfo.compile`` is True adds."""

    def compile_function(self, fn: Callable, /, **options) -> Callable:
        """``fn`` compiled into one graph; ``rows=`` ... only where ``compile_uses_rows``."""

    def explain_compile(self, fn: Callable, /, *args, **kwargs) -> Any:
        """A CompileReport of capturing ``fn(*args, **kwargs)`` (graphs, breaks)."""


class Hooks(Protocol):
    """The optional names: a backend defines one where it gains; ``be.hook`` finds the rest."""

    compile_uses_rows: bool  # compile_function takes rows=, chunk_rows=, runner=

    def accumulate(self, total: Array, term: Any, weight: Any, /) -> Array:
        """``total + weight * term``, written into ``total`` where allowed."""

    def add_product(self, a: Any, t: Any, b: Any, /) -> Array:
        """``a + t * b`` with one temporary fewer."""

    def recompute(self, fn: Callable, /, *arrays) -> Any:
        """``fn(*arrays)`` whose backward recomputes its intermediates (a checkpoint)."""

    def compiled_stage(self, fn: Callable, state: tuple, /) -> tuple:
        """``fn(state)`` as a stage of its own of the graph being compiled."""

    def row_view(self, x: Array, start: int, size: int, /) -> Array:
        """Rows ``start`` to ``start + size`` of ``x`` without a copy."""

    def join_rows(self, pieces: list, owned: list, /) -> Array:
        """The rows (lo, hi) of each piece, joined in one pass."""

    def block_until_ready(self, out: Any, /) -> Any:
        """``out`` once computed (asynchronous dispatch)."""

    def intra_op_threads(self, count: int | None = None, /) -> AbstractContextManager:
        """Context manager: ``count`` intra-op threads inside (None: unchanged); yields the old."""


def members(protocol) -> list[str]:
    """The names ``protocol`` declares itself, in order: attributes, then callables."""
    own = [n for n, v in vars(protocol).items() if not n.startswith("_") and callable(v)]
    return [*vars(protocol).get("__annotations__", {}), *own]


#: What every backend defines, what ``autodiff`` and ``compile=True`` add, and the hooks.
REQUIRED = tuple(members(Backend))
AUTODIFF = tuple(members(AutodiffBackend))
COMPILE = tuple(members(CompilingBackend))
OPTIONAL = tuple(members(Hooks))
_ATTRIBUTE_TYPES = {"name": str, "array_types": tuple, "compile_uses_rows": bool}


def signature(name: str) -> inspect.Signature | None:
    """The signature the contract gives ``name``, without ``self`` (None: an attribute)."""
    for protocol in (AutodiffBackend, CompilingBackend, Hooks):
        for cls in protocol.__mro__:
            if callable(vars(cls).get(name)):
                sig = inspect.signature(vars(cls)[name])
                params = list(sig.parameters.values())[1:]
                params = [p.replace(annotation=p.empty) for p in params]
                return sig.replace(parameters=params, return_annotation=sig.empty)
    return None


def mismatch(wanted: inspect.Signature, found) -> str | None:
    """Why ``found`` cannot be called as ``wanted`` says (None: it can, or cannot be read).

    Two calls are tried: every parameter passed (those before ``/`` by position, those
    after ``*`` by keyword, two extra values for ``*args``), then only those without a
    default.  ``**kwargs`` of ``wanted`` are backend-specific options: not tried.
    """
    try:
        have = inspect.signature(found)
    except (TypeError, ValueError):  # a C builtin without a readable signature
        return None
    params = list(wanted.parameters.values())
    by_position = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    by_keyword = [p for p in params if p.kind == p.KEYWORD_ONLY]
    spare = ["extra", "extra"] if any(p.kind == p.VAR_POSITIONAL for p in params) else []
    calls = (
        ([p.name for p in by_position] + spare, [p.name for p in by_keyword]),
        (
            [p.name for p in by_position if p.default is p.empty],
            [p.name for p in by_keyword if p.default is p.empty],
        ),
    )
    for args, keywords in calls:
        try:
            have.bind(*args, **dict.fromkeys(keywords))
        except TypeError as exc:
            return f"{have} cannot be called as {wanted}: {exc}"
    return None


def problems(module, info) -> list[str]:
    """Each way ``module`` breaks the contract for ``info``'s capabilities (empty: none)."""
    names = list(REQUIRED) + (list(AUTODIFF) if info.autodiff is not None else [])
    names += list(COMPILE) if info.compile else []
    absent = [n for n in names if not hasattr(module, n)]
    out = [f"it does not define {', '.join(absent)}"] if absent else []
    for name in (n for n in (*names, *OPTIONAL) if hasattr(module, n)):
        value, sig, kind = getattr(module, name), signature(name), _ATTRIBUTE_TYPES.get(name)
        if sig is None and kind is not None and not isinstance(value, kind):
            out.append(f"{name} is {type(value).__name__}, not {kind.__name__}")
        elif sig is not None and not callable(value):
            out.append(f"{name} is not callable (wanted {name}{sig})")
        elif sig is not None and (why := mismatch(sig, value)) is not None:
            out.append(f"{name}{why}")
    return out


def missing(module, info) -> list[str]:
    """The required names ``module`` lacks for the capabilities ``info`` declares."""
    extra = (AUTODIFF if info.autodiff is not None else ()) + (COMPILE if info.compile else ())
    return [name for name in (*REQUIRED, *extra) if not hasattr(module, name)]


def verify(module, info) -> None:
    """Refuse a module that breaks the contract at first load, not deep inside a trace."""
    found = problems(module, info)
    if found:
        raise BackendUnavailableError(
            f"the {info.name} backend's module {module.__name__} does not follow the contract: "
            f"{'; '.join(found)} (optics.backend._contract.Backend lists what a backend "
            "defines; see docs/backend.md, 'How to add a backend')"
        )
