"""Image files: read a picture as linear radiance, write a simulated sensor image.

Reading and writing use Pillow (a dependency of matplotlib, the ``plot``
extra).  8- and 16-bit PNG, JPEG, TIFF, BMP, GIF, WebP and PPM files read as
float arrays (H, W, C) in [0, 1]; an alpha channel is dropped, greyscale gives
C = 1.  Reading is safe on any bytes: a regular file of bounded size, a
bounded pixel count checked from the header, only the decoders named in
:data:`READABLE`, and every failure an :class:`ImageFileError` naming the file.
Files hold sRGB-encoded values, the simulation works on linear radiance: by
default reading decodes the sRGB transfer curve and writing encodes it
(``linear=True`` skips both).  Writes are atomic (``optics._atomic``).
"""

from __future__ import annotations

import io
import os
import struct
import warnings
import zlib

import numpy as np

from .._atomic import write_atomically
from ..errors import LensFileError, OpticsError
from ..limits import MAX_IMAGE_PIXELS
from ._files import read_bytes

__all__ = [
    "ImageFileError",
    "ImageWarning",
    "read_image",
    "write_image",
    "srgb_to_linear",
    "linear_to_srgb",
]

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


READABLE = ("PNG", "JPEG", "TIFF", "BMP", "GIF", "WEBP", "PPM")
"""The formats :func:`read_image` decodes (Pillow's names); no other decoder is tried, so a
file never reaches a plugin that runs an outside program (EPS runs Ghostscript)."""

_DECODE_ERRORS = (
    OSError,
    ValueError,
    TypeError,
    SyntaxError,
    EOFError,
    IndexError,
    KeyError,
    struct.error,
    zlib.error,
)
"""What Pillow's decoders raise on a damaged or hostile file (the fuzz test finds them)."""


class ImageWarning(UserWarning):
    """An image read with a choice made for it (the first frame of an animation)."""


def read_image(path, *, linear=False):
    """An image file as a float array (H, W, C) in [0, 1] of linear radiance.

    Parameters
    ----------
    path : str or os.PathLike
        A regular file (a FIFO or a device is refused, never waited on) of at
        most 256 MiB in one of :data:`READABLE`, with at most
        ``optics.limits.MAX_IMAGE_PIXELS`` pixels (checked from the header,
        before anything is decoded: a decompression bomb costs nothing).
    linear : bool
        The file already holds linear values (no sRGB decoding).

    Returns
    -------
    ndarray, shape (H, W, C), C = 1 (grey) or 3
        8-bit files in steps of 1/255, 16-bit ones of 1/65535; palette, CMYK,
        LAB and YCbCr pictures converted to RGB, alpha dropped; an animation
        or a multi-page TIFF gives its first frame, with an :class:`ImageWarning`.

    Raises
    ------
    ImageFileError
        Naming the file: missing, empty, not a picture, damaged, too large,
        or holding non-finite or negative values (float TIFF).
    """
    path = os.fspath(path)
    try:
        content = read_bytes(path, what="image file")
    except LensFileError as exc:
        raise ImageFileError(str(exc)) from None
    if not content:
        raise ImageFileError(f"{path}: an empty file (0 bytes), not an image")
    data = _decode(path, content)
    if not np.all(np.isfinite(data)):
        raise ImageFileError(f"{path}: the image holds non-finite values (NaN or infinity)")
    if np.any(data < 0):
        raise ImageFileError(f"{path}: the image holds negative values (radiance is >= 0)")
    return data if linear else srgb_to_linear(data)


def _decode(path, content):
    """The pixels of an image file's bytes as floats (H, W, C), C = 1 or 3.

    Pillow's own warnings (corrupt EXIF data, ...) are held back: a file that is
    then refused gives its one error; one that reads gives them as ImageWarnings
    naming the file.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        data, frames = _open(path, content)
    notes = [f"{path}: an image of several frames; the first one is used"] if frames else []
    notes += [f"{path}: {w.message}" for w in caught if not issubclass(w.category, ImageWarning)]
    for note in dict.fromkeys(notes):
        warnings.warn(note, ImageWarning, stacklevel=3)
    return data


def _open(path, content):
    """(pixels, whether the file has several frames); ImageFileError naming ``path``."""
    image_module = _pillow()
    try:
        with image_module.open(io.BytesIO(content), formats=READABLE) as handle:
            _check_size(path, handle.size)
            frames = bool(getattr(handle, "is_animated", False))
            handle.seek(0)
            handle.load()
            return _pixels(path, handle), frames
    except ImageFileError:
        raise
    except image_module.UnidentifiedImageError:
        raise ImageFileError(
            f"{path}: not a picture that can be read ({', '.join(READABLE)})"
        ) from None
    except image_module.DecompressionBombError as exc:  # Pillow's own limit, met in open()
        raise ImageFileError(
            f"{path}: more pixels than the limit of {MAX_IMAGE_PIXELS} "
            f"(optics.limits.MAX_IMAGE_PIXELS): {exc}"
        ) from None
    except MemoryError:
        raise ImageFileError(f"{path}: not enough memory to decode the image") from None
    except _DECODE_ERRORS as exc:
        detail = str(exc).strip() or type(exc).__name__
        raise ImageFileError(f"{path}: a damaged or unsupported image ({detail})") from None


def _check_size(path, size):
    width, height = size
    if width < 1 or height < 1:
        raise ImageFileError(f"{path}: an empty image ({width}x{height} pixels)")
    if width * height > MAX_IMAGE_PIXELS:
        raise ImageFileError(
            f"{path}: {width}x{height} pixels, more than the limit of {MAX_IMAGE_PIXELS} "
            "(optics.limits.MAX_IMAGE_PIXELS); scale the picture down"
        )


def _pixels(path, handle):
    mode = handle.mode
    if mode.startswith("I;16"):
        return np.asarray(handle, dtype=float)[:, :, None] / 65535.0
    if mode == "I":
        data = np.asarray(handle, dtype=float)
        if data.max(initial=0.0) > 65535:
            raise ImageFileError(f"{path}: integer pixels above 65535; save it with 8 or 16 bits")
        scale = 65535.0 if data.max(initial=0.0) > 255 else 255.0
        return data[:, :, None] / scale
    if mode == "F":
        return np.asarray(handle, dtype=float)[:, :, None]
    if mode in ("1", "L", "LA", "La"):
        return np.asarray(handle.convert("L"), dtype=float)[:, :, None] / 255.0
    return np.asarray(handle.convert("RGB"), dtype=float) / 255.0


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

    Raises
    ------
    ImageFileError
        Naming ``path``: an unknown extension, a shape that is not a picture,
        or a write that failed (a full disk, a read-only folder); a failed
        write leaves the file that was there untouched (no partial file).
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
    try:
        write_atomically(path, lambda temporary: picture.save(temporary, format=file_format))
    except OSError as exc:  # a full disk, a read-only folder: the old file stays as it was
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ImageFileError(f"{path}: cannot write the image: {reason}") from exc
