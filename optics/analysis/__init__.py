"""Analyses of traced rays: pure functions of ray bundles.

Spot diagrams and ray fans, the wavefront (OPD and its Zernike fit), the FFT
PSF and Strehl ratio, the MTF, and encircled energy.  The implementation
modules are private; these names are the public API.
"""

from ._mtf import MTFResult, diffraction_limit, geometric_mtf, mtf
from ._opd import bundle_opd, opd
from ._psf import PSFResult, SamplingWarning, psf
from ._wavefront import WavefrontResult, pupil_samples, wavefront
from ._zernike_fit import ZernikeFit, zernike_evaluate, zernike_fit
from .encircled_energy import EnergyResult, geometric_encircled_energy, psf_encircled_energy
from .spot import SpotResult, ray_fan, spot_diagram, spot_statistics

__all__ = [
    "EnergyResult",
    "MTFResult",
    "PSFResult",
    "SamplingWarning",
    "SpotResult",
    "WavefrontResult",
    "ZernikeFit",
    "bundle_opd",
    "diffraction_limit",
    "geometric_encircled_energy",
    "geometric_mtf",
    "mtf",
    "opd",
    "psf",
    "psf_encircled_energy",
    "pupil_samples",
    "ray_fan",
    "spot_diagram",
    "spot_statistics",
    "wavefront",
    "zernike_evaluate",
    "zernike_fit",
]
