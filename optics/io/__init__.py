"""Reading and writing optical systems: lens files in TOML or JSON (docs/lens-files.md),
Zemax OpticStudio .zmx files (``optics.io.zemax``, docs/zemax.md) and CODE V .seq files
(``optics.io.codev``, docs/codev.md)."""

from .. import backend as _be
from .lensfile import load, optic_from_dict, optic_to_dict, save

__all__ = ["load", "save", "optic_from_dict", "optic_to_dict"]

_be.pin_public(globals(), __all__)  # one configuration per call, whatever other threads set
