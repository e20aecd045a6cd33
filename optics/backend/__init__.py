"""optics.backend (``be``): the one array layer over NumPy, PyTorch and JAX.

Operations dispatch on the arrays they receive; creation uses the configured backend,
precision and device (``be.set_backend("torch")`` or ``with be.using("torch"): ...``).  Only
this package imports torch or jax, and inside it only ``_registry`` knows backends by name.
The ``be.*`` names are those imported here (a module's ``__all__`` where it is star-imported);
docs/backend.md lists them all and says how to add a backend.
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
    jacobian,
    no_grad,
    parameter,
    quiet_float_errors,
    recompute,
    requires_grad,
    value_and_grad,
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
from ._config import *  # noqa: F403  (its __all__)
from ._creation import *  # noqa: F403  (its __all__)
from ._hooks import capabilities, hook, on_backend_load  # noqa: F401  (re-exported through __all__)
from ._math import *  # noqa: F403  (its __all__)
from ._pinning import is_pinned, pin_public, pinned  # noqa: F401  (re-exported through __all__)
from ._registry import BackendInfo  # noqa: F401  (re-exported through __all__)
from ._registry import register as register_backend  # noqa: F401
from ._registry import unregister as unregister_backend  # noqa: F401
from ._structure import fields_of, with_fields  # noqa: F401  (re-exported through __all__)

__all__ = [name for name in dir() if not name.startswith("_")]
