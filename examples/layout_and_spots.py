"""Layout and spot diagrams of the Cooke triplet.

The y–z section with a fan of rays per field, and the spot diagram of every field and
wavelength, written to ``layout_and_spots.png``.
"""

import optics
from optics.plot import layout_and_spots_figure, save_figure

optic = optics.load("cooke_triplet")
figure = layout_and_spots_figure(optic, rings=4)
save_figure(figure, "layout_and_spots.png")
print(optic)
