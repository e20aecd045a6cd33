"""House rule 1: backend knowledge stays in optics/backend/.

The source of every optics module is parsed (never imported) and checked:
outside optics/backend/ no module imports torch in any form, reaches into the
backend's private implementation modules, or compares a backend name.  And
``import optics`` must not import torch.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "optics"
BACKEND = PACKAGE / "backend"
BACKEND_NAMES = {"torch", "numpy", "jax"}
IMPORTERS = {"import_module", "__import__", "find_spec", "import_optional"}
PRIVATE_BACKEND_MODULES = {
    "_torch_impl",
    "_numpy_impl",
    "_jax_impl",
    "_xp_impl",
    "_dispatch",
    "_registry",
    "_torch_compile",
    "_jax_compile",
}


def optics_sources():
    """Every optics/**/*.py outside optics/backend/, as (relative path, source)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        if BACKEND not in path.parents:
            yield str(path.relative_to(PACKAGE.parent)), path.read_text(encoding="utf-8")


def _is_torch(module_name):
    """torch or jax (the libraries only optics/backend/ may import)."""
    return module_name is not None and module_name.split(".")[0] in ("torch", "jax", "jaxlib")


def _is_sys_modules(node):
    return isinstance(node, ast.Attribute) and node.attr == "modules"


def _names_backend(node):
    """True for a "torch"/"numpy" literal, or a tuple/list/set of them."""
    if isinstance(node, ast.Constant):
        return node.value in BACKEND_NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_backend(e) for e in node.elts)
    return False


def _asks_backend(node):
    """True for ``get_backend()`` / ``be.get_backend()`` or a ``.name`` attribute."""
    if isinstance(node, ast.Call):
        func = node.func
        return getattr(func, "attr", getattr(func, "id", None)) == "get_backend"
    return isinstance(node, ast.Attribute) and node.attr == "name"


def _asks_availability(node):
    """True for ``"torch" in be.available_backends()``: choosing a backend, not branching."""
    right = node.comparators[0]
    return (
        isinstance(node.ops[0], (ast.In, ast.NotIn))
        and isinstance(right, ast.Call)
        and getattr(right.func, "attr", getattr(right.func, "id", None)) == "available_backends"
    )


def violations(source, filename="<source>"):
    """Lines of ``source`` that break the rule, as "file:line: what" strings."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if isinstance(node, ast.Import):
            found += [f"{where}: import {a.name}" for a in node.names if _is_torch(a.name)]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if _is_torch(module):
                found.append(f"{where}: from {module} import ...")
            private = {a.name for a in node.names} | {module.rsplit(".", 1)[-1]}
            if "backend" in module and private & PRIVATE_BACKEND_MODULES:
                found.append(f"{where}: imports a private backend module from {module}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = getattr(func, "attr", getattr(func, "id", None))
            first = node.args[0] if node.args else None
            from_sys_modules = name == "get" and _is_sys_modules(getattr(func, "value", None))
            if (name in IMPORTERS or from_sys_modules) and isinstance(first, ast.Constant):
                if _is_torch(str(first.value)):
                    found.append(f"{where}: {name}({first.value!r})")
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_asks_backend(s) for s in sides) and len(sides) > 1:
                if any(isinstance(s, ast.Call) for s in sides if _asks_backend(s)):
                    found.append(f"{where}: compares get_backend()")
                elif any(_names_backend(s) for s in sides):
                    found.append(f"{where}: compares .name with a backend name")
            elif any(_names_backend(s) for s in sides) and not _asks_availability(node):
                found.append(f"{where}: compares with a backend name")
        elif isinstance(node, ast.MatchValue) and _names_backend(node.value):
            found.append(f"{where}: matches a backend name")
        elif isinstance(node, ast.Attribute) and node.attr in PRIVATE_BACKEND_MODULES:
            found.append(f"{where}: uses the private backend module {node.attr}")
        elif isinstance(node, ast.Subscript) and _is_sys_modules(node.value):
            key = node.slice
            if isinstance(key, ast.Constant) and _is_torch(str(key.value)):
                found.append(f"{where}: looks torch up in sys.modules")
    return found


def test_no_module_outside_the_backend_imports_torch_or_compares_backend_names():
    problems = [v for path, src in optics_sources() for v in violations(src, path)]
    assert not problems, "backend knowledge outside optics/backend/:\n" + "\n".join(problems)


def test_the_source_scan_covers_the_package():
    paths = [path for path, _ in optics_sources()]
    assert "optics/__init__.py" in paths and "optics/cli/__init__.py" in paths
    assert not any(p.startswith("optics/backend/") for p in paths)


@pytest.mark.parametrize(
    "line",
    [
        "import torch",
        "import torch.nn as nn",
        "import numpy, torch",
        "from torch import nn",
        "from torch.autograd import grad",
        "importlib.import_module('torch')",
        "__import__('torch.nn')",
        "importlib.util.find_spec('torch')",
        "from optics.backend import _torch_impl",
        "from .backend._dispatch import impl_of",
        "impl = be._torch_impl",
        "torch = sys.modules['torch']",
        "torch = sys.modules.get('torch')",
        "if be.get_backend() == 'torch': pass",
        "if get_backend() != 'numpy': pass",
        "ok = be.get_backend() in ('torch',)",
        "ok = impl.name == 'torch'",
        "ok = 'numpy' == xp.name",
        "ok = args.backend == 'torch'",
        "match be.get_backend():\n    case 'torch': pass",
    ],
)
def test_the_scan_catches(line):
    assert violations(line), f"not caught: {line}"


@pytest.mark.parametrize(
    "line",
    [
        "import numpy as np",
        "from optics import backend as be",
        "from . import backend as be",
        "x = be.where(be.isfinite(y), y, 0.0)",
        "ok = surface.name == 'stop'",
        "be.set_backend(args.backend)",
        "importlib.import_module('optics.cli._trace')",
        "name = 'torch' if 'torch' in be.available_backends() else 'numpy'",
    ],
)
def test_the_scan_allows(line):
    assert violations(line) == []


@pytest.mark.parametrize(
    "statement",
    ["import optics", "import optics.cli", "from optics.cli import build_parser; build_parser()"],
    ids=["optics", "optics.cli", "cli-parser"],
)
def test_importing_optics_does_not_import_torch(statement):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPTICS_")}
    code = (
        f"import sys; {statement}; print(sorted(m for m in sys.modules if m.startswith('torch')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
