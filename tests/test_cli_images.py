"""Hostile pictures for ``optics simulate`` (reader: optics.io.image).

Each input gets either the right pixels or exit status 2 with one line on
stderr naming the file, within seconds and bounded memory; the input and an
existing output are never overwritten, and a failed write leaves no
temporary file behind.  Pictures are made here (Pillow, or PNG bytes written
by hand where Pillow cannot write the case) and their expected pixels are
known independently of the reader.
"""

from __future__ import annotations

import errno
import os
import struct
import time
import tracemalloc
import zlib

import numpy as np
import pytest

from optics.cli import main
from optics.io.image import ImageFileError, ImageWarning, read_image
from optics.limits import MAX_IMAGE_PIXELS

Image = pytest.importorskip("PIL.Image")

CHEAP = ["--psf-grid", "1", "--wavelengths-per-channel", "1", "--pupil-samples", "8"]


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(pixels, bit_depth, colour_type, *, size=None, rows=b""):
    """PNG bytes written by hand: ``pixels`` (H, W[, C]) unsigned, or a declared
    ``size`` (width, height) with the filtered ``rows`` given (compressed here)."""
    if pixels is not None:
        size = pixels.shape[1], pixels.shape[0]
        dtype = ">u2" if bit_depth == 16 else "u1"
        rows = b"".join(b"\0" + row.astype(dtype).tobytes() for row in pixels)
    header = struct.pack(">IIBBBBB", *size, bit_depth, colour_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows, 9))
        + _chunk(b"IEND", b"")
    )


def _refused(capsys, argv, *needles, seconds=5.0):
    start = time.perf_counter()
    status = main(argv)
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if ": warning:" not in line]
    assert status == 2, err
    assert len(lines) == 1 and out == "", err
    for needle in needles:
        assert needle in lines[0], lines[0]
    assert elapsed < seconds
    return lines[0]


def _simulate(picture, out, *extra):
    return ["simulate", "singlet", str(picture), "-o", str(out), *CHEAP, *extra]


@pytest.fixture
def rng():
    return np.random.default_rng(37)


# -- pixels that read right -------------------------------------------------------------


def test_a_16_bit_grey_png_keeps_its_16_bits(tmp_path, rng):
    values = rng.integers(0, 65536, size=(6, 9), dtype=np.uint16)
    path = tmp_path / "grey16.png"
    path.write_bytes(_png(values, 16, 0))
    np.testing.assert_array_equal(read_image(path, linear=True)[:, :, 0], values / 65535.0)


def test_a_48_bit_colour_png_reads_to_within_one_8_bit_step(tmp_path, rng):
    values = rng.integers(0, 65536, size=(5, 7, 3), dtype=np.uint16)
    path = tmp_path / "rgb48.png"
    path.write_bytes(_png(values, 16, 2))
    got = read_image(path, linear=True)
    assert got.shape == (5, 7, 3)
    np.testing.assert_allclose(got, values / 65535.0, atol=1.0 / 255.0)  # Pillow keeps 8 bits


def test_cmyk_reads_as_rgb(tmp_path, rng):
    cmy = rng.integers(0, 256, size=(4, 6, 3), dtype=np.uint8)
    cmyk = np.concatenate([cmy, np.zeros((4, 6, 1), np.uint8)], axis=2)  # no black: RGB = 255 - CMY
    path = tmp_path / "cmyk.tif"
    Image.fromarray(cmyk, mode="CMYK").save(path)
    np.testing.assert_allclose(read_image(path, linear=True), (255.0 - cmy) / 255.0)


def test_a_palette_picture_reads_its_palette_colours(tmp_path, rng):
    palette = rng.integers(0, 256, size=(16, 3), dtype=np.uint8)
    index = rng.integers(0, 16, size=(5, 8), dtype=np.uint8)
    picture = Image.fromarray(index, mode="P")
    picture.putpalette(palette.ravel().tolist())
    path = tmp_path / "palette.png"
    picture.save(path)
    np.testing.assert_allclose(read_image(path, linear=True), palette[index] / 255.0)


def test_an_animated_gif_gives_its_first_frame_with_a_warning(tmp_path, rng):
    palette = rng.integers(0, 256, size=(4, 3), dtype=np.uint8)
    frames = []
    for _ in range(3):
        frame = Image.fromarray(rng.integers(0, 4, size=(6, 5), dtype=np.uint8), mode="P")
        frame.putpalette(palette.ravel().tolist())
        frames.append(frame)
    path = tmp_path / "anim.gif"
    frames[0].save(path, save_all=True, append_images=frames[1:])
    first = palette[np.asarray(frames[0])] / 255.0
    with pytest.warns(ImageWarning, match="anim.gif: an image of several frames"):
        np.testing.assert_allclose(read_image(path, linear=True), first)


def test_a_one_pixel_picture_simulates_to_one_pixel(tmp_path, capsys):
    path = tmp_path / "dot.png"
    Image.fromarray(np.full((1, 1, 3), 200, np.uint8)).save(path)
    out = tmp_path / "out.png"
    assert main(_simulate(path, out)) == 0, capsys.readouterr().err
    assert read_image(out).shape == (1, 1, 3)


