"""Inputs are checked where they enter: regular files only, sizes in the budget, finite numbers.

Each case runs ``optics.cli.main`` in this process and must end, within
seconds, with exit status 2 and one line on stderr naming the file or the
option, before any work (no allocation of the absurd size asked for).
"""

from __future__ import annotations

import os
import time

import pytest

import optics
from optics.cli import main
from optics.errors import ConfigurationError, LensFileError
from optics.limits import MAX_GRID, MAX_PUPIL_SAMPLES, MAX_RINGS, MAX_TRIALS

fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")


def _refused(capsys, argv, needle):
    start = time.perf_counter()
    assert main(argv) == 2
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if ": warning:" not in line]
    assert len(lines) == 1, err
    assert needle in lines[0]
    assert out == ""
    assert elapsed < 20
    return lines[0]


@fifo_only
@pytest.mark.parametrize("suffix", [".zmx", ".toml", ".json"])
def test_a_fifo_as_the_lens_file_is_refused_without_blocking(tmp_path, capsys, suffix):
    path = tmp_path / f"lens{suffix}"
    os.mkfifo(path)
    _refused(capsys, ["analyze", str(path)], "is a FIFO (named pipe), not a regular file")


@fifo_only
def test_a_fifo_as_the_ray_file_is_refused_without_blocking(tmp_path, capsys):
    path = tmp_path / "rays.csv"
    os.mkfifo(path)
    _refused(
        capsys,
        ["trace", "singlet", "--rays", str(path)],
        "rays.csv: cannot read the ray file: it is a FIFO",
    )


@fifo_only
def test_a_fifo_as_the_convert_input_is_refused_without_blocking(tmp_path, capsys):
    path = tmp_path / "in.zmx"
    os.mkfifo(path)
    _refused(
        capsys,
        ["convert", str(path), str(tmp_path / "out.toml")],
        "in.zmx: cannot read the lens file: it is a FIFO",
    )


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_device_as_the_lens_file_is_refused(tmp_path, capsys):
    link = tmp_path / "zero.zmx"
    link.symlink_to("/dev/zero")
    _refused(capsys, ["analyze", str(link)], "is a character device, not a regular file")


def test_a_folder_as_the_lens_file_is_refused(tmp_path, capsys):
    folder = tmp_path / "lens.toml"
    folder.mkdir()
    _refused(capsys, ["analyze", str(folder)], "is a folder, not a regular file")


def test_the_python_loader_refuses_a_folder_with_a_lens_file_error(tmp_path):
    folder = tmp_path / "lens.zmx"
    folder.mkdir()
    with pytest.raises(LensFileError, match="is a folder"):
        optics.load(folder)


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["psf", "singlet", "--samples", "20000"], f"more than the limit of {MAX_PUPIL_SAMPLES}"),
        (["mtf", "singlet", "--samples", "20000"], f"more than the limit of {MAX_PUPIL_SAMPLES}"),
        (["psf", "singlet", "--grid", "1000000"], f"more than the limit of {MAX_GRID}"),
        (["psf", "singlet", "--grid", "1e6"], "expected an integer, not '1e6'"),
        (["wavefront", "singlet", "--rings", "5000"], f"more than the limit of {MAX_RINGS}"),
        (["analyze", "singlet", "--rings", "5000"], f"more than the limit of {MAX_RINGS}"),
        (
            ["tolerance", "cooke_triplet_tolerance", "--monte-carlo", "1000000000000"],
            f"more than the limit of {MAX_TRIALS}",
        ),
        (
            ["tolerance", "cooke_triplet_tolerance", "--monte-carlo", "2", "--workers", "100000"],
            "more than the limit of 256",
        ),
    ],
)
def test_a_size_beyond_the_budget_is_refused_with_the_number_and_the_limit(capsys, argv, needle):
    _refused(capsys, argv, needle)


@pytest.mark.parametrize("value", ["nan", "-0.5", "0", "inf"])
@pytest.mark.parametrize("command", ["psf", "mtf", "wavefront"])
def test_a_wavelength_must_be_finite_and_positive(capsys, command, value):
    _refused(capsys, [command, "singlet", f"--wavelength={value}"], "argument --wavelength")


@pytest.mark.parametrize("value", ["nan", "10,inf", "-5"])
def test_mtf_frequencies_must_be_finite_and_non_negative(capsys, value):
    _refused(capsys, ["mtf", "singlet", f"--frequencies={value}"], "--frequencies must be finite")


@pytest.mark.parametrize("value", [float("nan"), -0.55, 0.0, float("inf")])
def test_the_python_psf_refuses_a_bad_wavelength(value):
    from optics.analysis import psf

    with pytest.raises(ConfigurationError, match="wavelength must be a finite, positive"):
        psf(optics.load("singlet"), (0.0, 0.0), value, samples=16)


def test_the_python_mtf_refuses_a_nan_frequency():
    from optics.analysis import mtf

    with pytest.raises(ConfigurationError, match="frequencies must be finite"):
        mtf(optics.load("singlet"), None, [10.0, float("nan")], samples=16)


def test_the_python_wavefront_refuses_a_non_finite_field():
    from optics.analysis import wavefront

    with pytest.raises(ConfigurationError, match="two finite numbers"):
        wavefront(optics.load("singlet"), (0.0, float("nan")))


AFOCAL = """name = "galilean telescope"
aperture = { type = "epd", value = 10.0 }
fields = { type = "angle", values = [0.0, 1.0] }
wavelengths = { values = [0.55], primary = 0 }

[[surfaces]]
thickness = inf

[[surfaces]]
radius = 50.0
material = { index = 1.5 }
stop = true

[[surfaces]]
thickness = 50.0

[[surfaces]]
radius = -25.0
material = { index = 1.5 }

[[surfaces]]
thickness = 20.0

[[surfaces]]
"""


@pytest.mark.parametrize("command", ["psf", "mtf", "wavefront"])
def test_an_afocal_system_is_refused_by_the_analyses_that_need_a_focus(tmp_path, capsys, command):
    path = tmp_path / "afocal.toml"
    path.write_text(AFOCAL)
    _refused(capsys, [command, str(path)], "needs a focus, but the system is afocal")


def test_a_fully_vignetted_field_has_no_mtf_rather_than_zero():
    from optics.analysis import mtf

    optic = optics.load("cooke_triplet")
    optic.fields.values = [(0.0, 0.0), (0.0, 40.0)]
    for surface in optic.surfaces[1:-1]:
        surface.semi_diameter = 8.0
    with pytest.warns(Warning):  # the paraxial-aiming warning of the field that misses
        result = mtf(optic, [(0.0, 1.0)], [0.0, 10.0], samples=16)
    values = result.as_dict()["fields"][0]
    assert all(v != v for v in values["tangential"] + values["sagittal"])  # NaN, not 0
