"""The worked examples of docs/optimization.md run as written.

Each "### Example" section's code blocks are executed in order: a ``toml``
block whose first line is ``# file: NAME`` is written to NAME, a ``console``
block's ``$ optics ...`` lines are run through ``optics.cli.main``, and the
``python`` blocks run in one namespace.  Everything happens in a temporary
directory.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from optics.cli import main

DOC = Path(__file__).resolve().parents[1] / "docs" / "optimization.md"
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _examples():
    text = DOC.read_text(encoding="utf-8")
    sections = re.split(r"^### ", text, flags=re.MULTILINE)[1:]
    return {s.splitlines()[0]: _BLOCK.findall(s) for s in sections if s.startswith("Example")}


EXAMPLES = _examples()
NEEDS_TORCH = {
    title
    for title, blocks in EXAMPLES.items()
    if any('"torch"' in code or "--backend torch" in code for _, code in blocks)
}


def test_the_page_has_four_worked_examples():
    assert len(EXAMPLES) == 4
    assert all(any(lang == "python" for lang, _ in blocks) for blocks in EXAMPLES.values())


@pytest.mark.parametrize("title", sorted(EXAMPLES), ids=lambda t: t.split(":")[0].replace(" ", "_"))
def test_worked_example_runs(title, tmp_path, monkeypatch, capsys):
    if title in NEEDS_TORCH:
        pytest.importorskip("torch")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_example"}
    for lang, code in EXAMPLES[title]:
        if lang == "toml":
            first, _, _ = code.partition("\n")
            name = re.fullmatch(r"# file: (\S+)", first.strip())
            assert name, "a toml example block starts with '# file: NAME'"
            Path(name.group(1)).write_text(code, encoding="utf-8")
        elif lang == "console":
            for line in code.splitlines():
                if line.startswith("$ optics "):
                    assert main(shlex.split(line)[2:]) == 0, capsys.readouterr().err
        elif lang == "python":
            exec(compile(code, f"{DOC.name}: {title}", "exec"), namespace)
