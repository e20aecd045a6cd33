"""``simulate_image``: what a lens does to a picture, differentiably.

Per wavelength sample s (:func:`~optics.imaging.sensor.spectral_samples`):

1. warp — each sensor pixel receives the scene point whose real chief ray
   lands on it (distortion, lateral colour), times the relative illumination
   there (:mod:`optics.imaging.warp`);
2. blur — the spatially varying PSF, bilinearly interpolated between the
   N × N grid of FFT PSFs, by patch-wise FFT overlap-add
   (:mod:`optics.imaging.psf_grid`, :mod:`optics.imaging.convolve`);
3. the sensor's channels are the response-weighted sums of the samples, then
   noise and an optional Bayer mosaic (:mod:`optics.imaging.sensor`).

Every step is ``be`` arithmetic, so the image is differentiable with respect
to the lens's parameters on Torch and JAX (through the PSF shapes and pixel
sizes, the chief-ray heights and the relative illumination).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError
from ..trace.prepared import pinned_to, takes_system
from ._arrays import real
from .convolve import convolve_varying
from .psf_grid import grid_axis, grid_fields, psf_grid
from .scene import Scene, lens_half_diagonal, place_scene, scene_half_diagonal, with_object_distance
from .sensor import Sensor, apply_sensor, spectral_samples
from .tiles import render_tiled
from .warp import bilinear_sample, radial_map

__all__ = ["SimulationResult", "simulate_image"]


@dataclass
class SimulationResult:
    """The simulated sensor image and what was simulated.

    Attributes
    ----------
    image : array, shape (H, W, C)
        Channel signals (1 = a white scene on axis), C = 3, or 1 with a Bayer
        mosaic; a ``be`` array (NumPy when tiled without gradients).
    info : dict
        Sampling and timings (JSON-ready): ``sensor``, ``scene``,
        ``psf_grid``, ``wavelengths``, ``relative_illumination_corner``,
        ``distortion_corner``, ``timings_s``.
    psfs : PSFGrid
    """

    image: object
    info: dict = field(default_factory=dict)
    psfs: object = None


def _channels_first(image):
    return be.stack([image[:, :, c] for c in range(int(image.shape[2]))], axis=0)


def _channels_last(image):
    return be.stack([image[c] for c in range(int(image.shape[0]))], axis=-1)


def _prefilter(image, scene_pitch, pitch):
    """Box-average (C, H, W) scene pixels when several fall in one sensor pixel."""
    factor = int(math.floor(pitch / scene_pitch + 1e-9))
    if factor < 2:
        return image, scene_pitch
    channels, height, width = tuple(image.shape)
    h, w = height // factor, width // factor
    r0, c0 = (height - h * factor) // 2, (width - w * factor) // 2
    crop = image[:, r0 : r0 + h * factor, c0 : c0 + w * factor]
    blocks = be.reshape(crop, (channels, h, factor, w, factor))
    return be.mean(be.mean(blocks, axis=4), axis=2), scene_pitch * factor


def _sensor_geometry(optic, scene, sensor):
    """(width, height, pitch) of the sensor, filling in the defaults."""
    height_s, width_s = scene.shape[:2]
    width, height = sensor.pixels if sensor.pixels is not None else (width_s, height_s)
    pitch = sensor.pitch
    if pitch is None:
        half = scene_half_diagonal(with_object_distance(optic, scene.object_distance), scene)
        if half is None:
            half = lens_half_diagonal(optic)
        pitch = 2.0 * half / math.hypot(width, height)
    return width, height, pitch


@takes_system
def simulate_image(
    optic,
    image,
    *,
    field_of_view=None,
    object_height=None,
    wavelengths=None,
    sensor=None,
    psf_grid_size=5,
    wavelengths_per_channel=3,
    pupil_samples=32,
    fft_size=None,
    kernel_size=None,
    distortion=True,
    illumination=True,
    aiming=None,
    tile=None,
    progress=None,
):
    """Simulate the sensor image of a scene through ``optic``.

    Parameters
    ----------
    optic : Optic
    image : array (H, W, C) or Scene
        Linear scene radiance (RGB, or one channel per entry of
        ``wavelengths``); a :class:`~optics.imaging.scene.Scene` carries its
        own size.
    field_of_view : float, optional
        Full diagonal field of view of the scene in degrees (object at infinity).
    object_height : float, optional
        Half-diagonal of the scene in mm (finite object).  With neither, the
        scene fills the sensor when ``sensor`` has a pitch, else the lens's
        largest field.
    wavelengths : sequence of float, optional
        µm per channel: a multispectral scene.
    sensor : Sensor, optional
        Pixels, pitch, responses, Bayer mosaic, noise; defaults: the scene's
        pixel count, its paraxial image filling the diagonal.
    psf_grid_size : int
        N: PSFs on an N × N grid over the sensor.
    wavelengths_per_channel : int
        RGB scenes: wavelength samples per colour channel.
    pupil_samples : int
        Pupil samples across the diameter of each FFT PSF.
    fft_size : int, optional
        FFT size G of the PSFs (2N by default).
    kernel_size : int, optional
        Odd PSF kernel size in sensor pixels (the PSF's FFT field by default).
    distortion, illumination : bool
        Apply the chief-ray warp and the relative illumination (both real-ray).
    aiming : {"paraxial", "real"}, optional
        Ray aiming for every trace.  By default the chief rays and the
        relative illumination use real aiming (rays through the real stop)
        and the PSFs the lens's own mode.
    tile : int, optional
        Render in tiles of this many pixels a side (bounded memory).
    progress : bool, optional
        Progress bar over the tiles (tqdm; by default only on a terminal).

    Returns
    -------
    SimulationResult
    """
    started = time.perf_counter()
    scene = (
        image
        if isinstance(image, Scene)
        else Scene(real(image), wavelengths, field_of_view, object_height)
    )
    sensor = Sensor() if sensor is None else sensor
    if int(psf_grid_size) < 1:
        raise ConfigurationError(f"imaging: psf grid size must be >= 1, not {psf_grid_size}")
    width, height, pitch = _sensor_geometry(optic, scene, sensor)
    top = 0.5 * pitch * math.hypot(width, height)
    placement = place_scene(optic, scene, top, aiming=aiming)
    lens = placement.optic
    samples, source, weights = spectral_samples(sensor, scene.wavelengths, wavelengths_per_channel)
    picture = _channels_first(real(scene.image))
    picture, scene_pitch = _prefilter(picture, placement.scene_pitch, pitch)
    scene_h, scene_w = tuple(picture.shape)[1:]

    # distortion and relative illumination per wavelength, fields 0 ... beyond the corner
    # real chief rays and really aimed pupil rays for the warp and the illumination (the
    # paraxial pupil misplaces off-axis beams: the triplet's corner RI is 0.78 instead of 0.87)
    chiefs = lens
    if aiming is None and not lens.fields.object_telecentric:
        chiefs = dataclasses.replace(lens, aiming="real")
    h_top = 1.05
    with pinned_to(chiefs):  # one prepared system for every wavelength's map
        maps = [radial_map(chiefs, top, w, h_top, illumination=illumination) for w in samples]
        reach = min(float(be.to_numpy(m.heights)[-1]) for m in maps)
        if reach < top:
            h_top *= 1.05 * top / reach
            maps = [radial_map(chiefs, top, w, h_top, illumination=illumination) for w in samples]
    mapped = time.perf_counter()

    rows = grid_axis(int(psf_grid_size), height)
    cols = grid_axis(int(psf_grid_size), width)
    middle = int(np.argmin(np.abs(np.asarray(samples) - float(np.median(samples)))))
    fields = grid_fields(rows, cols, (height, width), pitch, maps[middle])
    psfs = psf_grid(
        lens,
        fields,
        samples,
        pitch,
        rows=rows,
        cols=cols,
        samples=pupil_samples,
        fft_size=fft_size,
        kernel_size=kernel_size,
    )
    traced = time.perf_counter()
    radius = psfs.kernel_size // 2
    weights_be = real(weights)

    def irradiance(a0, a1, b0, b1):
        i = np.arange(a0, a1, dtype=float)[:, None]
        j = np.arange(b0, b1, dtype=float)[None, :]
        x = (j - (width - 1) / 2.0) * pitch + 0.0 * i
        y = ((height - 1) / 2.0 - i) * pitch + 0.0 * j
        rho = np.hypot(x, y)
        inside = rho > 0
        safe = real(np.where(inside, rho, 1.0))
        layers = []
        for s, radial in enumerate(maps):

            def layer(heights, lighting, channel, radial=radial):
                # on torch with gradients only the tables and the channel are kept; the warp's
                # image-sized temporaries are recomputed in the backward pass (be.recompute)
                table = radial.with_tables(heights, lighting)
                h = table.field_at(real(rho))
                if distortion:
                    slope = placement.top * float(table.fields[1]) / (heights[1] - heights[0])
                    scale = be.where(be.asarray(inside), h * placement.top / safe, slope)
                else:
                    scale = 1.0
                scene_rows = (scene_h - 1) / 2.0 - real(y) * scale / scene_pitch
                scene_cols = (scene_w - 1) / 2.0 + real(x) * scale / scene_pitch
                value = bilinear_sample(channel, scene_rows, scene_cols)[0]
                return value * table.illumination_at(h) if illumination else value

            channel = picture[source[s] : source[s] + 1]
            layers.append(be.recompute(layer, radial.heights, radial.illumination, channel))
        return be.stack(layers)

    def render(r0, r1, c0, c1):
        a0, a1 = max(r0 - radius, 0), min(r1 + radius, height)
        b0, b1 = max(c0 - radius, 0), min(c1 + radius, width)
        blurred = convolve_varying(irradiance(a0, a1, b0, b1), psfs.kernels, rows, cols, (a0, b0))
        blurred = blurred[:, r0 - a0 : r1 - a0, c0 - b0 : c1 - b0]
        return be.sum(blurred[:, None] * weights_be[:, :, None, None], axis=0)

    signal = render_tiled(render, (height, width), tile, progress)
    signal = apply_sensor(real(signal), sensor)
    done = time.perf_counter()
    corner = maps[middle]
    info = {
        "sensor": {
            "pixels": [width, height],
            "pitch_mm": pitch,
            "half_diagonal_mm": top,
            "bayer": sensor.bayer,
            "noise": sensor.noise,
            "seed": sensor.seed,
        },
        "scene": {
            "pixels": [scene.shape[1], scene.shape[0]],
            "half_diagonal_image_mm": placement.scene_half_diagonal,
            "pixel_on_image_mm": scene_pitch,
        },
        "psf_grid": {
            "size": int(psf_grid_size),
            "pupil_samples": psfs.samples,
            "fft_size": psfs.fft_size,
            "kernel_size": psfs.kernel_size,
            "psf_pixel_mm": list(psfs.psf_pixel),
            "max_step_waves": psfs.max_step_waves,
            "fields": [list(f) for f in psfs.fields],
        },
        "wavelengths": {
            "um": list(samples),
            "source_channel": list(source),
            "weights": weights.tolist(),
        },
        "relative_illumination_corner": float(
            be.item(corner.illumination_at(be.asarray(corner.field_at(be.asarray(top)))))
        ),
        "distortion_corner_percent": 100.0
        * (top / float(be.item(corner.field_at(be.asarray(top))) * top) - 1.0)
        if top > 0
        else 0.0,
        "timings_s": {
            "rays": mapped - started,
            "psfs": traced - mapped,
            "render": done - traced,
            "total": done - started,
        },
    }
    return SimulationResult(image=_channels_last(signal), info=info, psfs=psfs)
