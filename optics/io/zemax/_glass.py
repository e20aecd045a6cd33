"""GLAS lines to lens-file materials: catalog glasses resolved exactly, model glasses, mirrors.

OpticStudio writes ``GLAS name status pickup nd vd dPgF ...``.  The status is 0
for a catalog glass, 1 for a model glass (nd, vd; vd = 0 means a constant
index), 2 for a pickup from surface ``pickup`` and 3 for a substitute (a
catalog glass the optimizer may swap).  The nd and vd written after a catalog
glass's name are whatever the editor last held (often N-BK7's), so they are
used only when asked (``glass_fallback="model"``).

A catalog name is looked up exactly (letter case aside) in the catalogs the
file's GCAT line lists, in that order, and then in every other catalog of the
glass database; nothing close is ever taken for it.  A catalog is the user's
AGF files of that name (``--glass-catalog``, ``OPTICS_GLASS_CATALOGS``), then
the refractiveindex.info snapshot's book of that vendor; a name none of them
has is then looked up in the vendors' data sheets (opticalglass) in the same
order, then among the model glasses given with ``--glass NAME=nd,vd``.
"""

from __future__ import annotations

import warnings

from ... import _glass_catalog
from ...errors import LensFileError
from .. import agf  # noqa: F401  (reads OPTICS_GLASS_CATALOGS when the catalogs are indexed)

# OpticStudio catalog names (GCAT) to the database's catalogs (lower case).  MISC and
# INFRARED hold OpticStudio's crystals (CAF2, SAPPHIRE, GERMANIUM ...): the crystal catalog.
_CATALOG_ALIASES = {
    "SUMITA_AUG2011": "sumita",
    "LIGHTPATH": "lightpath",
    "MISC": _glass_catalog.CRYSTAL_CATALOG,
    "INFRARED": _glass_catalog.CRYSTAL_CATALOG,
}
MODEL_NAMES = frozenset({"___BLANK", ""})


class ZemaxWarning(UserWarning):
    """Something in a .zmx file that optics reads approximately or keeps without using."""


def catalog_order(gcat_names) -> list:
    """The database catalogs to search: the file's GCAT list first, then the rest."""
    known = _glass_catalog.catalogs()
    order = []
    for name in gcat_names:
        key = _CATALOG_ALIASES.get(name.upper(), name.lower())
        if key in known and key not in order:
            order.append(key)
    return order + [c for c in known if c not in order]


def material(record, where, gcat_names, glass_fallback=None, warned=None):
    """The lens-file material of a GLAS record (a string or a table).

    Parameters
    ----------
    record : Record
        The GLAS line.
    where : str
        ``"file: surface n"`` for messages.
    gcat_names : list of str
        The file's GCAT catalog names.
    glass_fallback : None or "model"
        With "model", a glass the database does not have becomes the model
        glass written on its line (nd, vd), with a :class:`ZemaxWarning`.
    warned : set, optional
        Names already announced as substituted (:data:`SUBSTITUTES`): warned once per file.
    """
    name = record.args[0] if record.args else ""
    status = int(record.number(1, where, 0.0))
    nd = record.number(3, where, 0.0)
    vd = record.number(4, where, 0.0)
    if name.upper() == "MIRROR":
        return "mirror"
    if status == 1 or name.upper() in MODEL_NAMES:
        return model(nd, vd, where, record)
    try:
        found = resolve(name, gcat_names, where)
    except LensFileError:
        substitute = zemax_substitute(name, gcat_names, where, warned)
        if substitute is not None:
            return substitute
        supplied = _glass_catalog.model_glass(name)
        if supplied is not None:  # --glass NAME=nd,vd
            return {"nd": supplied[1], "vd": supplied[2]}
        if glass_fallback != "model":
            raise
        if not nd > 0:
            raise LensFileError(
                f"{where}: line {record.line}: glass {name!r} is not in the database and its "
                "GLAS line holds no nd to fall back on"
            ) from None
        message = (
            f"{where}: glass {name!r} is not in the glass database nor in any glass catalog; "
            "using the model glass made of "
            f"the nd and vd written on its GLAS line (line {record.line}: nd = {nd!r}, "
            f"vd = {vd!r}; they are what the editor last held, not necessarily this glass's) "
            "as --glass-fallback model asks"
        )
        lookalike = placeholder_glass(nd, vd, gcat_names, name)
        if lookalike is not None:
            message += (
                f". WARNING: these are {lookalike}'s nd/vd, very likely a placeholder: the "
                f"lens's colour correction is wrong; give the real glass with "
                f"--glass {name}=ND,VD or --glass-catalog FILE.agf"
            )
        warnings.warn(message, ZemaxWarning, stacklevel=2)
        return model(nd, vd, where, record)
    _warn_other_maker(name, found, gcat_names, where, warned)
    return found


