"""Render the benchmark scene with DeepLens (run with DeepLens's interpreter, never by optics).

Usage: python _deeplens_imaging.py CASE [--size N] [--save OUT.npy] [--dtype float32|float64]

CASE is ``forward`` or ``backward`` (forward + d(sum of the image)/d(curvature
of surface 1)).  The lens, scene and sensor are those of
benchmarks/test_bench_imaging.py: the Cooke triplet (optics' sample,
written below as a Zemax file with clear apertures, since DeepLens needs a
DIAM on every surface; the stop's is optics' paraxial stop semi-diameter for
EPD 10), scikit-image's astronaut doubled to 1024 x 1024 (nearest), sRGB
decoded to linear, at 20 m (DeepLens's "approximate infinity", DEPTH =
-20000; the same distance in optics), 3.5 um pixels, a 9 x 9 PSF grid and the
same 9 wavelength samples and channel weights as optics (3 Gauss-Hermite
nodes per channel).  DeepLens's own spatially varying rendering is used
(``GeoLens.render(method="psf_map")``: ``warp`` by its inverse distortion map,
then ``conv_psf_map``: each of the 9 x 9 image blocks convolved with its grid
point's geometric PSF, 8192 rays each), with its RGB PSF map built from the 9
wavelengths' maps weighted into the 3 channels (the only change: its
``psf_map_rgb`` takes one wavelength per channel).

Prints one JSON object: {"seconds", "cpu_s" (process CPU time), "maxrss_mb",
"ks", "spp", ...}.  Only DeepLens's public API is used.

Environment (/work/anchors/deeplens): deeplens-core 2.5.6 installed with
``--no-deps --ignore-requires-python`` into CPython 3.11.7 with the local
torch 2.13.0+cpu wheel (the same torch build as optics' venv; deeplens-core
asks for Python >= 3.12, but no torch 2.13.0 CPU wheel for 3.12 is on this
machine and its source runs unchanged on 3.11), numpy, scipy,
opencv-python-headless, matplotlib, scikit-image, einops, tqdm; stub modules
for torchvision (``utils.save_image``/``make_grid``) and lpips on PYTHONPATH
(only imported, never called here).

Measured on this shared two-core machine (several agents running, load
average 12-19), each case in its own process with one thread, alternating
with optics' cases (docs/imaging.md, "Against DeepLens"):

- forward, 9 x 9 grid, 4 rounds: wall 439.4, 569.1, 422.1, 134.2 s; CPU 78.3,
  68.5, 61.1 s (round 1 not recorded); peak RSS 3.49 GB.  optics in the same
  rounds: NumPy 34.5, 40.1, 28.7, 11.0 s wall, 5.58, 4.69, 3.95, 5.98 s CPU,
  0.80 GB; Torch 38.9, 35.4, 40.2, 9.6 s wall, 5.84, 5.28, 5.92, 5.07 s CPU,
  1.41 GB.
- forward + backward, 9 x 9 grid: stopped after 9.5 min at 11.6 GB resident
  and growing (the machine has 24 GB, shared).  optics Torch: 157 s wall,
  19.0 s CPU, 4.19 GB.
- accuracy against optics' brute-force ray render (relative L2 on 48 x 48
  crops at the centre, 0.49 and 0.89 of the half-diagonal): DeepLens 1.45 %,
  0.60 %, 2.75 %; optics 1.64 %, 0.12 %, 0.17 %.
- forward + backward, 3 x 3 grid (``--grid 3``): 198 s wall, 68.9 s CPU,
  3.21 GB.  optics Torch (``--grid 3``) right after it: 64.6 s wall, 27.5 s
  CPU, 3.91 GB."""

import argparse
import json
import os
import resource
import tempfile
import time

import numpy as np
import torch

# 9 wavelength samples (um) and their (sample, channel) weights: optics'
# spectral_samples(Sensor(), None, 3) (R, G, B channels: centre, centre +- sqrt(3) sigma)
WAVES = [0.5493782217350893, 0.61, 0.6706217782649107, 0.4793782217350893, 0.54,
         0.6006217782649107, 0.4043782217350893, 0.465, 0.5256217782649107]  # fmt: skip
CHANNEL = [0, 0, 0, 1, 1, 1, 2, 2, 2]
WEIGHT = [1 / 6, 2 / 3, 1 / 6] * 3
DEPTH = -20000.0
PITCH = 0.0035

