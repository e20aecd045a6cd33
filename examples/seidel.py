"""Seidel sums of the Cooke triplet.

The five Seidel sums and the two chromatic ones of every surface, and their totals, as
grouped bars (mm); written to ``seidel.png``.
"""

import optics
from optics import analysis
from optics.plot import save_figure
from optics.plot_analyses import seidel_figure

optic = optics.load("cooke_triplet")
result = analysis.seidel(optic)
save_figure(seidel_figure(result, optic), "seidel.png")
print(result)
