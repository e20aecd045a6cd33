"""MTF of the Cooke triplet.

The polychromatic diffraction MTF of three fields, tangential and sagittal, with the
diffraction limit, from 0 to 100 cycles/mm; written to ``mtf.png``.
"""

import numpy as np

import optics
from optics import analysis
from optics.plot import save_figure
from optics.plot_wavefront import mtf_figure

optic = optics.load("cooke_triplet")
result = analysis.mtf(optic, frequencies=np.linspace(0.0, 100.0, 21))
save_figure(mtf_figure(result, name=optic.name), "mtf.png")
print(result)
