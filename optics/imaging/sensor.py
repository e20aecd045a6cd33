"""The sensor: pixels, spectral response of R, G and B, Bayer mosaic and noise.

Default spectral responses are Gaussian approximations, not a measured
camera: blue 0.465 µm, green 0.540 µm, red 0.610 µm centres, each with a
standard deviation of 0.035 µm (FWHM 82 nm).  They decide where the colour
channels sample the lens's chromatic behaviour.

An RGB scene is imaged channel by channel: channel c's radiance is spread over
its own response band, sampled at Gauss–Hermite nodes of the Gaussian
(3 per channel by default: centre and centre ± √3 σ, weights 2/3, 1/6, 1/6),
and lands in sensor channel c only.  A multispectral scene (one channel per
wavelength) reaches sensor channel c with weights proportional to the
channel's response at each wavelength, normalized to sum to 1.  Either way a
white scene of radiance 1 gives 1 in every channel on axis.

Noise (``noise=True``): a signal x becomes e = x · full_well electrons, with
shot noise √e · z₁ (the Gaussian limit of Poisson statistics, which keeps the
image differentiable by reparameterization; good above ~10 electrons) and read
noise σ_read · z₂, z from a NumPy generator seeded with ``seed``; the result is
divided by full_well again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError
from ._arrays import real

__all__ = ["Sensor", "DEFAULT_RESPONSE", "spectral_samples", "apply_sensor", "BAYER_PATTERNS"]

#: (centre µm, standard deviation µm) of the red, green and blue Gaussian responses.
DEFAULT_RESPONSE = ((0.610, 0.035), (0.540, 0.035), (0.465, 0.035))
BAYER_PATTERNS = ("RGGB", "BGGR", "GRBG", "GBRG")
_CHANNEL = {"R": 0, "G": 1, "B": 2}


@dataclass
class Sensor:
    """Pixel grid, colour response and noise of the detector.

    Attributes
    ----------
    pixels : (int, int), optional
        (width, height) in pixels; the scene's own size by default.
    pitch : float, optional
        Pixel pitch in mm; by default the scene's paraxial image fills the
        sensor's diagonal.
    response : sequence of (centre, sigma)
        Gaussian spectral responses in µm of the output channels (R, G, B).
    bayer : str, optional
        ``"RGGB"``, ``"BGGR"``, ``"GRBG"`` or ``"GBRG"``: return the raw mosaic
        (one value per pixel) instead of three channels.
    noise : bool
        Add shot and read noise.
    full_well : float
        Electrons at signal 1.
    read_noise : float
        Read noise in electrons RMS.
    seed : int, optional
        Seed of the noise generator.
    """

    pixels: tuple | None = None
    pitch: float | None = None
    response: tuple = DEFAULT_RESPONSE
    bayer: str | None = None
    noise: bool = False
    full_well: float = 10000.0
    read_noise: float = 2.0
    seed: int | None = None

    def __post_init__(self):
        if self.pixels is not None:
            width, height = (int(v) for v in self.pixels)
            if width < 1 or height < 1:
                raise ConfigurationError(f"sensor: pixels must be positive, not {self.pixels}")
            self.pixels = (width, height)
        if self.pitch is not None and not (math.isfinite(self.pitch) and self.pitch > 0):
            raise ConfigurationError(f"sensor: pitch must be > 0 mm, not {self.pitch}")
        if self.bayer is not None:
            self.bayer = str(self.bayer).upper()
            if self.bayer not in BAYER_PATTERNS:
                raise ConfigurationError(
                    f"sensor: bayer must be one of {BAYER_PATTERNS}, not {self.bayer!r}"
                )
            if len(self.response) != 3:
                raise ConfigurationError("sensor: a Bayer mosaic needs three (R, G, B) responses")
        if self.full_well <= 0 or self.read_noise < 0:
            raise ConfigurationError("sensor: full_well must be > 0 and read_noise >= 0")

    def half_diagonal(self) -> float:
        """Half the sensor diagonal in mm (needs pixels and pitch)."""
        width, height = self.pixels
        return 0.5 * self.pitch * math.hypot(width, height)


def _gauss_hermite(count):
    """Nodes and weights of the count-point rule for a unit Gaussian (weights sum to 1)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(count)
    return nodes, weights / weights.sum()


