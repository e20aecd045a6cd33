"""Sphinx extension of the optics site: the API reference pages and the example gallery.

Both are generated into ``docs/_generated/`` (git-ignored) when the configuration is read
(before autosummary writes its stub pages):

- ``api/``: one autosummary table per public package (``PUBLIC_PACKAGES``: ``optics`` and
  its public subpackages), listing every name of its ``__all__``; autosummary then writes
  one page per name from its docstring (numpydoc renders the sections).
- ``gallery/``: every ``examples/*.py`` script is run in a folder of its own (headless
  matplotlib, this tree's ``optics``); its page holds the script's docstring, the PNG
  files it wrote and its source.  A script that fails fails the build.

A Markdown link to a repository file outside the docs (``../optics/params.py``) is kept
as its text; every other unresolved link stays a warning (the build runs with ``-W``).
"""

from __future__ import annotations

import ast
import importlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from docutils import nodes
from sphinx.errors import ExtensionError
from sphinx.util import logging

LOG = logging.getLogger(__name__)
DOCS = Path(__file__).resolve().parents[1]
ROOT = DOCS.parent
GENERATED = DOCS / "_generated"
#: The packages whose ``__all__`` is the public API (as tests/test_public_api.py).
PUBLIC_PACKAGES = (
    "optics",
    "optics.analysis",
    "optics.trace",
    "optics.optimize",
    "optics.imaging",
    "optics.tolerance",
    "optics.thermal",
    "optics.coatings",
    "optics.polarization",
    "optics.ghosts",
    "optics.beams",
    "optics.io",
)
EXAMPLE_TIMEOUT_S = 120


def public_names() -> dict[str, list[str]]:
    """Package -> its public names, in ``__all__`` order without repeats."""
    names = {}
    for package in PUBLIC_PACKAGES:
        module = importlib.import_module(package)
        names[package] = list(dict.fromkeys(module.__all__))
    return names


def _write(path: Path, text: str):
    """Write only when the text changed (so that Sphinx rebuilds only what changed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _aliases(names: dict[str, list[str]]) -> dict[str, str]:
    """``optics.NAME`` -> ``optics.PACKAGE.NAME`` where the root re-exports a subpackage's name.

    The object gets its page once, under the subpackage; the root's table links to it.
    """
    root = importlib.import_module("optics")
    found = {}
    for package in PUBLIC_PACKAGES[1:]:
        module = importlib.import_module(package)
        for name in names[package]:
            if name in names["optics"] and getattr(root, name) is getattr(module, name):
                found.setdefault(name, f"{package}.{name}")
    return found


def write_api_pages(folder: Path = GENERATED / "api"):
    """Write the API index and one autosummary page per public package into ``folder``."""
    lines = ["API reference", "=============", ""]
    lines += [
        "Every public name of the library, with its docstring (units and shapes in the",
        "Parameters and Returns sections).  The implementation modules are private.",
        "",
        ".. toctree::",
        "   :maxdepth: 1",
        "",
    ]
    lines += [f"   {package}" for package in PUBLIC_PACKAGES]
    _write(folder / "index.rst", "\n".join(lines) + "\n")
    names = public_names()
    aliases = _aliases(names)
    for package, listed in names.items():
        title = f"``{package}``"
        page = [title, "=" * len(title), "", f".. currentmodule:: {package}", ""]
        # __version__ is a str: its page would be str's docstring; it gets a line instead.
        own = [
            n for n in listed if n != "__version__" and (package != "optics" or n not in aliases)
        ]
        if "__version__" in listed:
            version = importlib.import_module(package).__version__
            page += [f"- ``{package}.__version__``: the version, ``{version}``", ""]
        page += [".. autosummary::", "   :toctree: stubs", ""]
        page += [f"   {name}" for name in own]
        if package == "optics" and aliases:
            page += ["", "Also here, documented in their subpackage:", ""]
            page += [f"- ``optics.{n}``: :py:obj:`{aliases[n]}`" for n in listed if n in aliases]
        _write(folder / f"{package}.rst", "\n".join(page) + "\n")


def _docstring(script: Path) -> tuple[str, str]:
    """(title, the rest) of a script's module docstring."""
    text = ast.get_docstring(ast.parse(script.read_text(encoding="utf-8"))) or script.stem
    title, _, rest = text.partition("\n")
    return title.strip().rstrip("."), rest.strip()


