"""Discrete Fourier transforms and complex helpers on the input's Array API namespace.

``numpy.fft``, ``torch.fft`` or ``jax.numpy.fft`` through array-api-compat: one call serves
every backend, with torch's gradients exact.  Zero-padding to ``shape`` is at the end of the
axes; where the data sit in the padded grid only adds a linear phase, not an intensity change.
"""

from __future__ import annotations

from array_api_compat import array_namespace as _xp

__all__ = ["fft", "fft2", "ifft2", "fftshift", "ifftshift", "expi", "abs2", "real", "imag"]


def fft2(x, shape=None):
    """2-D forward DFT over the last two axes, zero-padded to ``shape`` (G_y, G_x) if given."""
    return _xp(x).fft.fftn(x, s=None if shape is None else tuple(shape), axes=(-2, -1))


def ifft2(x, shape=None):
    """2-D inverse DFT (1/(G_y G_x) normalized) over the last two axes."""
    return _xp(x).fft.ifftn(x, s=None if shape is None else tuple(shape), axes=(-2, -1))


def fft(x, axis=-1, n=None):
    """1-D forward DFT along ``axis``, zero-padded to ``n`` points if given."""
    return _xp(x).fft.fft(x, n=n, axis=axis)


def fftshift(x, axes=(-2, -1)):
    """Move the zero-frequency sample to the centre (index G // 2) of ``axes``."""
    return _xp(x).fft.fftshift(x, axes=axes)


def ifftshift(x, axes=(-2, -1)):
    """Inverse of :func:`fftshift`."""
    return _xp(x).fft.ifftshift(x, axes=axes)


def expi(phase):
    """exp(i * phase) of a real array (radians), as a complex array of the same shape."""
    return _xp(phase).exp(1j * phase)


def real(z):
    """Real part of a complex array (a real array of the matching precision)."""
    return _xp(z).real(z)


def imag(z):
    """Imaginary part of a complex array."""
    return _xp(z).imag(z)


def abs2(z):
    """|z|^2 = Re(z)^2 + Im(z)^2 (smooth everywhere, unlike |z|, so its gradient exists at 0)."""
    xp = _xp(z)
    re, im = xp.real(z), xp.imag(z)
    return re * re + im * im