def _warn_other_maker(name, found, gcat_names, where, warned):
    """Warn once per name when a glass comes from a maker the file's GCAT line does not list.

    ``SK16`` in a file with ``GCAT SCHOTT`` is HIKARI's SK16 here (SCHOTT's old SK16 is in
    no catalog optics has); the crystal catalog (OpticStudio's MISC) is not a maker.
    """
    listed = catalog_order(gcat_names)[: len(gcat_names)]
    catalog = found["catalog"]
    if not gcat_names or catalog in listed or catalog == _glass_catalog.CRYSTAL_CATALOG:
        return
    key = ("maker", name.upper())
    if warned is not None and key in warned:
        return
    if warned is not None:
        warned.add(key)
    warnings.warn(
        f"{where}: glass {name!r} is in none of the file's catalogs (GCAT "
        f"{' '.join(gcat_names)}); using {catalog.upper()}'s {found['name']}, a glass of that "
        "name from another maker (give the file's own with --glass-catalog FILE.agf)",
        ZemaxWarning,
        stacklevel=3,
    )


_PLACEHOLDER_ND = 5e-5
_PLACEHOLDER_VD = 0.05
_PLACEHOLDER_CATALOGS = ("schott",)


def placeholder_glass(nd, vd, gcat_names=(), name=""):
    """The catalog glass (``"N-BK7 (schott)"``) whose nd and vd a GLAS line carries, or None.

    A model glass's nd within 5e-5 and vd within 0.05 of a glass of the file's
    GCAT catalogs or Schott's (nd at 0.5875618 µm, vd from the F and C lines of
    its catalog data) is taken for that glass's numbers left on the line.
    """
    import numpy as np

    from ...materials import WAVELENGTH_C, WAVELENGTH_D, WAVELENGTH_F

    index = _glass_catalog._catalog_index()
    order = [c for c in catalog_order(gcat_names)[: len(gcat_names)] if c in index]
    order += [c for c in _PLACEHOLDER_CATALOGS if c not in order and c in index]
    lines = np.array([WAVELENGTH_D, WAVELENGTH_F, WAVELENGTH_C])
    for catalog in order:
        for page in index[catalog]:
            if page.casefold() == name.casefold():
                continue
            try:
                data = _glass_catalog.glass_dispersion(page, catalog)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    n_d, n_f, n_c = (float(v) for v in _glass_catalog.evaluate(data, lines))
            except Exception:  # noqa: BLE001 - a glass whose data cannot say is no match
                continue
            if abs(n_d - nd) < _PLACEHOLDER_ND and n_f != n_c:
                if abs((n_d - 1.0) / (n_f - n_c) - vd) < _PLACEHOLDER_VD:
                    return f"{page} ({catalog})"
    return None


# OpticStudio catalogs the glass database lacks: (catalog, glass) -> (database glass, why).
# Exact names only; each substitution is announced with a ZemaxWarning (docs/zemax.md).
_FUSED_SILICA = ("fused_silica/Malitson", "glass")
SUBSTITUTES = {
    ("MISC", "F_SILICA"): (_FUSED_SILICA, "OpticStudio's MISC fused silica is Malitson's formula"),
    ("MISC", "SILICA"): (_FUSED_SILICA, "OpticStudio's MISC SILICA is fused silica"),
    ("CORNING", "C79-80"): (
        _FUSED_SILICA,
        "Corning 7980 (HPFS) is a synthetic fused silica the database does not list",
    ),
    ("MISC", "BK7"): (("N-BK7", "schott"), "MISC BK7 is SCHOTT's BK7, now sold as N-BK7"),
    ("SCHOTT", "BK7"): (("N-BK7", "schott"), "SCHOTT's BK7 is now sold as N-BK7"),
}
"""OpticStudio glasses the database lacks, mapped to the database entry of the same glass.

Used only when the name is in none of the database's catalogs and the file's
GCAT line lists the catalog; the writer writes the first name back for the entry.
"""


def _substituted(name, gcat_names) -> bool:
    """True when :data:`SUBSTITUTES` answers the name for one of the file's catalogs."""
    return any((catalog.upper(), name.upper()) in SUBSTITUTES for catalog in gcat_names)


