"""Chunked wavefront, PSF and MTF: the pupil traced in slices gives the same numbers.

``method=Streamed(N)`` streams the pupil grid behind the wavefront analyses through
``trace_bundle(..., method=Streamed(N))``; every ray is traced exactly as in one
batch, so the OPD, the PSF image and the MTF curves are equal, not merely
close.  A vignetted Cooke triplet makes the slices differ in validity too.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.analysis._mtf import mtf
from optics.analysis._opd import sample_wavefront
from optics.analysis._psf import psf
from optics.analysis._wavefront import pupil_samples, wavefront
from optics.cli import main
from optics.trace import Streamed


def _vignetted_cooke():
    optic = optics.load("cooke_triplet")
    optic.surfaces[6].semi_diameter = 7.0
    return optic


def _equal(a, b):
    np.testing.assert_array_equal(be.to_numpy(a), be.to_numpy(b))


def test_chunked_wavefront_samples_equal_one_batch(backend):
    optic = _vignetted_cooke()
    px, py, _ = pupil_samples(4)
    fields = [(0.0, 0.0), (0.0, 1.0)]
    one = sample_wavefront(optic, fields, 0.55, px, py)
    chunked = sample_wavefront(optic, fields, 0.55, px, py, method=Streamed(150, progress=False))
    for a, b in zip(one[:2], chunked[:2]):
        _equal(a, b)
    for name in ("x", "y", "L", "M", "opd"):
        _equal(getattr(one[2], name), getattr(chunked[2], name))
    assert 0 < int(be.to_numpy(one[1]).sum()) < be.size(one[1])  # part of the pupil vignetted


def test_chunked_psf_mtf_and_wavefront_equal_one_batch(backend):
    if backend == "jax":
        pytest.skip("eager JAX takes seconds per slice; the sample test above covers it")
    optic = _vignetted_cooke()
    single = psf(optic, (0.0, 1.0), samples=32)
    chunked = psf(optic, (0.0, 1.0), samples=32, method=Streamed(100, progress=False))
    _equal(single.image, chunked.image)
    assert float(be.item(single.strehl)) == float(be.item(chunked.strehl))
    curves = mtf(optic, None, [10.0, 40.0], samples=32)
    streamed = mtf(optic, None, [10.0, 40.0], samples=32, method=Streamed(250, progress=False))
    _equal(curves.tangential, streamed.tangential)
    _equal(curves.sagittal, streamed.sagittal)
    front = wavefront(optic, (0.0, 0.7), rings=6)
    sliced = wavefront(optic, (0.0, 0.7), rings=6, method=Streamed(50, progress=False))
    _equal(front.opd, sliced.opd)
    _equal(front.zernike.coefficients, sliced.zernike.coefficients)
    assert float(be.item(front.rms)) > 0.0


def test_a_chunked_psf_shows_progress_on_stderr_when_asked(capsys):
    pytest.importorskip("tqdm")
    lens = optics.load("cooke_triplet")
    with be.using("numpy", precision="float64"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 16 samples do not converge: the warning is not tested
        psf(lens, (0.0, 0.0), samples=16, method=Streamed(64, progress=True))
        err = capsys.readouterr().err
        # 16² grid samples and 4 edge rays, one field, the lens's 3 wavelengths
        assert "780/780" in err
        psf(lens, (0.0, 0.0), samples=16, method=Streamed(64, progress=False))
        assert capsys.readouterr().err == ""


def test_cli_psf_and_mtf_take_chunk_rays_and_progress(capsys):
    pytest.importorskip("tqdm")
    base = ["psf", "cooke_triplet", "--samples", "16", "--json"]
    assert main(base) == 0
    single = json.loads(capsys.readouterr().out)
    assert main([*base, "--chunk-rays", "64", "--progress"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == single
    assert "780/780" in captured.err  # the bar (3 wavelengths), asked for without a terminal
    curves = ["mtf", "cooke_triplet", "--samples", "16", "--frequencies", "20", "--json"]
    assert main(curves) == 0
    expected = capsys.readouterr()
    assert main([*curves, "--chunk-rays", "100"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == json.loads(expected.out)
    # No bar unless asked for (stderr is no terminal here): the same warnings as one batch.
    assert "100/" not in captured.err and "it/s" not in captured.err


def test_cli_rejects_a_chunk_size_below_one(capsys):
    assert main(["psf", "cooke_triplet", "--chunk-rays", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--chunk-rays must be at least 1" in err[0]
