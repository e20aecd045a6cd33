"""``optics simulate``: render a picture through a lens onto a sensor (docs/imaging.md)."""

from __future__ import annotations

import re

from ._common import (
    UsageError,
    add_backend_options,
    add_lens_options,
    backend_context,
    lens_from_args,
    print_json,
)

_SENSOR = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*@\s*([0-9.eE+-]+)\s*$")
_PIXELS = re.compile(r"^\s*(\d+)\s*[xX]\s*(\d+)\s*$")


def register(subparsers):
    parser = subparsers.add_parser(
        "simulate",
        help="render a picture through LENS onto a sensor (PSFs, distortion, illumination)",
        description="Place IMAGE (a PNG, JPEG, TIFF, BMP, GIF, WebP or PPM picture, sRGB; "
        "at most 25 Mpx; an animation gives its first frame) in front of LENS and write "
        "the sensor image: real-ray distortion and relative illumination, FFT PSFs on an "
        "N x N grid over the field interpolated between grid points, R/G/B responses, "
        "optional Bayer mosaic and noise.",
    )
    parser.add_argument("lens", metavar="LENS", help="lens file or built-in sample name")
    parser.add_argument("image", metavar="IMAGE", help="the scene picture")
    parser.add_argument("-o", "--output", required=True, metavar="OUT.png", help="output image")
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--field-of-view",
        type=float,
        metavar="DEG",
        help="full diagonal field of view (object at infinity)",
    )
    size.add_argument(
        "--object-height",
        type=float,
        metavar="MM",
        help="half-diagonal of the scene (finite object)",
    )
    parser.add_argument("--object-distance", type=float, metavar="MM", help="object distance")
    parser.add_argument(
        "--sensor", metavar="WxH@PITCH", help="sensor pixels and pitch in mm, e.g. 640x480@0.005"
    )
    parser.add_argument("--pixels", metavar="WxH", help="sensor pixels (default: the image's)")
    parser.add_argument("--pitch", type=float, metavar="MM", help="pixel pitch in mm")
    parser.add_argument("--psf-grid", type=int, default=5, metavar="N", help="N x N PSFs (5)")
    parser.add_argument(
        "--wavelengths-per-channel", type=int, default=3, metavar="K", help="samples per colour (3)"
    )
    parser.add_argument("--pupil-samples", type=int, default=32, metavar="N", help="per PSF (32)")
    parser.add_argument("--bayer", choices=["RGGB", "BGGR", "GRBG", "GBRG"], help="raw mosaic")
    parser.add_argument("--seed", type=int, metavar="S", help="add shot and read noise, seeded")
    parser.add_argument(
        "--tile", type=int, metavar="N", help="render in N x N tiles (bounded memory)"
    )
    parser.add_argument("--progress", action="store_true", help="progress bar even off a terminal")
    parser.add_argument("--linear", action="store_true", help="files hold linear values, not sRGB")
    parser.add_argument(
        "--ghosts", type=int, default=0, metavar="N", help="add the N brightest ghosts' flare"
    )
    parser.add_argument("--json", action="store_true", help="print what was simulated as JSON")
    add_backend_options(parser)
    add_lens_options(parser)
    parser.set_defaults(func=run)


def _sensor_options(args):
    pixels, pitch = None, args.pitch
    if args.sensor is not None:
        if args.pixels is not None or args.pitch is not None:
            raise UsageError("give --sensor WxH@PITCH or --pixels/--pitch, not both")
        match = _SENSOR.match(args.sensor)
        if not match:
            raise UsageError(f"--sensor must look like 640x480@0.005, not {args.sensor!r}")
        pixels, pitch = (int(match[1]), int(match[2])), float(match[3])
    elif args.pixels is not None:
        match = _PIXELS.match(args.pixels)
        if not match:
            raise UsageError(f"--pixels must look like 640x480, not {args.pixels!r}")
        pixels = (int(match[1]), int(match[2]))
    if pixels is not None and min(pixels) < 1:
        raise UsageError(f"sensor pixels must be positive, not {pixels[0]}x{pixels[1]}")
    if pitch is not None and not pitch > 0:
        raise UsageError(f"the pixel pitch must be > 0 mm, not {pitch}")
    return pixels, pitch


def _check(args):
    from ..io.image import WRITABLE
    from ._guards import check_outputs

    for name, value, lowest in (
        ("--psf-grid", args.psf_grid, 1),
        ("--wavelengths-per-channel", args.wavelengths_per_channel, 1),
        ("--pupil-samples", args.pupil_samples, 8),
        ("--tile", args.tile, 1),
        ("--ghosts", args.ghosts, 0),
    ):
        if value is not None and value < lowest:
            raise UsageError(f"{name} must be at least {lowest}, not {value}")
    # Before any work: a known format, a writable folder, a file name (not a folder or a
    # device), and neither the picture nor the lens file (by name, link or inode).
    check_outputs(
        {"-o/--output": args.output},
        [args.image, args.lens],
        suffixes={"-o/--output": WRITABLE},
    )
    if args.ghosts and args.bayer:
        raise UsageError("--ghosts adds flare to R/G/B images: it cannot be combined with --bayer")


def run(args):
    from ..imaging import Scene, Sensor, simulate_image
    from ..io.image import read_image, write_image

    _check(args)
    pixels, pitch = _sensor_options(args)
    picture = read_image(args.image, linear=args.linear)
    height, width = picture.shape[:2]
    sensor = Sensor(
        pixels=pixels, pitch=pitch, bayer=args.bayer, noise=args.seed is not None, seed=args.seed
    )
    tile = args.tile
    out_pixels = pixels or (width, height)
    if tile is None and out_pixels[0] * out_pixels[1] > 1024 * 1024:
        tile = 512
    with backend_context(args):
        from .. import backend as be

        optic = lens_from_args(args)
        scene = Scene(
            be.asarray(picture),
            field_of_view=args.field_of_view,
            object_height=args.object_height,
            object_distance=args.object_distance,
        )
        result = simulate_image(
            optic,
            scene,
            sensor=sensor,
            psf_grid_size=args.psf_grid,
            wavelengths_per_channel=args.wavelengths_per_channel,
            pupil_samples=args.pupil_samples,
            tile=tile,
            progress=True if args.progress else None,
        )
        image = be.to_numpy(result.image)
        if args.ghosts:  # docs/ghosts.md, "Flare in a simulated image"
            from ..ghosts import add_ghost_flare, ghosts

            pitch_mm = result.info["sensor"]["pitch_mm"]
            image = add_ghost_flare(optic, image, pitch_mm, ghosts(optic), args.ghosts)
        backend = be.get_backend()
    write_image(args.output, image, linear=args.linear)
    report = {"output": args.output, "backend": backend, "tile": tile, "ghosts": args.ghosts}
    report.update(result.info)
    if args.json:
        print_json(report)
        return 0
    info = result.info
    print(
        f"wrote {args.output}: {info['sensor']['pixels'][0]}x{info['sensor']['pixels'][1]} "
        f"pixels of {info['sensor']['pitch_mm'] * 1000:.3g} um, "
        f"{info['psf_grid']['size']}x{info['psf_grid']['size']} PSFs x "
        f"{len(info['wavelengths']['um'])} wavelengths in {info['timings_s']['total']:.2f} s"
    )
    return 0
