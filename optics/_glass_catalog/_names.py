"""Glass names: folding, the lead-free aliases, glass families and the unknown-glass message."""

from __future__ import annotations

import difflib
import re

LEAD_FREE_PREFIXES = ("N-", "P-", "S-", "H-")
"""Prefixes tried, in order, for a glass name no catalog has (``BK7`` -> schott ``N-BK7``):
the vendors' marks of their lead- and arsenic-free versions (Schott N- and P-, Ohara S-,
CDGM H-)."""

_VENDOR_MARK = re.compile(r"^[A-Z]{1,2}-")
_FAMILY = re.compile(r"^[A-Z]+")
_SUGGESTIONS = 5


def _fold(name: str) -> str:
    """A glass name compared without case, spaces, hyphens or underscores."""
    return re.sub(r"[\s\-_]", "", name).casefold()


def find_marked(prefix, name, searched):
    """(name, catalog) of the first glass named ``prefix`` + ``name`` (``N-`` + ``BK7``), or None.

    The mark is matched as written, hyphen included, and the rest as :func:`_fold` does,
    so ``K4`` behind ``S-`` is no ``SK4`` and ``F9`` no ``SF9``.
    """
    folded, size = _fold(name), len(prefix)
    for cat, pages in searched.items():
        for page in pages:
            if page[:size].upper() == prefix and _fold(page[size:]) == folded:
                return page, cat
    return None


def _find_folded(folded, searched):
    for cat, pages in searched.items():
        for page in pages:
            if _fold(page) == folded:
                return page, cat
    return None


def glass_family(name: str) -> str:
    """The family letters of a glass name: ``N-BK7`` -> ``BK``, ``SF11`` -> ``SF``."""
    core = _VENDOR_MARK.sub("", name.strip().upper())
    match = _FAMILY.match(core)
    return match.group() if match else core


def _unknown_glass_message(name, catalog, searched, index):
    """Say that a glass is unknown, with the closest names and any other catalog that has it.

    Names of the same family (:func:`glass_family`) come first, the closest
    spelling first among them; then other close spellings.
    """
    first_catalog: dict = {}
    for cat, pages in searched.items():
        for page in pages:
            first_catalog.setdefault(page.upper(), (page, cat))
    wanted = name.upper()
    core = _VENDOR_MARK.sub("", wanted)
    family = glass_family(name)
    same = [k for k in first_catalog if glass_family(k) == family]
    same.sort(key=lambda k: -difflib.SequenceMatcher(None, core, _VENDOR_MARK.sub("", k)).ratio())
    close = difflib.get_close_matches(wanted, list(first_catalog), n=_SUGGESTIONS)
    ranked = list(dict.fromkeys(same[:_SUGGESTIONS] + close))[:_SUGGESTIONS]
    where = f" in catalog {catalog!r}" if catalog is not None else ""
    message = f"unknown glass {name!r}{where}"
    elsewhere = [cat for cat, pages in index.items() if name in pages]
    if elsewhere:
        message += f" (catalogs that have it: {', '.join(elsewhere)})"
    if ranked:
        listed = ", ".join(f"{first_catalog[c][0]} ({first_catalog[c][1]})" for c in ranked)
        return f"{message}; closest names: {listed}"
    return f"{message}; no close names"
