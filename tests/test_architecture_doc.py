"""docs/architecture.md and docs/backend.md name only what exists.

Every ``be.NAME`` the architecture page mentions is a name of optics.backend, every
file it names (``loop.py``, ``optics/trace/``, ``tests/...``) exists, every dotted
``optics.x.y`` module imports, the root solvers of rule 5 are optics.solvers names, and
the backend page's contract tables list the protocols' names and signatures (_contract.py).
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


BACKEND_PAGE = (ROOT / "docs" / "backend.md").read_text(encoding="utf-8")
_ROW = re.compile(r"^\| `(\w+)` \| (attribute|`\(.*?\)`) \|", re.MULTILINE)


def _contract_tables():
    """The contract section's tables: (name, signature or "attribute") rows, table by table."""
    section = BACKEND_PAGE[BACKEND_PAGE.index("## The contract") :]
    section = section[: section.index("\n## ", 1)]
    tables = [t for t in re.split(r"\n\s*\n", section) if t.lstrip().startswith("|")]
    return [[(n, sig.strip("`")) for n, sig in _ROW.findall(table)] for table in tables]


def _expected(names):
    return [
        (n, "attribute" if _contract.signature(n) is None else str(_contract.signature(n)))
        for n in names
    ]


def test_the_backend_page_lists_the_protocols_names_and_signatures_in_order():
    tables = _contract_tables()
    assert len(tables) == 4, "Backend, AutodiffBackend, CompilingBackend and Hooks tables"
    for table, names in zip(
        tables, (_contract.REQUIRED, _contract.AUTODIFF, _contract.COMPILE, _contract.OPTIONAL)
    ):
        assert table == _expected(names)


def test_a_name_missing_from_the_page_or_a_changed_signature_is_caught():
    required = _contract_tables()[0]
    assert required[1:] != _expected(_contract.REQUIRED)  # one row fewer
    changed = [(n, "(x)") if n == "sqrt" else (n, sig) for n, sig in required]
    assert changed != _expected(_contract.REQUIRED)