def zemax_substitute(name, gcat_names, where, warned=None):
    """The database glass standing in for an OpticStudio glass, with a warning; else None.

    The warning is given once per name when ``warned`` (a set) is shared by the file.
    """
    warned = set() if warned is None else warned
    for catalog in gcat_names:
        found = SUBSTITUTES.get((catalog.upper(), name.upper()))
        if found is not None:
            (glass, database_catalog), why = found
            if name.upper() not in warned:
                warned.add(name.upper())
                warnings.warn(
                    f"{where}: glass {name!r} ({catalog.upper()} catalog) is not in the glass "
                    f"database; using {glass} ({database_catalog}) for it here and on every "
                    f"surface that names it: {why}",
                    ZemaxWarning,
                    stacklevel=3,
                )
            return {"name": glass, "catalog": database_catalog}
    return None


_INFRARED = frozenset({"GERMANIUM", "SILICON", "ZNSE", "ZNS"})


def zemax_name(name, catalog):
    """(OpticStudio name, catalog) for a database glass that SUBSTITUTES maps to, or for a
    crystal (``CaF2`` of the crystal catalog is MISC's ``CAF2``, GERMANIUM INFRARED's), else
    None."""
    for (zemax_catalog, zemax_glass), (glass, _) in SUBSTITUTES.items():
        if glass == (name, catalog) and glass[1] == "glass":
            return zemax_glass, zemax_catalog.lower()
    if catalog == _glass_catalog.CRYSTAL_CATALOG:
        return name.upper(), "infrared" if name.upper() in _INFRARED else "misc"
    return None


def model(nd, vd, where, record):
    """A model glass: the Abbe model, or a constant index when vd is 0."""
    if not nd > 0:
        raise LensFileError(f"{where}: line {record.line}: model glass needs nd > 0, not {nd!r}")
    if vd == 0:
        return {"index": nd}
    if nd <= 1 or vd < 0:
        raise LensFileError(
            f"{where}: line {record.line}: model glass nd = {nd!r}, vd = {vd!r} cannot be "
            "dispersive (needs nd > 1 and vd > 0; vd = 0 means a constant index)"
        )
    return {"nd": nd, "vd": vd}


def resolve(name, gcat_names, where):
    """The material table of a catalog glass found exactly; LensFileError otherwise."""
    order = catalog_order(gcat_names)
    folded = name.casefold()
    names = _folded_names()
    for catalog in order:
        found = names[catalog].get(folded)
        if found is not None:
            return {"name": found, "catalog": catalog}
    if _substituted(name, gcat_names):  # OpticStudio's own name for a database glass:
        raise LensFileError(f"{where}: {unknown_message(name, gcat_names, order)}")  # no sheets
    if _glass_catalog.FALLBACK_SOURCES:  # the vendors' data sheets, in the same order
        sheets = _glass_catalog.fallback_catalogs()
        for catalog in [c for c in order if c in sheets] + [c for c in sheets if c not in order]:
            for page in sheets[catalog]:
                if page.casefold() == folded:
                    return {"name": page, "catalog": catalog}
    raise LensFileError(f"{where}: {unknown_message(name, gcat_names, order)}")


_FOLDED: dict = {}


def _folded_names() -> dict:
    """{catalog: {name in lower case: the catalog's name}} (the first spelling wins).

    Built once per parsed catalog index (``_glass_catalog.clear_cache`` makes a new one).
    """
    index = _glass_catalog._catalog_index()
    if _FOLDED.get("index") is not index:
        _FOLDED.clear()
        _FOLDED["index"] = index
        _FOLDED["names"] = {
            catalog: {page.casefold(): page for page in reversed(list(pages))}
            for catalog, pages in index.items()
        }
    return _FOLDED["names"]


def unknown_message(name, gcat_names, order) -> str:
    """An unknown glass: the catalogs searched and the exact-family names that exist."""
    family = _family(name)
    relatives = []
    index = _glass_catalog._catalog_index()
    for catalog in order:
        for page in index[catalog]:
            if family and _family(page) == family and page.casefold() != name.casefold():
                relatives.append(f"{page} ({catalog})")
    gcat = " ".join(gcat_names) or "(no GCAT line)"
    text = (
        f"unknown glass {name!r}: not in the file's catalogs (GCAT {gcat}) nor in any other "
        f"catalog of the glass database (searched: {', '.join(order)})"
    )
    if relatives:
        text += f"; same family: {', '.join(relatives[:8])}"
    return text + (
        "; give it with --glass-catalog FILE.agf or --glass NAME=nd,vd, or use "
        "--glass-fallback model to take the nd/vd on its GLAS line"
    )


def _family(name) -> str:
    """The glass family: the name without maker prefix (N-, S-, ...) and trailing digits."""
    base = name.upper()
    if len(base) > 2 and base[1] == "-":
        base = base[2:]
    return base.rstrip("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:10])
