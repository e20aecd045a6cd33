"""optics: differentiable sequential optical design on NumPy and PyTorch.

The public API is re-exported here; heavier modules load on first use so
that ``import optics`` stays fast and never imports torch.
"""

from . import backend
from ._version import __version__
from .errors import (
    BackendUnavailableError,
    ConfigurationError,
    LensFileError,
    OpticsError,
    SolveError,
)

__all__ = [
    "__version__",
    "backend",
    "BackendUnavailableError",
    "ConfigurationError",
    "LensFileError",
    "OpticsError",
    "SolveError",
]
