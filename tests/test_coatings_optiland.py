"""Thin-film stacks against Optiland 0.6.3's numbers (tests/data/coatings/optiland_thin_film.json).

The data were computed in Optiland's own environment by
tests/data/coatings/make_optiland_reference.py (constant-index media only).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from optics import backend as be
from optics.coatings import Coating, ComplexIndex, Layer

DATA = json.loads(
    (Path(__file__).parent / "data" / "coatings" / "optiland_thin_film.json").read_text()
)


@pytest.mark.parametrize("name", sorted(DATA["stacks"]))
def test_stacks_agree_with_optiland(name):
    entry = DATA["stacks"][name]
    n1 = complex(*entry["incident"])
    n2 = complex(*entry["substrate"])
    layers = [Layer(ComplexIndex(n, k), 1e3 * d) for n, k, d in entry["layers"]]
    coating = Coating(layers, order="as_listed")
    wavelength = be.asarray(np.array(DATA["wavelengths_um"])[:, None])
    cos_i = be.asarray(np.cos(np.radians(DATA["angles_deg"]))[None, :])
    rs, rp, ts, tp = (be.to_numpy(v) for v in coating.power(n1, n2, cos_i, wavelength))
    r_s = be.to_numpy(coating.amplitudes(n1, n2, cos_i, wavelength)[0])
    pairs = ((rs, "s", "R"), (ts, "s", "T"), (rp, "p", "R"), (tp, "p", "T"))
    for ours, polarization, key in pairs:
        np.testing.assert_allclose(ours, entry[polarization][key], rtol=0, atol=1e-12)
    reference_rs = np.array(entry["s"]["r_re"]) + 1j * np.array(entry["s"]["r_im"])
    # Optiland's phases are those of exp(+iωt): its amplitudes are the conjugates of ours
    np.testing.assert_allclose(np.conj(r_s), reference_rs, rtol=0, atol=1e-12)
