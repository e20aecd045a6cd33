"""The layers of docs/architecture.md: no import cycle, no import up the layers.

Every module's imports are read from its source with ``ast`` — function-level
imports included, since a function-level import is the usual way to hide a
cycle — and resolved to optics modules.  Each module has a layer (lower
numbers are more basic); a module may import from its own layer or lower
ones, never from a higher one, and the import graph must have no cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "optics"

#: (module-name prefix, layer), most specific prefix first.  Mirrors the layer
#: list of docs/architecture.md; a module not covered here fails the test.
LAYERS = (
    ("optics._version", 0),
    ("optics.errors", 0),
    ("optics._atomic", 0),
    ("optics._notebook", 0),
    ("optics.limits", 0),
    ("optics.backend", 0),
    ("optics.accel", 1),
    ("optics._scheduler", 1),
    ("optics.solvers", 1),
    ("optics.polynomials", 2),
    ("optics.geometry", 3),
    ("optics.rays", 4),
    ("optics.frames", 4),
    ("optics._glass_catalog", 4),
    ("optics._dispersion_formulas", 4),
    ("optics.materials", 4),
    ("optics.sampling", 4),
    ("optics.fields_vignetting", 4),
    ("optics.surfaces", 4),
    ("optics.apertures", 4),
    ("optics.thermal._air", 4),
    ("optics.thermal._environment", 4),
    ("optics.thermal._index", 4),
    ("optics.coatings", 5),
    ("optics.thermal._expansion", 5),
    ("optics.system", 5),
    ("optics.params", 5),
    ("optics._paraxial", 6),
    ("optics.trace.loop", 7),
    ("optics.trace.prepared", 7),
    ("optics.trace.launch", 8),
    ("optics.trace._aim_solve", 8),
    ("optics.trace.aim", 8),
    ("optics.trace.object_field", 9),
    ("optics.trace.real_image_height", 10),
    ("optics.trace.methods", 11),
    ("optics.trace.bundle", 12),
    ("optics.trace.entry", 13),
    ("optics.trace", 14),
    ("optics.analysis", 15),
    ("optics.polarization", 15),
    ("optics.thermal", 15),
    ("optics.configurations", 15),
    ("optics.ghosts", 15),
    ("optics.beams", 15),
    ("optics.optimize", 16),
    ("optics.gradcheck", 16),
    ("optics.tolerance", 17),
    ("optics.imaging", 17),
    ("optics.samples", 18),
    ("optics.io", 18),
    ("optics.plot", 19),
    ("optics.plot_wavefront", 19),
    ("optics.plot_analyses", 19),
    ("optics.plot_illumination", 19),
    ("optics.plot_fans", 19),
    ("optics.plot_spots", 19),
    ("optics.plot_ghosts", 19),
    ("optics.plot_notebook", 19),
    ("optics.plot_polarization", 19),
    ("optics.cli", 20),
    ("optics.__main__", 20),
    ("optics", 20),
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = all_modules()


def layer(name: str) -> int:
    for prefix, number in LAYERS:
        # The root package's entry is for optics/__init__.py alone, not a catch-all.
        if name == prefix or (prefix != "optics" and name.startswith(prefix + ".")):
            return number
    raise AssertionError(f"{name} has no layer: add it to LAYERS and docs/architecture.md")


def _resolve(current: str, is_package: bool, module: str | None, level: int) -> str:
    """The absolute name of ``from <level dots><module> import ...`` inside ``current``."""
    if level == 0:
        return module or ""
    base = current.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(name: str) -> set[str]:
    """The optics modules ``name`` imports anywhere in its source."""
    path = MODULES[name]
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(name, is_package, node.module, node.level)
            # ``from pkg import sub`` imports the submodule pkg.sub when there is one.
            targets = [
                f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source
                for alias in node.names
            ]
        elif isinstance(node, ast.Call):
            targets = _dynamic_imports(node)
        else:
            continue
        found |= {t for t in targets if t in MODULES and t != name}
    return found


def _dynamic_imports(call: ast.Call) -> list[str]:
    """Modules an ``import_module``/``__import__`` call or a backend registration loads.

    ``importlib.import_module("optics.x")`` and ``__import__("optics.x")`` with a
    constant name; ``BackendInfo(name, "_module", ...)``: the registry imports
    ``optics.backend._module`` when that backend is chosen (see _registry.load).
    """
    function = call.func
    called = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
    constants = [a.value for a in call.args if isinstance(a, ast.Constant)]
    strings = [c for c in constants if isinstance(c, str)]
    if called in ("import_module", "__import__") and strings:
        return [strings[0]]
    if called == "BackendInfo" and len(call.args) >= 2 and isinstance(call.args[1], ast.Constant):
        module = call.args[1].value
        return [f"optics.backend.{module}" if module.startswith("_") else module]
    return []


GRAPH = {name: imports_of(name) for name in MODULES}


def test_every_module_has_a_layer():
    for name in MODULES:
        layer(name)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_import_goes_up_the_layers(name):
    upward = sorted(t for t in GRAPH[name] if layer(t) > layer(name))
    assert not upward, f"{name} (layer {layer(name)}) imports higher layers: " + ", ".join(
        f"{t} (layer {layer(t)})" for t in upward
    )


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_package_has_no_import_cycle():
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_registry_s_backend_modules_count_as_its_imports():
    # The registry loads them with import_module: a cycle through them is a cycle.
    assert {"optics.backend._numpy_impl", "optics.backend._torch_impl"} <= GRAPH[
        "optics.backend._registry"
    ]


def test_relative_imports_resolve_like_python():
    assert _resolve("optics.trace.bundle", False, "loop", 1) == "optics.trace.loop"
    assert _resolve("optics.trace.bundle", False, None, 2) == "optics"
    assert _resolve("optics.trace", True, "bundle", 1) == "optics.trace.bundle"
    assert "optics.backend" in GRAPH["optics.trace.loop"]
