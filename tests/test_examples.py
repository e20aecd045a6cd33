"""Every gallery example (examples/*.py) runs as a script and writes the picture it promises."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "examples").glob("*.py"))

pytest.importorskip("matplotlib")


def promised_pictures(script: Path) -> set[str]:
    """The ``NAME.png`` files the script's docstring says it writes."""
    doc = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or ""
    return set(re.findall(r"``([\w.-]+\.png)``", doc))


def test_there_are_examples_and_each_names_its_picture():
    assert SCRIPTS
    for script in SCRIPTS:
        assert promised_pictures(script), f"{script.name}: the docstring names no ``NAME.png``"


@pytest.mark.parametrize("script", SCRIPTS, ids=[s.stem for s in SCRIPTS])
def test_example_runs_and_writes_its_pictures(script, tmp_path):
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    written = {p.name for p in tmp_path.glob("*.png")}
    assert written == promised_pictures(script)
    for name in written:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
