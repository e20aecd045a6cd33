"""Accuracy of the DeepLens comparison's renders against a brute-force ray render (optics' venv).

Usage: python _deeplens_accuracy.py DEEPLENS.npy OPTICS.npy [--pupil 64]

DEEPLENS.npy comes from ``_deeplens_imaging.py forward --save``, OPTICS.npy
from ``simulate_image`` of the same case (test_bench_imaging.py's
``test_as_deeplens`` settings: the Cooke triplet, the astronaut doubled to
1024 x 1024, 20 m, 3.5 um pixels, a 9 x 9 grid, 3 wavelengths per channel,
``illumination=False``), both (1024, 1024, 3).  The reference is the
brute-force render of tests/test_imaging_optics.py: rays from every scene
pixel centre through a square pupil grid, binned into sensor pixels, here for
the nine wavelength samples with their channel weights, on 48 x 48 crops
(sources within 16 pixels of the crop traced).  Prints, per crop, the
relative L2 error and PSNR (peak 1) of both renders, and the relative L2 of
their inner 36 x 36 against the brute force convolved with the Airy pattern
(F/5, the channel's centre wavelength, pixel-integrated), which adds the
diffraction the rays lack.

Measured (docs/imaging.md, "Against DeepLens"; 64 x 64 pupil grid, 3228 rays
per source per wavelength, about 5 minutes of wall time per crop here):

| crop (row, col) | DeepLens | optics | with Airy: DeepLens / optics |
|---|---|---|---|
| (488, 488) centre | 1.448 % (51.2 dB) | 1.640 % (50.1 dB) | 1.42 % / 0.95 % |
| (200, 700) 0.49 | 0.604 % (49.6 dB) | 0.123 % (63.5 dB) | 0.55 % / 0.08 % |
| (32, 944) 0.89 | 2.751 % (40.5 dB) | 0.174 % (64.4 dB) | 2.63 % / 0.11 % |
"""

import argparse
import math

import numpy as np
from scipy.signal import fftconvolve
from scipy.special import j1

import optics
from optics.imaging import Scene, place_scene
from optics.imaging.sensor import Sensor, spectral_samples
from optics.sampling import square_grid

N, PITCH, DISTANCE, F_NUMBER = 1024, 0.0035, 20000.0, 5.0
CROPS = [(488, 488), (200, 700), (32, 944)]
SIZE, MARGIN = 48, 16


def scene():
    from skimage import data

    base = (data.astronaut() / 255.0) ** 2.2
    return np.kron(base, np.ones((2, 2, 1)))[:N, :N]


def brute(picture, r0, c0, pupil):
    lens = optics.load("cooke_triplet")
    top = 0.5 * PITCH * math.hypot(N, N)
    placed = place_scene(lens, Scene(picture, object_distance=DISTANCE), top)
    samples, source, weights = spectral_samples(Sensor(), None, 3)
    px, py, inside = square_grid(pupil)
    px, py = np.asarray(px)[np.asarray(inside)], np.asarray(py)[np.asarray(inside)]
    ii, jj = np.mgrid[
        max(r0 - MARGIN, 0) : min(r0 + SIZE + MARGIN, N),
        max(c0 - MARGIN, 0) : min(c0 + SIZE + MARGIN, N),
    ]
    ii, jj = ii.ravel(), jj.ravel()
    x, y = (jj - (N - 1) / 2) * PITCH, ((N - 1) / 2 - ii) * PITCH
    out = np.zeros((SIZE, SIZE, 3))
    for s, wave in enumerate(samples):
        c = source[s]
        for k in range(0, len(ii), 1024):
            part = slice(k, k + 1024)
            field = ((x[part] / top)[:, None], (y[part] / top)[:, None])
            rays = optics.trace_rays(placed.optic, field, (px, py), float(wave))
            col = np.rint(np.asarray(rays.x) / PITCH + (N - 1) / 2).astype(int) - c0
            row = np.rint((N - 1) / 2 - np.asarray(rays.y) / PITCH).astype(int) - r0
            valid = np.asarray(rays.valid)
            value = picture[ii[part], jj[part], c] * weights[s, c] / np.maximum(valid.sum(1), 1)
            weight = np.broadcast_to(value[:, None], valid.shape)
            keep = valid & (col >= 0) & (col < SIZE) & (row >= 0) & (row < SIZE)
            np.add.at(out[:, :, c], (row[keep], col[keep]), weight[keep])
    return out


def airy(wavelength, radius=6, sub=9):
    t = (np.arange(-radius * sub, (radius + 1) * sub) - (sub - 1) / 2) / sub * PITCH
    v = np.pi * np.hypot(*np.meshgrid(t, t)) / (wavelength * 1e-3 * F_NUMBER)
    safe = np.maximum(v, 1e-12)
    pattern = np.where(v > 0, (2 * j1(safe) / safe) ** 2, 1.0)
    side = 2 * radius + 1
    kernel = pattern.reshape(side, sub, side, sub).sum(axis=(1, 3))
    return kernel / kernel.sum()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("deeplens")
    parser.add_argument("optics")
    parser.add_argument("--pupil", type=int, default=64)
    args = parser.parse_args()
    renders = {"deeplens": np.load(args.deeplens), "optics": np.load(args.optics)}
    picture = scene()
    centres = [0.61, 0.54, 0.465]  # um: the R, G, B responses' centres
    inner = (slice(6, -6), slice(6, -6))
    for r0, c0 in CROPS:
        reference = brute(picture, r0, c0, args.pupil)
        blurred = np.stack(
            [fftconvolve(reference[:, :, c], airy(centres[c]), mode="same") for c in range(3)], -1
        )
        for name, render in renders.items():
            x = render[r0 : r0 + SIZE, c0 : c0 + SIZE]
            rel = np.linalg.norm(x - reference) / np.linalg.norm(reference)
            psnr = 10 * np.log10(1.0 / np.mean((x - reference) ** 2))
            rel_airy = np.linalg.norm(x[inner] - blurred[inner]) / np.linalg.norm(blurred[inner])
            print(
                f"crop ({r0}, {c0}) {name}: relative L2 {100 * rel:.3f} % ({psnr:.1f} dB); "
                f"with Airy (inner 36 x 36) {100 * rel_airy:.2f} %"
            )


if __name__ == "__main__":
    main()
