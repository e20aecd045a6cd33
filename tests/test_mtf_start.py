"""The MTF's convergence test starts at most at N = 128: the double Gauss sample's full field,
whose wavefront slope asks N = 1024 for an alias-free PSF, converges at N <= 256 to within the
MTF tolerance (0.01) of a finer sampling, without the PSF's aliasing warning (at the default
frequencies, ten steps to the cutoff; at 25-50 cycles/mm the same field needs N = 1024, which the
test still reaches: the slope rule's N stays the largest N)."""

from __future__ import annotations

import warnings

import numpy as np

import optics
from optics import backend as be
from optics.analysis import mtf
from optics.analysis._psf_core import MTF_START_SAMPLES, SamplingWarning, choose_samples


def test_the_double_gauss_full_field_mtf_converges_from_a_modest_start():
    optic = optics.load("double_gauss")
    field = (0.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the sample's paraxial-aiming notice
        warnings.simplefilter("error", SamplingWarning)
        assert choose_samples(optic, field, optic.primary_wavelength, warn=False) >= 800
        result = mtf(optic, [field])  # ten steps to the cutoff, as optics mtf prints
        assert result.samples <= 2 * MTF_START_SAMPLES
        assert result.accuracy <= 0.01
        fine = mtf(optic, [field], result.frequencies, samples=512)
    for ours, finer in ((result.tangential, fine.tangential), (result.sagittal, fine.sagittal)):
        np.testing.assert_allclose(be.to_numpy(ours), be.to_numpy(finer), atol=0.01)
