"""CODE V glass names to lens-file materials and back.

A glass on an S line is one of

- ``NAME_CATALOG`` (``NBK7_SCHOTT``, ``SLAL8_OHARA``): the glass NAME in the
  vendor's catalog, compared without case, hyphens or blanks as CODE V writes
  names without the vendor's hyphen (``NBK7`` is Schott's N-BK7);
- ``NAME`` alone: looked up in the default catalog order (docs/materials.md);
- a glass code ``NNNNNN.VVVV`` (a number): CODE V's fictitious glass with
  nd = 1.NNNNNN and vd = VV.VV (``517000.520000``: nd 1.517, vd 52;
  ``569.631``: nd 1.569, vd 63.1), read as the Abbe model glass {nd, vd};
- a name defined in the file's private catalog (PRV): read only when every
  index listed is the same (a constant index); a dispersive private glass is
  refused, as optics has no tabulated material;
- ``AIR``.
"""

from __future__ import annotations

import math

from ... import _glass_catalog
from ..._glass_catalog import UnknownGlassError
from ...errors import LensFileError


def material(surface, lens, where):
    """The lens-file material of a surface's glass token (None: air)."""
    token = surface.glass
    if token is None or token.upper() == "AIR":
        return "air"
    private = lens.private.get(token.upper())
    if private is not None:
        return _private(token, private, where)
    if not surface.glass_quoted and _is_glass_code(token):
        return glass_code(token, where)
    return catalog_glass(token, where)


def _is_glass_code(token):
    head, _, tail = token.partition(".")
    return head.isdigit() and (tail == "" or tail.isdigit())


def glass_code(token, where):
    """{nd, vd} of a fictitious glass code ``NNNNNN.VVVV`` (exact decimal digits)."""
    head, _, tail = token.partition(".")
    nd = float("1." + head)
    tail = tail.ljust(2, "0")
    vd = float(tail[:2] + "." + tail[2:]) if len(tail) > 2 else float(tail)
    if not vd > 0:
        raise LensFileError(f"{where}: glass code {token!r} has vd = 0")
    return {"nd": nd, "vd": vd}


def catalog_glass(token, where):
    """{name, catalog} of ``NAME_CATALOG`` or ``NAME``; LensFileError when unknown."""
    name, catalog = token, None
    if "_" in token:
        head, _, tail = token.rpartition("_")
        if tail.lower() in _glass_catalog.catalogs():
            name, catalog = head, tail.lower()
    try:
        found, found_catalog = _glass_catalog.resolve(name, catalog)
    except UnknownGlassError as exc:
        raise LensFileError(f"{where}: glass {token!r}: {exc}") from None
    return {"name": found, "catalog": found_catalog}


def _private(token, private, where):
    command, wavelengths = private
    values = command.numbers()
    if not values:
        raise LensFileError(f"{command.where}: private glass {token!r} lists no index")
    if command.args and not _numbers_only(command.args):
        raise LensFileError(
            f"{where}: private glass {token!r} (line {command.line}) is given by a formula; "
            "only tabulated indices are read"
        )
    if len(set(values)) == 1:
        return {"index": values[0]}
    raise LensFileError(
        f"{where}: private glass {token!r} (line {command.line}) has {len(values)} indices "
        f"at {len(wavelengths)} wavelengths; optics has no tabulated material, so only a "
        "constant index (every value the same) is read"
    )


def _numbers_only(tokens):
    try:
        [float(t) for t in tokens]
    except ValueError:
        return False
    return True


# --- writing ----------------------------------------------------------------------------


def glass_token(spec, where, private):
    """The S-line glass token of a lens-file material (``None`` for air).

    ``private`` collects the constant-index glasses written to a PRV block:
    {token: index}.
    """
    if spec in (None, "air") or (isinstance(spec, str) and spec.lower() == "air"):
        return None
    if isinstance(spec, str):
        name, catalog = _glass_catalog.resolve(spec)
        return _catalog_token(name, catalog, where)
    if "name" in spec:
        name, catalog = _glass_catalog.resolve(spec["name"], spec.get("catalog"))
        return _catalog_token(name, catalog, where)
    if "nd" in spec:
        return _code(float(spec["nd"]), float(spec["vd"]), where)
    if "index" in spec:
        index = float(spec["index"])
        token = f"'N{repr(index).replace('.', '_').replace('-', 'M')}'"
        private[token] = index
        return token
    raise LensFileError(f"{where}: material {spec!r} cannot be written to a .seq file")


def _catalog_token(name, catalog, where):
    """``NAME_CATALOG`` as CODE V spells it (no hyphens or blanks) when that reads back as
    this glass, else the exact name and catalog in quotes (``'fused_silica/Malitson_CRYSTAL'``)."""
    plain = f"{name.replace('-', '').replace(' ', '')}_{catalog.upper()}"
    if plain.replace("_", "").isalnum() and not _is_glass_code(plain):
        try:
            if catalog_glass(plain, where) == {"name": name, "catalog": catalog}:
                return plain
        except LensFileError:
            pass
    exact = f"{name}_{catalog.upper()}"
    if "'" in exact:
        raise LensFileError(f"{where}: glass {name!r} cannot be written to a .seq file")
    return f"'{exact}'"


def _code(nd, vd, where):
    """The glass code of a model glass, exact to the digits of repr(nd) and repr(vd)."""
    if not (1.0 <= nd < 2.0 and 0.0 < vd < 100.0) or not math.isfinite(nd + vd):
        raise LensFileError(
            f"{where}: model glass nd = {nd!r}, vd = {vd!r} has no CODE V glass code "
            "(1 <= nd < 2, 0 < vd < 100)"
        )
    n_digits = repr(nd).split(".")[1] if "." in repr(nd) else "0"
    if "e" in n_digits or "e" in repr(vd):
        raise LensFileError(f"{where}: model glass nd = {nd!r}, vd = {vd!r} has no glass code")
    whole, _, fraction = repr(vd).partition(".")
    v_digits = whole.rjust(2, "0") + (fraction if fraction != "0" else "")
    token = f"{n_digits}.{v_digits}"
    back = glass_code(token, where)
    if back != {"nd": nd, "vd": vd}:
        raise LensFileError(f"{where}: model glass nd = {nd!r}, vd = {vd!r} has no glass code")
    return token