# -- files that are refused in one line ------------------------------------------------------


def _bad_files(folder):
    valid = _png(np.full((4, 4), 7, np.uint8), 8, 0)
    floats = np.ones((3, 3), np.float32)
    files = {
        "empty.png": (b"", "an empty file (0 bytes)"),
        "notes.png": (b"this is not a picture\n", "not a picture that can be read"),
        "half.png": (valid[: len(valid) // 2], ""),  # not identified, or damaged
        "bad_crc.png": (valid[:43] + bytes([valid[43] ^ 0xFF]) + valid[44:], "damaged"),
        "zero_width.png": (_png(None, 8, 0, size=(0, 4)), ""),
        "picture.eps": (b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n", "not a picture"),
    }
    for name, special in (("nan.tif", np.nan), ("negative.tif", -1.0), ("inf.tif", np.inf)):
        values = floats.copy()
        values[1, 1] = special
        Image.fromarray(values, mode="F").save(folder / name)
    paths = {}
    for name, (data, needle) in files.items():
        (folder / name).write_bytes(data)
        paths[name] = needle
    paths.update(
        {"nan.tif": "non-finite", "negative.tif": "negative values", "inf.tif": "non-finite"}
    )
    return paths


def test_bad_pictures_are_one_line_naming_the_file(tmp_path, capsys):
    for name, needle in _bad_files(tmp_path).items():
        out = tmp_path / f"out_{name}.png"
        _refused(capsys, _simulate(tmp_path / name, out), f"{name}: ", needle)
        assert not out.exists()


def test_a_missing_picture_or_a_folder_is_named(tmp_path, capsys):
    _refused(capsys, _simulate(tmp_path / "gone.png", tmp_path / "o.png"), "gone.png: ")
    _refused(capsys, _simulate(tmp_path, tmp_path / "o.png"), "it is a folder")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_as_the_picture_is_refused_without_blocking(tmp_path, capsys):
    path = tmp_path / "pipe.png"
    os.mkfifo(path)
    _refused(capsys, _simulate(path, tmp_path / "o.png"), "pipe.png: ", "FIFO")


@pytest.mark.parametrize("side", [int(MAX_IMAGE_PIXELS**0.5) + 1, 30000])
def test_a_decompression_bomb_is_refused_from_its_header(tmp_path, capsys, side):
    # side² pixels declared (36 Mpx: our limit; 900 Mpx: Pillow's own, met while opening) in a
    # file of a few hundred kB: refused before decoding, in bounded memory.
    path = tmp_path / "bomb.png"
    path.write_bytes(_png(None, 8, 0, size=(side, side), rows=b"\0" * (side + 1) * 64))
    assert path.stat().st_size < 1024 * 1024  # 64 rows given; the rest is never read
    tracemalloc.start()
    try:
        _refused(capsys, _simulate(path, tmp_path / "o.png"), "bomb.png: ", "MAX_IMAGE_PIXELS")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024


# -- outputs ---------------------------------------------------------------------------------


@pytest.fixture
def scene(tmp_path, rng):
    path = tmp_path / "scene.png"
    Image.fromarray(rng.integers(0, 256, size=(6, 8, 3), dtype=np.uint8)).save(path)
    return path


def test_the_output_may_not_be_an_input_by_any_name(tmp_path, scene, capsys):
    before = scene.read_bytes()
    link = tmp_path / "link.png"
    os.link(scene, link)
    lens = tmp_path / "lens.png"  # a lens file named like a picture, given as the output
    lens.write_text('[aperture]\ntype = "epd"\nvalue = 10\n')
    for out in (scene, link, tmp_path / "." / scene.name):
        _refused(capsys, _simulate(scene, out), "is the input file")
    _refused(capsys, ["simulate", str(lens), str(scene), "-o", str(lens)], "is the input file")
    assert scene.read_bytes() == before


def test_a_read_only_output_folder_is_refused_before_the_work(tmp_path, scene, capsys, monkeypatch):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    if os.geteuid() == 0:  # root writes anyway: the folder reports itself not writable
        real = os.access
        monkeypatch.setattr(
            os, "access", lambda p, mode: False if os.fspath(p) == str(folder) else real(p, mode)
        )
    try:
        _refused(capsys, _simulate(scene, folder / "out.png"), "out.png", "is not writable")
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES])
def test_a_failed_write_names_the_output_and_keeps_the_old_file(
    tmp_path, scene, capsys, monkeypatch, code
):
    out = tmp_path / "out.png"
    out.write_bytes(b"the previous result")

    def full_disk(self, fp, format=None, **params):
        with open(fp, "wb") as handle:
            handle.write(b"half a png")
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(Image.Image, "save", full_disk)
    line = _refused(capsys, _simulate(scene, out), f"{out}: cannot write the image", seconds=20)
    assert os.strerror(code) in line
    assert out.read_bytes() == b"the previous result"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.png", "scene.png"]


def test_reader_errors_are_image_file_errors(tmp_path):
    path = tmp_path / "x.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(ImageFileError, match="x.png"):
        read_image(path)
