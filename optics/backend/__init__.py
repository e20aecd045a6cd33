"""optics.backend (``be``): the one array layer over NumPy, PyTorch and JAX.

Every numerical routine in optics is written once against these names.
Operations dispatch on the arrays they receive; creation uses the configured
backend, precision and device::

    from optics import backend as be

    be.set_backend("torch")            # or: with be.using("torch"): ...
    x = be.linspace(0.0, 1.0, 5)       # float64 torch tensor on the CPU
    y = be.sqrt(x)

This package is the only code in optics that imports torch or jax; inside it
only the registry (``_registry``) knows backends by name.  It is the array
layer only: the speed strategies built on it (fused updates, ray blocks,
deferred host reads) are :mod:`optics.accel`'s, the optimizer steps
:mod:`optics.optimize`'s.  See docs/backend.md for the full list and how to
add a backend.
"""

from ..errors import BackendUnavailableError, ConfigurationError  # noqa: F401
from . import _fft as fft  # noqa: F401  (be.fft.fft2, be.fft.expi ...: DFTs on every backend)
from ._autodiff import (  # noqa: F401  (re-exported through __all__)
    autodiff_kind,
    detach,
    detach_all,
    enable_grad,
    grad_active,
    graph_free_loop,
    no_grad,
    parameter,
    quiet_float_errors,
    recompute,
    requires_grad,
)
from ._compile import (  # noqa: F401  (re-exported through __all__)
    CompileReport,
    can_compile,
    compile_function,
    explain_compile,
    is_abstract,
    is_compiling,
    reset_compiled,
    trace_constant,
)
from ._config import (  # noqa: F401  (re-exported through __all__)
    autodiff_backends,
    available_backends,
    available_devices,
    backend_names,
    check_environment,
    get_backend,
    get_device,
    get_precision,
    set_backend,
    set_device,
    set_precision,
    using,
)
from ._creation import (  # noqa: F401  (re-exported through __all__)
    arange,
    array,
    asarray,
    astype,
    backend_of,
    device_of,
    empty,
    empty_like,
    eye,
    finfo,
    float_dtype,
    full,
    full_like,
    is_array,
    item,
    linspace,
    machine_eps,
    ones,
    ones_like,
    size,
    to_numpy,
    zeros,
    zeros_like,
)
from ._derivatives import (  # noqa: F401  (re-exported through __all__)
    gradients,
    has_autograd,
    require_autograd,
    residuals_and_jacobian,
    value_and_gradient,
)
from ._hooks import capabilities, hook, on_backend_load  # noqa: F401  (re-exported through __all__)
from ._host_reads import count_host_reads  # noqa: F401  (re-exported through __all__)
from ._math import (  # noqa: F401  (names made in a loop in _math)
    abs,
    all,
    any,
    arccos,
    arcsin,
    arctan,
    arctan2,
    broadcast_to,
    clip,
    concatenate,
    copysign,
    cos,
    exp,
    floor,
    hypot,
    isfinite,
    isnan,
    log,
    logical_and,
    logical_not,
    logical_or,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    reshape,
    scatter,
    sign,
    sin,
    solve,
    sqrt,
    square,
    stack,
    sum,
    tan,
    where,
)
from ._pinning import is_pinned, pin_public, pinned  # noqa: F401  (re-exported through __all__)
from ._registry import BackendInfo  # noqa: F401  (re-exported through __all__)
from ._registry import register as register_backend  # noqa: F401
from ._registry import unregister as unregister_backend  # noqa: F401
from ._structure import fields_of, with_fields  # noqa: F401  (re-exported through __all__)

__all__ = [name for name in dir() if not name.startswith("_")]