def start_example(script: Path, folder: Path) -> subprocess.Popen:
    """Start one example in a fresh ``folder`` (headless matplotlib, this tree's optics)."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, str(script)],
        cwd=folder,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_examples(scripts: list[Path]) -> dict[Path, list[Path]]:
    """Run every example at once (each is one process); script -> the PNG files it wrote."""
    start = time.perf_counter()
    running = {s: start_example(s, GENERATED / "gallery" / s.stem) for s in scripts}
    failed = []
    for script, process in running.items():
        try:
            _, stderr = process.communicate(timeout=EXAMPLE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            _, stderr = process.communicate()
            stderr += f"\n(killed after {EXAMPLE_TIMEOUT_S} s)"
        if process.returncode != 0:
            failed.append(f"example {script.name} failed:\n{stderr[-2000:]}")
    if failed:
        raise ExtensionError("\n".join(failed))
    LOG.info(f"gallery: {len(scripts)} examples ran in {time.perf_counter() - start:.1f} s")
    return {s: sorted((GENERATED / "gallery" / s.stem).glob("*.png")) for s in scripts}


def write_gallery():
    """Run every example and write its gallery page (and the gallery index)."""
    scripts = sorted((ROOT / "examples").glob("*.py"))
    about = "Each example is a script in `examples/`, run when the site is built."
    index = ["# Gallery", "", about, ""]
    index += ["```{toctree}", ":maxdepth: 1", ""] + [s.stem for s in scripts] + ["```", ""]
    _write(GENERATED / "gallery" / "index.md", "\n".join(index))
    for script, images in run_examples(scripts).items():
        title, rest = _docstring(script)
        page = [f"# {title}", "", rest, ""]
        page += [f"![{title}]({script.stem}/{image.name})" + "\n" for image in images]
        page += [
            f"Source: `examples/{script.name}`",
            "",
            f"```{{literalinclude}} ../../../examples/{script.name}",
            ":language: python",
            "```",
            "",
        ]
        _write(GENERATED / "gallery" / f"{script.stem}.md", "\n".join(page))


def escape_bars(app, what, name, obj, options, lines):
    """``|x|`` in a docstring is an absolute value, not a reStructuredText substitution."""
    for k, line in enumerate(lines):
        bare = line.strip()
        if "|" not in line or (bare[:1] in "|+" and bare[-1:] in "|+"):  # a grid table's row
            continue
        parts = line.split("``")  # outside ``literals`` only (the odd parts are inside)
        parts[::2] = [p.replace("\\|", "|").replace("|", "\\|") for p in parts[::2]]
        lines[k] = "``".join(parts)


def generate(app, config):
    """Sphinx ``config-inited``: the API pages and the gallery."""
    # autosummary writes the stubs again; an old one (a name no longer public) would be
    # a page outside every toctree, a warning
    shutil.rmtree(GENERATED / "api" / "stubs", ignore_errors=True)
    write_api_pages()
    write_gallery()


def keep_repository_links(app, env, node, contnode):
    """A link to a file of the repository outside docs/ becomes its text (no warning)."""
    target = node.get("reftarget", "")
    if node.get("refdomain") not in (None, "", "std") or node.get("reftype") != "myst":
        return None
    source = Path(env.doc2path(node.get("refdoc", env.docname))).parent
    path = (source / target.split("#")[0]).resolve()
    if target and path.is_file() and DOCS not in path.parents:
        return contnode if isinstance(contnode, nodes.Node) else nodes.Text(target)
    return None


def setup(app):
    app.connect("config-inited", generate)  # before autosummary writes its stubs
    app.connect("missing-reference", keep_repository_links)
    app.connect("autodoc-process-docstring", escape_bars, priority=100)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
