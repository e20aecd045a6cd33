"""Where the shared Zemax corpus is, for the tests that read it (they skip without it).

Every such test skips with :func:`absent_reason`; tests/conftest.py folds those skips
into one line of the summary and says in the header whether the corpus is here. The
reader is always tested on our own files in tests/data/zemax (tests/test_zemax_own.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Words every corpus skip reason starts with (conftest.py finds the skips by them).
ABSENT = "the shared Zemax corpus is absent"


def shared_dir() -> Path:
    """OPTICS_SHARED_DIR, else the ``shared/`` folder beside the repository."""
    value = os.environ.get("OPTICS_SHARED_DIR")
    return Path(value) if value else REPO.parent / "shared"


def corpus_dir() -> Path:
    """../shared/zemax/files: real .zmx files (never copied into the project)."""
    return shared_dir() / "zemax" / "files"


def absent_reason() -> str:
    """The one skip reason of every test that needs the corpus."""
    return f"{ABSENT} ({corpus_dir()}; set OPTICS_SHARED_DIR to the folder holding zemax/files)"


#: Decorator (or ``pytestmark``) for a test that reads the corpus.
needs_corpus = pytest.mark.skipif(not corpus_dir().is_dir(), reason=absent_reason())


def corpus_file(name: str) -> Path:
    """The corpus file NAME, or skip the test (with :func:`absent_reason`) without it."""
    path = corpus_dir() / name
    if not path.is_file():
        pytest.skip(absent_reason())
    return path
