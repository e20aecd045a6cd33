"""optics: differentiable sequential optical design on NumPy and PyTorch.

The public API is re-exported here; modules load on first use (module-level
``__getattr__``) so that ``import optics`` stays fast and never imports torch.
"""

from importlib import import_module as _import_module

from . import backend
from . import plot_notebook as _plot_notebook  # noqa: F401  (registers the notebook views)
from ._version import __version__
from .errors import (
    BackendUnavailableError,
    ConfigurationError,
    LensFileError,
    OpticsError,
    SolveError,
)

# Public name -> module that defines it (imported on first access). When the
# module has no attribute of that name (optics.samples, optics.coatings), the
# module itself is the value.
_LAZY = {
    "Optic": "optics.system",
    "Aperture": "optics.system",
    "Fields": "optics.system",
    "Wavelengths": "optics.system",
    "Surface": "optics.surfaces",
    "Rays": "optics.rays",
    "trace_rays": "optics.trace",
    "trace_surfaces": "optics.trace",
    "trace_bundle": "optics.trace",
    "prepare": "optics.trace",
    "Bundle": "optics.trace",
    "paraxial": "optics._paraxial",
    "ParaxialData": "optics._paraxial",
    "spot_diagram": "optics.analysis",
    "ray_fan": "optics.analysis",
    "wavefront": "optics.analysis",
    "psf": "optics.analysis",
    "mtf": "optics.analysis",
    "geometric_mtf": "optics.analysis",
    "opd": "optics.analysis",
    "psf_encircled_energy": "optics.analysis",
    "geometric_encircled_energy": "optics.analysis",
    "seidel": "optics.analysis",
    "field_curvature": "optics.analysis",
    "distortion": "optics.analysis",
    "chromatic_focal_shift": "optics.analysis",
    "lateral_color": "optics.analysis",
    "load": "optics.io",
    "save": "optics.io",
    "samples": "optics.samples",
    "coatings": "optics.coatings",
    "solve_fields": "optics.trace",
}


def __getattr__(name):
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'optics' has no attribute {name!r}")
    module = _import_module(module_name)
    value = getattr(module, name, module)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(__all__))


__all__ = [
    "__version__",
    "backend",
    "BackendUnavailableError",
    "ConfigurationError",
    "LensFileError",
    "OpticsError",
    "SolveError",
    *_LAZY,
]
