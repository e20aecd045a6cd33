"""Analyses of traced rays: pure functions of ray bundles.

Spot diagrams and ray fans, the wavefront (OPD and its Zernike fit), the FFT
PSF and Strehl ratio (polychromatic, converged), the Huygens PSF, the MTF
(also through focus and versus field), the through-focus spot, encircled energy, Seidel sums, field
curvature, distortion, colour, relative illumination, vignetting, footprints
and ray/OPD fans.  The implementation modules are private; these names are the
public API.
"""

from .. import backend as _be
from ._checks import require_focus
from ._colour import FocalShiftResult, LateralColorResult, chromatic_focal_shift, lateral_color
from ._converge import ConvergenceWarning
from ._distortion import DistortionResult, GridDistortion, distortion, grid_distortion
from ._fans import FanResult, fans
from ._field_curvature import FieldCurvatureResult, field_curvature
from ._footprint import FootprintResult, footprint
from ._huygens import HuygensResult, huygens_psf
from ._illumination import (
    IlluminationResult,
    illumination_ratio,
    relative_illumination,
    vignetting_fraction,
)
from ._mtf import MTFResult, diffraction_limit, geometric_mtf, mtf
from ._opd import bundle_opd, opd
from ._prescription import prescription, prescription_text
from ._psf import PSFResult, SamplingWarning, psf
from ._seidel import SeidelResult, seidel, wavefront_coefficients
from ._through_focus import ThroughFocusResult, best_focus, mtf_vs_field, through_focus_mtf
from ._through_focus_spot import ThroughFocusSpotResult, through_focus_spot
from ._wavefront import WavefrontResult, pupil_samples, wavefront
from ._zernike_fit import ZernikeFit, zernike_evaluate, zernike_fit
from .encircled_energy import EnergyResult, geometric_encircled_energy, psf_encircled_energy
from .spot import RayFan, SpotResult, ray_fan, spot_diagram, spot_statistics

__all__ = [
    "FanResult",
    "FootprintResult",
    "RayFan",
    "fans",
    "prescription",
    "prescription_text",
    "IlluminationResult",
    "footprint",
    "illumination_ratio",
    "relative_illumination",
    "vignetting_fraction",
    "ConvergenceWarning",
    "HuygensResult",
    "ThroughFocusResult",
    "ThroughFocusSpotResult",
    "best_focus",
    "huygens_psf",
    "mtf_vs_field",
    "through_focus_mtf",
    "through_focus_spot",
    "DistortionResult",
    "EnergyResult",
    "FieldCurvatureResult",
    "FocalShiftResult",
    "GridDistortion",
    "LateralColorResult",
    "MTFResult",
    "PSFResult",
    "SamplingWarning",
    "SeidelResult",
    "SpotResult",
    "WavefrontResult",
    "ZernikeFit",
    "bundle_opd",
    "chromatic_focal_shift",
    "diffraction_limit",
    "distortion",
    "field_curvature",
    "geometric_encircled_energy",
    "geometric_mtf",
    "grid_distortion",
    "lateral_color",
    "mtf",
    "opd",
    "psf",
    "psf_encircled_energy",
    "pupil_samples",
    "require_focus",
    "ray_fan",
    "seidel",
    "spot_diagram",
    "spot_statistics",
    "wavefront",
    "wavefront_coefficients",
    "zernike_evaluate",
    "zernike_fit",
]

_be.pin_public(globals(), __all__)  # one configuration per call, whatever other threads set
