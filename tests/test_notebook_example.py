"""The example notebook docs/examples/cooke_triplet.ipynb runs headless and shows HTML views."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import optics
from optics._notebook import cell

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "examples" / "cooke_triplet.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    # The kernel imports this tree's optics whatever the folder it starts in.
    root = str(NOTEBOOK.parents[2])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p)
    client = nbclient.NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path_factory.mktemp("notebook"))}},
    )
    with pytest.MonkeyPatch.context() as patch:  # the kernel inherits the environment
        patch.setenv("PYTHONPATH", path)
        patch.setenv("MPLBACKEND", "Agg")
        client.execute()
    return notebook


def html_outputs(notebook):
    code = [c for c in notebook.cells if c.cell_type == "code"]
    return [
        next((o["data"]["text/html"] for o in c.outputs if "text/html" in o.get("data", {})), None)
        for c in code
    ]


def test_every_code_cell_shows_a_well_formed_html_view(executed):
    outputs = html_outputs(executed)
    assert all(outputs), "a code cell showed no HTML"
    for fragment in outputs:
        root = ET.fromstring(fragment)
        assert any(e.tag.endswith("svg") for e in root.iter())


def test_the_optic_view_in_the_notebook_holds_its_focal_length(executed):
    efl = optics.paraxial(optics.load("cooke_triplet")).as_floats()["efl"]
    assert f"<td>{cell(efl)}</td>" in html_outputs(executed)[0]
