"""Every ```python block of README.md and docs/*.md runs as written, on its own.

Each block is saved as a file and runs in a fresh interpreter (``python
block.py``) in an empty folder, so it cannot lean on an earlier block's names.
What a reader following the page would have made first is made first: the
page's files (a block whose first line is
``# file: NAME`` is written to NAME) and the output of its ``$ optics ...``
console lines whose ``-o`` file a later Python block loads (``load("NAME")``).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^( *)```(\w+)\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
_FILE = re.compile(r"^# file: (\S+)")
_SCRIPT = "block.py"
"""The name each block is saved under and run as (``python block.py``), as a reader runs a
saved example: code that ``-c`` hides (multiprocessing's spawn re-imports the main file,
so Dask workers need an ``if __name__ == "__main__":`` guard) fails here as it would there."""


def _blocks():
    cases = []
    for page in PAGES:
        found = _BLOCK.findall(page.read_text(encoding="utf-8"))
        # A block indented under a list item runs dedented.
        blocks = [(lang, textwrap.dedent(code)) for _indent, lang, code in found]
        python = [i for i, (lang, _) in enumerate(blocks) if lang == "python"]
        for number, position in enumerate(python):
            cases.append(pytest.param(page, blocks, position, id=f"{page.name}:{number}"))
    return cases


def _output_of(line: str) -> str | None:
    try:
        words = shlex.split(line.lstrip("$ ").split("#")[0])
    except ValueError:  # a line continued on the next one: not a command to run alone
        return None
    for flag in ("-o", "--output"):
        if flag in words and words.index(flag) + 1 < len(words):
            return words[words.index(flag) + 1]
    return None


def _prepare(blocks, position, folder):
    """Write the page's files and run the console lines the block's code reads the output of."""
    code = blocks[position][1]
    for _lang, text in blocks:
        named = _FILE.match(text)
        if named:
            (folder / named.group(1)).write_text(text, encoding="utf-8")
    for lang, text in blocks[:position]:
        if lang != "console":
            continue
        for line in text.splitlines():
            output = _output_of(line) if line.startswith("$ optics ") else None
            if output and re.search(rf"load\(\s*[\"']{re.escape(output)}[\"']", code):
                words = shlex.split(line[2:].split("#")[0])
                command = [sys.executable, "-m", "optics", *words[1:]]
                subprocess.run(command, cwd=folder, check=True, capture_output=True, env=_env())


def _env():
    return {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}


def test_the_pages_have_python_blocks():
    assert len(_blocks()) >= 10


@pytest.mark.parametrize(("page", "blocks", "position"), _blocks())
def test_python_block_runs_on_its_own(page, blocks, position, tmp_path):
    code = blocks[position][1]
    if "torch" in code:
        pytest.importorskip("torch")
    if "jax" in code:
        pytest.importorskip("jax")
    _prepare(blocks, position, tmp_path)
    script = tmp_path / _SCRIPT
    script.write_text(code, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, _SCRIPT], cwd=tmp_path, capture_output=True, text=True, env=_env()
    )
    assert done.returncode == 0, f"{page.name}: the block failed:\n{code}\n{done.stderr[-2000:]}"
