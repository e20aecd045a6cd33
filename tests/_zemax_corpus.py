"""Where the shared Zemax corpus is, for the tests that read it (they skip without it)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """OPTICS_SHARED_DIR, else the ``shared/`` folder beside the repository."""
    value = os.environ.get("OPTICS_SHARED_DIR")
    return Path(value) if value else REPO.parent / "shared"


def corpus_dir() -> Path:
    """../shared/zemax/files: real .zmx files (never copied into the project)."""
    return shared_dir() / "zemax" / "files"
