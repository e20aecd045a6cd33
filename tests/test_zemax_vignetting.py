"""Vignetting factors (VDXN, VDYN, VCXN, VCYN): kept on the fields, mapped as OpticStudio does.

OpticStudio: px' = VDX + px (1 - VCX), py' = VDY + py (1 - VCY) (optics.fields_vignetting).
The references (tests/data/zemax/vignetting_reference.json) are Optiland 0.6.3's rays with
its own reading of the files' compression factors (it drops the decenters); optics traces
the same rays at the pupil coordinates ``vignetted_pupil`` gives with the decenters set to 0.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from _zemax_corpus import corpus_dir

import optics
from optics import backend as be
from optics.errors import LensFileError
from optics.fields_vignetting import (
    Vignetting,
    nearest_field,
    vignetted_pupil,
    vignetted_pupil_at,
)
from optics.io import zemax
from optics.io.zemax import ZemaxWarning

CORPUS = corpus_dir()
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/zemax/files is absent")
REFERENCE = json.loads(
    (Path(__file__).parent / "data" / "zemax" / "vignetting_reference.json").read_text()
)["files"]

# kbg-LandScape_petzval.zmx's VDYN, VCXN and VCYN lines (VDXN is all 0).
PETZVAL = Vignetting(
    (0.0, 0.0, 0.0),
    (0.0, 0.22745365357181091, 0.12659292396915309),
    (0.0, 0.022424079036712646, 0.0059219559669494628),
    (0.0, 0.22747693090438842, 0.12660624914169311),
)


def test_the_pupil_is_decentered_then_compressed():
    vignetting = Vignetting((0.1, 0.0), (-0.2, 0.0), (0.25, 0.0), (0.5, 0.0))
    px, py = np.array([-1.0, 0.0, 1.0]), np.array([1.0, 0.0, -1.0])
    qx, qy = vignetted_pupil(vignetting, 0, px, py)
    np.testing.assert_allclose(qx, 0.1 + 0.75 * px, rtol=0, atol=1e-15)
    np.testing.assert_allclose(qy, -0.2 + 0.5 * py, rtol=0, atol=1e-15)
    same = vignetted_pupil(vignetting, 1, px, py)
    assert np.array_equal(same[0], px) and np.array_equal(same[1], py)
    assert vignetted_pupil(None, 0, px, py)[0] is not None and Vignetting.zero(2).is_zero
    with pytest.raises(ValueError, match="one value per field"):
        Vignetting((0.0,), (0.0, 0.0), (0.0,), (0.0,))


def test_rays_at_any_field_take_their_nearest_fields_factors(backend):
    from optics.system import Fields

    fields = Fields("angle", [(0.0, 0.0), (0.0, 10.0), (0.0, 7.0710678118654755)])
    fields.vignetting = PETZVAL
    hy = be.asarray(np.array([0.0, 1.0, 0.7, 0.9, 0.2]))
    py = be.asarray(np.array([1.0, -1.0, -1.0, 0.5, 1.0]))
    qx, qy = vignetted_pupil_at(fields, 0.0 * hy, hy, 0.0 * py, py)
    nearest = [0, 1, 2, 1, 0]  # field points at hy = 0, 1, 0.707
    expected = [
        PETZVAL.decenter_y[i] + p * (1 - PETZVAL.compress_y[i])
        for i, p in zip(nearest, [1.0, -1.0, -1.0, 0.5, 1.0])
    ]
    np.testing.assert_allclose(be.to_numpy(qy), expected, rtol=0, atol=1e-15)
    assert [nearest_field(fields, 0.0, h) for h in (0.0, 1.0, 0.7, 0.9, 0.2)] == nearest
    fields.vignetting = None
    assert vignetted_pupil_at(fields, 0.0, 1.0, 0.3, -0.4)[1] == -0.4


def _load(name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        optic = optics.load(CORPUS / name)
    return optic, [str(w.message) for w in caught if issubclass(w.category, ZemaxWarning)]


@needs_corpus
def test_the_reader_keeps_the_factors_without_a_warning():
    optic, messages = _load("kbg-LandScape_petzval.zmx")
    assert optic.fields.vignetting == PETZVAL
    assert not any("vignetting" in m for m in messages)
    assert _load("kbg-DoubleGauss.zmx")[0].fields.vignetting is None  # all factors 0


@needs_corpus
def test_the_writer_writes_them_back():
    optic, _ = _load("kbg-LandScape_petzval.zmx")
    text = zemax.dumps(optic)
    assert "VDYN 0.0 0.2274536535718109 0.1265929239691531" in text.splitlines()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZemaxWarning)
        again = zemax.loads(zemax.encode(text))
    assert again.fields.vignetting == PETZVAL
    plain, _ = _load("kbg-DoubleGauss.zmx")
    assert not any(line.startswith("VDXN") for line in zemax.dumps(plain).splitlines())


def test_a_compression_of_1_or_more_is_refused():
    text = (
        "MODE SEQ\nUNIT MM\nENPD 10\nFTYP 0 0 2 1 0 0 0\nXFLN 0 0\nYFLN 0 5\n"
        "VCYN 0 1.2\nWAVM 1 0.55 1\nPWAV 1\nSURF 0\n  DISZ INFINITY\nSURF 1\n  STOP\n"
        "  DISZ 10\nSURF 2\n  DISZ 0\n"
    )
    with pytest.raises(LensFileError, match="VCYN: vignetting compression .* must be below 1"):
        zemax.reads(text.encode(), "v.zmx")


@needs_corpus
@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_the_compressed_pupils_rays_match_optiland(name):
    optic, _ = _load(name)
    optic.aiming = "paraxial"  # as Optiland aims
    factors = optic.fields.vignetting
    compression_only = Vignetting(
        (0.0,) * len(factors), (0.0,) * len(factors), factors.compress_x, factors.compress_y
    )
    optic.fields.vignetting = compression_only  # the tracer maps the pupil itself
    rays = REFERENCE[name]
    got = {k: [] for k in "xyzLMN"}
    for ray in rays:
        traced = optics.trace_rays(optic, (ray["hx"], ray["hy"]), (ray["px"], ray["py"]))
        for key in got:
            got[key].append(float(getattr(traced, key)))
    for key in "xyzLMN":
        expected = [ray[key] for ray in rays]
        np.testing.assert_allclose(got[key], expected, rtol=1e-9, atol=1e-9, err_msg=key)


@needs_corpus
def test_trace_rays_applies_the_fields_vignetting():
    optic, _ = _load("kbg-LandScape_petzval.zmx")
    optic.aiming = "paraxial"
    qx, qy = vignetted_pupil(optic.fields.vignetting, 1, 0.0, -1.0)  # (0, -0.545)
    applied = optics.trace_rays(optic, (0.0, 1.0), (0.0, -1.0))
    optic.fields.vignetting = None
    expected = optics.trace_rays(optic, (0.0, 1.0), (qx, qy))
    np.testing.assert_allclose(float(applied.y), float(expected.y), rtol=0, atol=1e-12)


def test_a_bundle_fills_each_fields_vignetted_pupil():
    """trace_bundle maps every sample (the chief's included) with its own field's factors."""
    optic = optics.load("cooke_triplet")
    factors = Vignetting((0.0, 0.05, 0.0), (0.0, 0.1, -0.08), (0.0, 0.1, 0.2), (0.0, 0.3, 0.25))
    optic.fields.vignetting = factors
    px, py = np.array([0.0, 1.0, 0.0, -0.6]), np.array([0.0, 0.0, -1.0, 0.5])
    bundle = optics.trace_bundle(optic, pupil=(px, py))
    fields = optic.fields.normalized()
    optic.fields.vignetting = None
    for f, (hx, hy) in enumerate(fields):
        qx, qy = vignetted_pupil(factors, f, px, py)
        wavelength = bundle.wavelengths[0]
        plain = optics.trace_rays(optic, (hx, hy), (qx, qy), wavelength)
        np.testing.assert_allclose(be.to_numpy(bundle.rays.y[0, f]), plain.y, rtol=0, atol=1e-12)
        centre = vignetted_pupil(factors, f, 0.0, 0.0)
        chief = optics.trace_rays(optic, (hx, hy), centre, wavelength)
        assert float(bundle.chief.y[0, f]) == pytest.approx(float(chief.y), abs=1e-12)
