"""A loaded lens's media give a real index at every wavelength it is traced at.

A glass's formula can be read without error and still give n² < 0 (a NaN index) at a
wavelength outside the range its coefficients were fitted on; a lens using it there
would trace to NaN everywhere.  :func:`check_media` says so when the file is loaded.
"""

from __future__ import annotations

import math
import warnings

from .. import backend as be
from ..errors import LensFileError
from ..materials import index_at
from ..surfaces import media


def check_media(optic, source: str) -> None:
    """Raise LensFileError when a medium of ``optic`` has no real index at one of its wavelengths.

    Parameters
    ----------
    optic : Optic
    source : str
        The lens file, for the message.

    Raises
    ------
    LensFileError
        Naming the file, the surface (0 = object), its material and the wavelength (µm).
    """
    seen = set()
    with be.using("numpy", precision="float64"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # outside a glass's range: said elsewhere
        for number, (material, _direction) in enumerate(media(optic.surfaces)):
            if id(material) in seen or material.is_mirror:
                continue
            seen.add(id(material))
            for wavelength in optic.wavelengths.values:
                n = float(be.to_numpy(index_at(material, float(wavelength))))
                if not (math.isfinite(n) and n > 0):
                    raise LensFileError(
                        f"{source}: surface {number}: material {material.to_spec()!r} has no real "
                        f"index at {float(wavelength):g} µm (its formula gives n = {n:g}): "
                        f"outside the range its data cover"
                    )