def spectral_samples(sensor, scene_wavelengths=None, per_channel=3):
    """The wavelengths the lens is evaluated at and how they reach the sensor's channels.

    Parameters
    ----------
    sensor : Sensor
    scene_wavelengths : sequence of float, optional
        µm per scene channel (a multispectral scene); None for RGB.
    per_channel : int
        RGB scenes: wavelength samples per colour channel (Gauss–Hermite nodes).

    Returns
    -------
    wavelengths : list of float, length S
        µm.
    source : list of int, length S
        The scene channel each sample images.
    weights : ndarray, shape (S, C)
        Contribution of sample s to output channel c (each column sums to 1).
    """
    response = [(float(c), float(s)) for c, s in sensor.response]
    channels = len(response)
    if scene_wavelengths is None:
        if channels != 3:
            raise ConfigurationError("an RGB scene needs a sensor with three responses")
        if per_channel < 1:
            raise ConfigurationError(f"wavelengths per channel must be >= 1, not {per_channel}")
        nodes, node_weights = _gauss_hermite(per_channel)
        wavelengths, source = [], []
        weights = np.zeros((channels * per_channel, channels))
        for c, (centre, sigma) in enumerate(response):
            for k in range(per_channel):
                weights[len(wavelengths), c] = node_weights[k]
                wavelengths.append(centre + sigma * float(nodes[k]))
                source.append(c)
        return wavelengths, source, weights
    wavelengths = [float(w) for w in scene_wavelengths]
    grid = np.asarray(wavelengths)
    weights = np.stack(
        [np.exp(-0.5 * ((grid - centre) / sigma) ** 2) for centre, sigma in response], axis=1
    )
    totals = weights.sum(axis=0)
    if np.any(totals <= np.finfo(float).tiny):
        raise ConfigurationError(
            f"scene wavelengths: a sensor channel has no response at any of {wavelengths} µm"
        )
    return wavelengths, list(range(len(wavelengths))), weights / totals


def bayer_masks(pattern, height, width, origin=(0, 0)):
    """(3, H, W) 0/1 NumPy masks of the R, G, B sites of a Bayer ``pattern``."""
    rows = (np.arange(height) + origin[0]) % 2
    cols = (np.arange(width) + origin[1]) % 2
    masks = np.zeros((3, height, width))
    for k, letter in enumerate(pattern):
        site = (rows[:, None] == k // 2) & (cols[None, :] == k % 2)
        masks[_CHANNEL[letter]] += site
    return masks


def apply_sensor(image, sensor, origin=(0, 0)):
    """Noise and the Bayer mosaic applied to a sensor image.

    Parameters
    ----------
    image : array, shape (C, H, W)
        Noise-free channel signals (1 = a white scene on axis).
    sensor : Sensor
    origin : (int, int)
        Global (row, column) of ``image[:, 0, 0]`` (tiles keep the mosaic phase).

    Returns
    -------
    array, shape (C, H, W), or (1, H, W) with a Bayer mosaic
    """
    if sensor.noise:
        generator = np.random.default_rng(sensor.seed)
        shape = tuple(image.shape)
        shot = real(generator.standard_normal(shape))
        read = real(generator.standard_normal(shape))
        electrons = image * sensor.full_well
        electrons = electrons + be.sqrt(be.clip(electrons, 0.0, None)) * shot
        image = (electrons + sensor.read_noise * read) / sensor.full_well
    if sensor.bayer is not None:
        height, width = tuple(image.shape)[1:]
        masks = real(bayer_masks(sensor.bayer, height, width, origin))
        image = be.sum(image * masks, axis=0, keepdims=True)
    return image
