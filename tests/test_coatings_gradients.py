"""Derivatives of coating reflectance on Torch and JAX against central differences.

The finite differences run on NumPy at two step sizes; both must agree with the
autodiff gradient, the smaller step more closely (a central difference errs by
O(h²)), so a wrong derivative cannot pass by luck of one step.
"""

from __future__ import annotations

import numpy as np
import pytest

from optics import backend as be
from optics.coatings import Coating, ComplexIndex, Layer, fresnel_power
from optics.optimize import gradients

WAVELENGTHS = (0.45, 0.55, 0.65)
COS_I = (1.0, 0.9, 0.7)


def _mean_reflectance(thickness_1, thickness_2, film_index, cos_i):
    coating = Coating(
        [Layer(ComplexIndex(film_index, 0.002), thickness_1), Layer(2.1, thickness_2)]
    )
    wavelength = be.asarray(np.array(WAVELENGTHS)[:, None])
    cos = be.asarray(np.array(COS_I)[None, :]) * cos_i
    return be.mean(coating.reflectance(1.0, 1.5168, cos, wavelength))


POINT = (95.0, 62.0, 1.38, 0.98)


def _numpy_value(point):
    with be.using("numpy", precision="float64"):
        return float(be.to_numpy(_mean_reflectance(*point)))


def _central(point, k, h):
    up, down = list(point), list(point)
    up[k] += h
    down[k] -= h
    return (_numpy_value(up) - _numpy_value(down)) / (2 * h)


def test_reflectance_gradient_matches_central_differences(autodiff_backend):
    arrays = [be.asarray(v) for v in POINT]
    value, grads = gradients(_mean_reflectance, arrays)
    assert abs(value - _numpy_value(POINT)) < 1e-15
    for k, gradient in enumerate(grads):
        scale = abs(POINT[k])
        coarse = _central(POINT, k, 1e-3 * scale)
        fine = _central(POINT, k, 1e-4 * scale)
        tolerance = 1e-7 * max(abs(float(gradient)), 1e-3)
        assert abs(fine - float(gradient)) < tolerance, (k, fine, gradient)
        assert abs(coarse - float(gradient)) < 100 * tolerance
        assert abs(fine - float(gradient)) <= abs(coarse - float(gradient)) + 1e-15


def test_bare_fresnel_gradient_in_the_angle(autodiff_backend):
    def rp_of(cos_i):
        return fresnel_power(1.0, 1.5168, cos_i)[1]

    cos_i = 0.8
    _, (gradient,) = gradients(rp_of, [be.asarray(cos_i)])
    with be.using("numpy", precision="float64"):
        for h in (1e-4, 1e-5):
            fd = (float(rp_of(be.asarray(cos_i + h))) - float(rp_of(be.asarray(cos_i - h)))) / (
                2 * h
            )
            assert abs(fd - float(gradient)) < 1e-6 * abs(float(gradient))


def test_quarter_wave_thickness_is_differentiable(torch_backend):
    def reflectance(quarter_waves):
        coating = Coating([Layer("MgF2", quarter_waves, "qw")], reference_wavelength=0.55)
        return coating.reflectance(1.0, 1.5168, be.asarray(1.0), 0.55)

    # the quarter wave is the minimum: the slope there is zero, and negative before it
    _, (at_minimum,) = gradients(reflectance, [be.asarray(1.0)])
    _, (before,) = gradients(reflectance, [be.asarray(0.8)])
    assert abs(float(at_minimum)) < 1e-12
    assert float(before) < -1e-3


@pytest.mark.parametrize("cos_i", [0.3, 0.5])
def test_total_internal_reflection_phase_gradient(autodiff_backend, cos_i):
    def phase_s(cos):
        rs = Coating([]).amplitudes(1.5168, 1.0, cos, 0.55)[0]
        return be.arctan2(be.fft.imag(rs), be.fft.real(rs))

    _, (gradient,) = gradients(phase_s, [be.asarray(cos_i)])
    # closed form: φs = −2 atan(sqrt(sin²θ − n²)/cosθ), n = 1/1.5168, as a function of cosθ
    n = 1 / 1.5168

    def closed(c):
        return -2 * np.arctan(np.sqrt(1 - c * c - n * n) / c)

    for h in (1e-5, 1e-6):
        fd = (closed(cos_i + h) - closed(cos_i - h)) / (2 * h)
        assert abs(fd - float(gradient)) < 1e-6 * abs(fd)