# optics' cooke_triplet sample: (curvature 1/mm, thickness mm, glass, semi-diameter mm)
COOKE = [
    (1 / 22.01359, 3.25896, "SK16", 8.0),
    (1 / -435.76044, 6.00755, None, 8.0),
    (1 / -22.21328, 0.99997, "F2", 8.0),
    (1 / 20.29192, 4.75041, None, 3.857514640758799),  # the stop
    (1 / 79.6836, 2.95208, "SK16", 8.0),
    (1 / -18.39533, 42.20778, None, 8.0),
]


def cooke_zmx(path):
    lines = ["VERS 190513 80 123457", "MODE SEQ", "NAME Cooke triplet", "UNIT MM X W X CM MR CPMM",
             "ENPD 10.0", "GCAT SCHOTT HIKARI", "XFLN 0 0 0", "YFLN 0 14 20",
             "WAVL 0.48 0.55 0.65", "PWAV 2",
             "SURF 0", "  TYPE STANDARD", "  CURV 0.0", "  DISZ INFINITY"]  # fmt: skip
    for i, (c, t, glass, semi) in enumerate(COOKE, start=1):
        lines += [f"SURF {i}"] + (["  STOP"] if i == 4 else [])
        lines += ["  TYPE STANDARD", f"  CURV {c!r}", f"  DISZ {t!r}"]
        if glass:
            lines.append(f"  GLAS {glass} 0 0 0 0 0 0 0 0 0 0")
        lines.append(f'  DIAM {semi!r} 1 0 0 1 ""')
    lines += ["SURF 7", "  TYPE STANDARD", "  CURV 0.0", "  DISZ 0.0", "  DIAM 5.0"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def scene(size):
    from skimage import data

    base = (data.astronaut() / 255.0) ** 2.2
    reps = -(-size // base.shape[0])
    img = np.kron(base, np.ones((reps, reps, 1)))[:size, :size]
    return img


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("case", choices=["forward", "backward"])
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--grid", type=int, default=9)
    parser.add_argument("--ks", type=int, default=33)
    parser.add_argument("--spp", type=int, default=8192)
    parser.add_argument("--dtype", default="float32")
    parser.add_argument("--save", default=None)
    args = parser.parse_args()
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    dtype = getattr(torch, args.dtype)

    from deeplens import GeoLens
    from deeplens.imgsim import conv_psf_map

    path = os.path.join(tempfile.mkdtemp(), "cooke.zmx")
    cooke_zmx(path)
    lens = GeoLens(filename=path, dtype=dtype, primary_wvln=0.54, obj_depth=DEPTH)
    side = args.size * PITCH
    lens.set_sensor((side, side), (args.size, args.size))
    img = torch.tensor(scene(args.size), dtype=dtype).permute(2, 0, 1)[None].contiguous()

    started, cpu = time.perf_counter(), time.process_time()
    if args.case == "backward":
        lens.surfaces[0].c.requires_grad_(True)
    warped = lens.warp(img, depth=DEPTH)
    maps = [
        lens.psf_map(depth=DEPTH, grid=(args.grid, args.grid), ks=args.ks, spp=args.spp, wvln=w)
        for w in WAVES
    ]  # each (grid, grid, 1, ks, ks)
    rgb = [sum(WEIGHT[s] * maps[s] for s in range(9) if CHANNEL[s] == c) for c in range(3)]
    psf_rgb = torch.cat(rgb, dim=2)  # (grid, grid, 3, ks, ks)
    out = conv_psf_map(warped, psf_rgb)
    grad = None
    if args.case == "backward":
        out.sum().backward()
        grad = float(lens.surfaces[0].c.grad)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    result = {
        "case": args.case,
        "seconds": seconds,
        "cpu_s": cpu,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "size": args.size,
        "grid": args.grid,
        "ks": args.ks,
        "spp": args.spp,
        "dtype": args.dtype,
        "threads": torch.get_num_threads(),
        "grad_c1": grad,
        "foclen": float(lens.foclen),
    }
    if args.save:
        np.save(args.save, out.detach()[0].permute(1, 2, 0).double().numpy())
    print(json.dumps(result))


if __name__ == "__main__":
    main()
