"""Image files: read a picture as linear radiance, write a simulated sensor image.

Reading and writing use Pillow (a dependency of matplotlib, the ``plot``
extra).  8- and 16-bit PNG, JPEG, TIFF and BMP files read as float arrays
(H, W, C) in [0, 1]; an alpha channel is dropped, greyscale gives C = 1.
Files hold sRGB-encoded values, the simulation works on linear radiance: by
default reading decodes the sRGB transfer curve and writing encodes it
(``linear=True`` skips both).  Writes are atomic (``optics._atomic``).
"""

from __future__ import annotations

import os

import numpy as np

from .._atomic import write_atomically
from ..errors import OpticsError

__all__ = ["ImageFileError", "read_image", "write_image", "srgb_to_linear", "linear_to_srgb"]

WRITABLE = (".png", ".tif", ".tiff", ".bmp")


class ImageFileError(OpticsError, ValueError):
    """An image file that cannot be read or written (names the file)."""


def srgb_to_linear(values):
    """The sRGB decoding curve (IEC 61966-2-1) of values in [0, 1]."""
    v = np.asarray(values, dtype=float)
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(values):
    """The sRGB encoding curve of linear values, clipped to [0, 1]."""
    v = np.clip(np.asarray(values, dtype=float), 0.0, 1.0)
    return np.where(v <= 0.0031308, 12.92 * v, 1.055 * v ** (1 / 2.4) - 0.055)


def _pillow():
    try:
        from PIL import Image
    except ImportError as exc:  # pragma: no cover - Pillow comes with matplotlib
        raise ImageFileError(
            "reading and writing images needs Pillow: pip install 'optics[plot]'"
        ) from exc
    return Image


def read_image(path, *, linear=False):
    """An image file as a float array (H, W, C) in [0, 1] of linear radiance.

    Parameters
    ----------
    path : str or os.PathLike
    linear : bool
        The file already holds linear values (no sRGB decoding).

    Returns
    -------
    ndarray, shape (H, W, C), C = 1 (grey) or 3
    """
    image_module = _pillow()
    path = os.fspath(path)
    try:
        with image_module.open(path) as handle:
            handle.load()
            mode = handle.mode
            if mode in ("I;16", "I;16B", "I;16L", "I"):
                data = np.asarray(handle, dtype=float)
                scale = 65535.0 if mode.startswith("I;16") or data.max() > 255 else 255.0
                data = data[:, :, None] / scale
            elif mode in ("L", "LA"):
                data = np.asarray(handle.convert("L"), dtype=float)[:, :, None] / 255.0
            elif mode == "F":
                data = np.asarray(handle, dtype=float)[:, :, None]
            else:
                data = np.asarray(handle.convert("RGB"), dtype=float) / 255.0
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ImageFileError(f"{path}: not an image file that can be read ({exc})") from exc
    if data.ndim != 3 or data.shape[0] < 1 or data.shape[1] < 1:
        raise ImageFileError(f"{path}: an empty image")
    return data if linear else srgb_to_linear(data)


def write_image(path, image, *, linear=False):
    """Write a float image (H, W, C) in [0, 1] as an 8-bit file, atomically.

    Parameters
    ----------
    path : str or os.PathLike
        .png, .tif/.tiff or .bmp.
    image : array, shape (H, W, C) with C = 1 or 3, or (H, W)
        Linear values (clipped to [0, 1]).
    linear : bool
        Store the values as they are (no sRGB encoding).
    """
    image_module = _pillow()
    path = os.fspath(path)
    extension = os.path.splitext(path)[1].lower()
    if extension not in WRITABLE:
        raise ImageFileError(
            f"{path}: cannot write {extension or 'a file without an extension'}; "
            f"use one of {', '.join(WRITABLE)}"
        )
    data = np.asarray(image, dtype=float)
    if data.ndim == 3 and data.shape[2] == 1:
        data = data[:, :, 0]
    if data.ndim not in (2, 3) or (data.ndim == 3 and data.shape[2] != 3):
        raise ImageFileError(f"{path}: cannot write an image of shape {data.shape}")
    encoded = np.clip(data, 0.0, 1.0) if linear else linear_to_srgb(data)
    pixels = np.round(encoded * 255.0).astype(np.uint8)
    picture = image_module.fromarray(pixels)  # 2-D: "L", (H, W, 3): "RGB"
    file_format = {".png": "PNG", ".bmp": "BMP"}.get(extension, "TIFF")
    write_atomically(path, lambda temporary: picture.save(temporary, format=file_format))
