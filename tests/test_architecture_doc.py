"""docs/architecture.md and docs/backend.md name only what exists.

Every ``be.NAME`` the architecture page mentions is a name of optics.backend, every
file it names (``loop.py``, ``optics/trace/``, ``tests/...``) exists, every dotted
``optics.x.y`` module imports, the root solvers of rule 5 are optics.solvers names, and
the backend page's hook table lists every optional hook of the backend contract.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import optics.backend as be
import optics.solvers
from optics.backend import _contract

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def test_every_be_name_exists():
    names = set(re.findall(r"\bbe\.([A-Za-z_]\w*)", ARCHITECTURE))
    assert names, "the page names no be function"
    assert sorted(n for n in names if not hasattr(be, n)) == []


def test_every_file_and_folder_named_exists():
    files = {p.name for p in (ROOT / "optics").rglob("*.py")}
    named = set(re.findall(r"\b([\w]+\.py)\b", ARCHITECTURE))
    assert sorted(n for n in named if n not in files and not (ROOT / "tests" / n).exists()) == []
    paths = set(re.findall(r"\b((?:optics|tests|docs)/[\w/.-]*\w)", ARCHITECTURE))
    assert sorted(p for p in paths if not (ROOT / p).exists()) == []


def test_every_dotted_module_imports():
    for name in set(re.findall(r"`(optics(?:\.\w+)+)`", ARCHITECTURE)):
        module, _, attribute = name.rpartition(".")
        try:
            importlib.import_module(name)
        except ImportError:
            assert hasattr(importlib.import_module(module), attribute), name


def test_the_root_solvers_named_are_the_solvers_package_s():
    rule = ARCHITECTURE[ARCHITECTURE.index("5. **") : ARCHITECTURE.index("6. **")]
    named = set(re.findall(r"`(\w+)`", rule))
    assert {"solve_scalar_root", "newton_2x2"} <= named
    assert sorted(n for n in named if not hasattr(optics.solvers, n)) == []


def test_the_backend_page_lists_every_optional_hook():
    page = (ROOT / "docs" / "backend.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\s*\| `(\w+)` \|", page, re.MULTILINE))
    assert set(_contract.OPTIONAL) <= rows, sorted(set(_contract.OPTIONAL) - rows)
