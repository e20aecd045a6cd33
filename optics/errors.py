"""Exception types raised by optics for bad input and unavailable features."""


class OpticsError(Exception):
    """Base class of every error optics raises on purpose."""


class BackendUnavailableError(OpticsError, ImportError):
    """The requested array backend is not installed."""


class LensFileError(OpticsError, ValueError):
    """A lens file (or lens dictionary) has a wrong key, type or value."""


class ConfigurationError(OpticsError, ValueError):
    """An optical system is inconsistent (no surfaces, bad stop, bad aperture...)."""


class SolveError(OpticsError, RuntimeError):
    """An iterative solve (field solve, ray aiming) failed for a named input."""
