"""Merit operands rms_wavefront, strehl and mtf: registered, exact gradients on Torch.

Autograd through the OPD, the fits, the FFT PSF and the MTF is compared with
central finite differences of the same operand at two step sizes: the
difference must shrink with the step (truncation error O(h²)) and the smaller
step must agree to 1e-5 relative.
"""

from __future__ import annotations

import math

import pytest

import optics
from optics import backend as be
from optics.analysis._mtf import mtf
from optics.analysis._psf import psf
from optics.analysis._wavefront import wavefront
from optics.errors import ConfigurationError, SolveError
from optics.geometry import Standard
from optics.materials import ConstantIndex
from optics.optimize import OPERANDS, MeritContext, Operand
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths

CASES = [
    ("rms_wavefront", {"field": 1}),
    ("rms_wavefront", {"field": 2, "reference": "piston"}),
    ("strehl", {"field": 0}),
    ("strehl", {"field": 2}),  # polychromatic, the true peak off the chief ray
    ("strehl", {"field": 1, "wavelength": 0}),
    ("mtf", {"frequency": 50.0, "field": 2, "direction": "tangential"}),
    ("mtf", {"frequency": 30.0, "field": 1, "direction": "sagittal"}),
    ("mtf", {"frequency": 50.0, "field": 0}),
]
SURFACE = 3  # the radius varied


def _value(name, arguments, radius):
    optic = optics.load("cooke_triplet")
    optic.surfaces[SURFACE].geometry.radius = radius
    return float(be.item(OPERANDS[name](MeritContext(optic), **arguments)))


@pytest.mark.parametrize(("name", "arguments"), CASES)
def test_operand_gradient_matches_central_differences(torch_backend, name, arguments):
    optic = optics.load("cooke_triplet")
    radius0 = float(be.item(optic.surfaces[SURFACE].geometry.radius))
    leaf = be.parameter(radius0)
    optic.surfaces[SURFACE].geometry.radius = leaf
    OPERANDS[name](MeritContext(optic), **arguments).backward()
    exact = float(leaf.grad)
    errors = []
    for step in (1e-3, 1e-5):
        plus, minus = (
            _value(name, arguments, radius0 + step),
            _value(name, arguments, radius0 - step),
        )
        errors.append(abs((plus - minus) / (2 * step) - exact))
    assert abs(exact) > 1e-3
    assert errors[1] < 1e-5 * abs(exact) + 1e-9
    assert errors[1] <= errors[0] + 1e-9


def test_operands_run_on_numpy_and_torch_alike(backend):
    optic = optics.load("cooke_triplet")
    context = MeritContext(optic)
    value = float(be.item(OPERANDS["mtf"](context, frequency=50.0, field=0)))
    # The operand is the primary wavelength's MTF; mtf() interpolates the complex OTF
    # between lags (the operand its modulus), so the two differ in the last digits.
    analysis = mtf(optic, [(0.0, 0.0)], [50.0], samples=32, grid=64, polychromatic=False)
    mean = 0.5 * (analysis.tangential[0][0] + analysis.sagittal[0][0])
    assert value == pytest.approx(float(be.item(mean)), abs=1e-3)
    fine = mtf(optic, [(0.0, 0.0)], [50.0], samples=128, grid=256, polychromatic=False)
    assert value == pytest.approx(float(be.item(fine.tangential[0][0])), abs=5e-3)  # N = 32 vs 128
    # The strehl operand is the true-peak polychromatic Strehl ratio of psf() (optics psf).
    for index in (2,):
        strehl = float(be.item(OPERANDS["strehl"](context, field=index)))
        reference = psf(optic, optic.fields.normalized()[index], samples=32)
        assert strehl == pytest.approx(float(reference.strehl), abs=1e-9)
    rms = float(be.item(OPERANDS["rms_wavefront"](context, reference="chief")))
    assert rms == pytest.approx(float(wavefront(optic, (0.0, 0.0), rings=8).rms), abs=1e-12)


def test_operands_are_lens_file_operands():
    for name in ("rms_wavefront", "strehl", "mtf"):
        assert name in OPERANDS
    operand = Operand("mtf", target=1.0, frequency=50.0, direction="mean")
    assert 0 < float(be.item(operand.value(MeritContext(optics.load("cooke_triplet"))))) < 1


def test_bad_arguments_and_failed_chief_rays_raise_clear_errors():
    context = MeritContext(optics.load("cooke_triplet"))
    with pytest.raises(ConfigurationError, match="direction"):
        OPERANDS["mtf"](context, frequency=10.0, direction="diagonal")
    with pytest.raises(ConfigurationError, match="reference"):
        OPERANDS["rms_wavefront"](context, reference="best")
    miss = Optic(
        [
            Surface(thickness=math.inf),
            Surface(Standard(), 20.0, is_stop=True),
            Surface(Standard(6.0), 3.0, ConstantIndex(1.5)),
            Surface(Standard(), 10.0),
            Surface(),
        ],
        Aperture("epd", 8.0),
        Fields("angle", [(0.0, 0.0), (0.0, 18.0)]),
        Wavelengths([0.55], 0),
    )
    for name in ("rms_wavefront", "strehl"):
        with pytest.raises(SolveError, match=r"field \(hx, hy\) = \(0, 1\) fails"):
            OPERANDS[name](MeritContext(miss), field=1)
    # The analyses flag the field instead: no valid ray, NaN figures, not zeros.
    result = wavefront(miss, (0.0, 1.0))
    assert not be.to_numpy(result.valid).any()
    assert math.isnan(float(result.rms)) and math.isnan(float(result.pv))
    assert math.isnan(float(psf(miss, (0.0, 1.0), samples=16).strehl))
    assert math.isfinite(float(wavefront(miss, (0.0, 0.0)).rms))
