"""The public face: every public name is the function or class, whatever was imported first.

A submodule imported under a package rebinds the package attribute of the same
name to the module, so a public function may never share its name with a
module beside it.  Each check runs in a fresh interpreter, after importing
every optics module (the worst order a user's program can produce).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

_PROBE = r"""
import importlib, json, pkgutil, types
import optics
if {import_everything}:
    for info in pkgutil.walk_packages(optics.__path__, "optics."):
        if ".cli" in info.name or info.name.endswith("__main__"):
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:  # an optional dependency (matplotlib, dask) that is absent
            pass
report = {{}}
for package in ("optics", "optics.analysis", "optics.trace", "optics.optimize"):
    module = importlib.import_module(package)
    for name in module.__all__:
        value = getattr(module, name)
        kind = "module" if isinstance(value, types.ModuleType) else type(value).__name__
        report[f"{{package}}.{{name}}"] = kind
report["dir"] = dir(optics)
print(json.dumps(report))
"""

#: Public names that are modules on purpose.
MODULES = {"optics.backend", "optics.samples", "optics.coatings"}


def _names(import_everything: bool) -> dict:
    code = _PROBE.format(import_everything=import_everything)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def after_everything():
    return _names(True)


@pytest.fixture(scope="module")
def alone():
    return _names(False)


def test_no_public_name_turns_into_a_module_after_other_imports(after_everything):
    modules = {n for n, kind in after_everything.items() if kind == "module"} - MODULES
    assert not modules, f"public names that became modules: {sorted(modules)}"


def test_public_names_mean_the_same_in_any_import_order(after_everything, alone):
    assert after_everything == alone


def test_dir_of_optics_lists_only_public_names(alone):
    import optics

    assert set(alone["dir"]) == set(optics.__all__)
    assert not [n for n in alone["dir"] if n.startswith("_") and n != "__version__"]


def test_paraxial_after_load_is_the_function():
    # The README's first example: load (which imports the paraxial module) then call.
    code = (
        "import optics\n"
        "optic = optics.load('cooke_triplet')\n"
        "print(optics.paraxial(optic).as_floats()['efl'])\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert abs(float(done.stdout) - 50.0) < 0.01


def test_the_analyses_are_exported_at_the_top():
    import optics
    from optics import analysis

    for name in ("wavefront", "psf", "mtf", "opd", "psf_encircled_energy", "spot_diagram"):
        assert getattr(optics, name) is getattr(analysis, name)
        assert callable(getattr(optics, name))
