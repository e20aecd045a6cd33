"""What the wheel ships: every data file of the package, one version, the samples loadable.

From the source tree the package-data patterns of pyproject.toml are checked against the
data files git tracks under optics/, and the version's other mentions (CHANGELOG.md,
conda/meta.yaml) against optics/_version.py.  .ci/wheel-check also runs this file against
the installed wheel, from a folder without the source tree: there the source-tree tests
skip and the installed samples are checked against the list the script passes
(``OPTICS_WHEEL_DATA``: the tree's data files, one per line, relative to optics/).
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
from pathlib import Path

import pytest

import optics

PACKAGE = Path(optics.__file__).resolve().parent
ROOT = PACKAGE.parent
IN_TREE = (ROOT / "pyproject.toml").is_file() and (ROOT / ".git").exists()
in_tree = pytest.mark.skipif(not IN_TREE, reason="runs from the source tree (git, pyproject)")


def tracked_data_files() -> list[str]:
    """Non-Python files git tracks under optics/, relative to optics/ (posix)."""
    listed = subprocess.run(
        ["git", "ls-files", "optics"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return sorted(
        str(Path(p).relative_to("optics").as_posix())
        for p in listed
        if not p.endswith((".py", ".pyc")) and "__pycache__" not in p
    )


def package_data() -> dict[str, list[str]]:
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return config["tool"]["setuptools"]["package-data"]


def shipped(relative: str, patterns: dict[str, list[str]]) -> bool:
    """Whether ``relative`` (to optics/) matches a package-data pattern of its package."""
    folder, name = os.path.split(relative)
    package = ".".join(["optics", *filter(None, folder.split("/"))])
    return any(fnmatch.fnmatch(name, p) for p in patterns.get(package, ()))


@in_tree
def test_every_data_file_of_the_package_is_package_data():
    patterns = package_data()
    missing = [f for f in tracked_data_files() if not shipped(f, patterns)]
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"


@in_tree
def test_every_folder_with_data_is_a_package():
    # setuptools finds packages by their __init__.py; data in any other folder is left out
    for relative in tracked_data_files():
        folder = (PACKAGE / relative).parent
        assert (folder / "__init__.py").is_file(), f"{folder} has data but no __init__.py"


def test_installed_data_files_are_there():
    expected = os.environ.get("OPTICS_WHEEL_DATA")
    files = expected.split() if expected is not None else (tracked_data_files() if IN_TREE else [])
    if not files:
        pytest.skip("no list of data files (neither OPTICS_WHEEL_DATA nor the source tree)")
    missing = [f for f in files if not (PACKAGE / f).is_file()]
    assert not missing, f"data files missing from {PACKAGE}: {missing}"


def test_every_sample_loads():
    names = optics.samples.names()
    assert "cooke_triplet" in names
    for name in names:
        assert len(optics.load(name).surfaces) >= 3
    from optics.samples import zemax

    assert zemax.names()
    for name in zemax.names():
        assert len(optics.load(zemax.path(name)).surfaces) >= 3


@in_tree
def test_the_version_is_said_once_and_repeated_only_where_checked():
    version = optics.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+|rc\d+)?", version)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'dynamic = ["version"]' in pyproject
    assert 'version = { attr = "optics._version.__version__" }' in pyproject
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[?(\d+\.\d+\.\d+\S*?)\]?(?: |$)", changelog, re.MULTILINE)
    assert releases and releases[0] == version, "CHANGELOG.md's latest release"
    recipe = (ROOT / "conda" / "meta.yaml").read_text(encoding="utf-8")
    pattern = re.search(r"regex_pattern='(.+?)'(?=\s*[,)])", recipe).group(1)
    source = (PACKAGE / "_version.py").read_text(encoding="utf-8")
    assert re.search(pattern, source).group(1) == version, "conda/meta.yaml reads the version"
