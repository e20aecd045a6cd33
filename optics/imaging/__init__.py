"""Image simulation: what a lens does to a picture, differentiable on Torch and JAX.

``simulate_image(optic, image, ...)`` places a scene (RGB or multispectral)
in front of the lens, warps it by the real chief rays (distortion), scales it
by the real-ray relative illumination, blurs it with FFT PSFs computed on an
N × N grid over the field and interpolated bilinearly between grid points
(patch-wise FFT overlap-add), and samples it on a sensor with R, G, B
responses, an optional Bayer mosaic and shot + read noise.  See
docs/imaging.md.
"""

from .. import backend as _be
from .scene import Scene, place_scene
from .sensor import DEFAULT_RESPONSE, Sensor, spectral_samples
from .simulate import SimulationResult, simulate_image

__all__ = [
    "DEFAULT_RESPONSE",
    "Scene",
    "Sensor",
    "SimulationResult",
    "place_scene",
    "simulate_image",
    "spectral_samples",
]

_be.pin_public(globals(), __all__)  # one configuration per call, whatever other threads set
