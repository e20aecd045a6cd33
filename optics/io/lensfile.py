"""Lens files: load and save an Optic as TOML or JSON (one schema, docs/lens-files.md).

The format follows the file extension (``.toml`` or ``.json``).  ``load``
also takes the name of a built-in sample (``optics.samples.names()``).
Saving writes a temporary file next to the target and renames it over the
target, so a failed save leaves any existing file as it was.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path

from .._atomic import write_bytes_atomically
from .._version import __version__
from ..errors import LensFileError
from . import _toml_writer, codev, zemax
from ._files import read_bytes
from ._media import check_media
from ._parse import check_tree, json_loads, parse
from ._schema import optic_from_dict
from ._serialize import optic_to_dict

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["load", "save", "optic_from_dict", "optic_to_dict", "loads", "dumps"]

FORMATS = {".toml": "toml", ".json": "json", ".zmx": "zmx", ".seq": "seq"}
# JSON has no infinity: these strings stand for one (and "Infinity" tokens are read too).
_JSON_INFINITIES = {
    "inf": math.inf,
    "+inf": math.inf,
    "-inf": -math.inf,
    "Infinity": math.inf,
    "+Infinity": math.inf,
    "-Infinity": -math.inf,
}
# ... except as the value of these keys, which hold names.
_JSON_NAME_KEYS = frozenset({"name", "type", "material", "catalog"})
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def load(path_or_name, *, glass_fallback=None):
    """Read a lens file, or a built-in sample by name, into an Optic.

    Parameters
    ----------
    path_or_name : str or os.PathLike
        A ``.toml``, ``.json``, Zemax ``.zmx`` or CODE V ``.seq`` lens file, or a
        sample name such as ``"cooke_triplet"`` (see :func:`optics.samples.names`).  A bare name
        without an extension is a sample; ``"cooke_triplet.toml"`` is the file
        of that name when it exists and the sample otherwise.
    glass_fallback : None or "model"
        .zmx files only: with "model", a glass the database lacks becomes the
        model glass (nd, vd) on its GLAS line, with a warning (docs/zemax.md).

    Returns
    -------
    Optic

    Raises
    ------
    LensFileError
        The file is missing (and is not a sample name), unreadable, not valid
        TOML/JSON, or breaks the schema; the message names the file, the
        line or surface index, and the key.
    """
    path, source = _resolve(path_or_name)
    optic = _read(path, source, glass_fallback)
    check_media(optic, source)
    return optic


def _read(path, source, glass_fallback):
    fmt = _format(path, source)
    if fmt == "zmx":
        return zemax.load(path, glass_fallback=glass_fallback)
    if fmt == "seq":
        return codev.load(path)
    raw = read_bytes(path, source, "lens file")
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (as Excel writes) is skipped
    except UnicodeDecodeError as exc:
        raise LensFileError(f"{source}: not UTF-8 text (byte {exc.start}: {exc.reason})") from exc
    return optic_from_dict(loads(text, fmt, source), source)


def save(optic, path) -> Path:
    """Write an optic to a lens file, atomically.

    Parameters
    ----------
    optic : Optic
    path : str or os.PathLike
        The target; ``.toml``, ``.json``, ``.zmx`` or ``.seq`` selects the format.  An existing
        file is replaced only once the new one is completely written.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    LensFileError
        An unsupported extension, a value the format cannot hold (e.g. a
        ``None`` in the ``optimize`` table for TOML), or an I/O failure; the
        target is then left untouched and no temporary file remains.
    """
    path = Path(path)
    source = str(path)
    fmt = _format(path, source)
    if fmt == "zmx":
        raw = zemax.encode(zemax.dumps(optic, source))
        try:
            zemax.loads(raw, source)
        except LensFileError as exc:
            raise LensFileError(f"not saved, because the file would not load back: {exc}") from exc
        _write_atomically(path, raw, source)
        return path
    if fmt == "seq":
        if getattr(optic, "configurations", None) is not None:
            import warnings

            warnings.warn(
                f"{source}: the configurations have no .seq form here and are not written "
                "(the base prescription is)",
                codev.CodeVWarning,
                stacklevel=2,
            )
        text = codev.dumps(optic, source)
        try:
            codev.loads(text, source)
        except LensFileError as exc:
            raise LensFileError(f"not saved, because the file would not load back: {exc}") from exc
        _write_atomically(path, text, source)
        return path
    data = optic_to_dict(optic)
    text = dumps(data, fmt, source)
    # Never write what cannot be read back: the text must load as an optic again.
    try:
        optic_from_dict(loads(text, fmt, source), source)
    except LensFileError as exc:
        raise LensFileError(f"not saved, because the file would not load back: {exc}") from exc
    _write_atomically(path, text, source)
    return path


def check_output_path(path) -> Path:
    """Raise LensFileError unless :func:`save` could write ``path``; nothing is written.

    For commands that must refuse a bad output before long work: the extension
    must be ``.toml`` or ``.json``, the folder must exist and be writable, and
    the path must not be a folder.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    path = Path(path)
    source = str(path)
    _format(path, source)
    folder = Path(os.path.realpath(path)).parent
    if path.is_dir():
        raise LensFileError(f"{source}: is a folder, not a lens file name")
    if not folder.is_dir():
        raise LensFileError(f"{source}: cannot write the lens file: no folder {folder}")
    if not os.access(folder, os.W_OK):
        raise LensFileError(f"{source}: cannot write the lens file: folder {folder} is read-only")
    return path


def loads(text: str, fmt: str, source: str = "<string>") -> dict:
    """Parse lens-file text (``fmt`` "toml" or "json") into lens-file data (a dict).

    JSON strings ``"inf"`` and ``"-inf"`` become infinities, except as values
    of the keys ``name``, ``type``, ``material`` and ``catalog``.  A JSON
    object with a repeated key, arrays or tables nested deeper than
    :data:`optics.io._parse.MAX_DEPTH`, and integers too large for a float are refused
    (TOML refuses repeated keys itself).
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if fmt == "toml":
        data = parse(tomllib.loads, tomllib.TOMLDecodeError, _toml_error, text, source)
    elif fmt == "json":
        data = parse(json_loads, json.JSONDecodeError, _json_error, text, source)
        if not isinstance(data, dict):
            raise LensFileError(
                f"{source}: a JSON lens file holds one object {{...}}, not a {type(data).__name__}"
            )
    else:
        raise ValueError(f"unknown lens-file format {fmt!r}")
    check_tree(data, source)
    return _decode_infinities(data) if fmt == "json" else data


def dumps(data: Mapping, fmt: str, source: str = "<string>") -> str:
    """Lens-file text (``fmt`` "toml" or "json") for lens-file data; errors name ``source``."""
    try:
        if fmt == "toml":
            header = f"Lens file written by optics {__version__} (schema: docs/lens-files.md)"
            return _toml_writer.dumps(data, header=header)
        if fmt == "json":
            return _json_text(_encode_infinities(data, ""), indent="") + "\n"
    except ValueError as exc:
        raise LensFileError(f"{source}: cannot write the lens file: {exc}") from exc
    raise ValueError(f"unknown lens-file format {fmt!r}")


# --- paths ----------------------------------------------------------------------------


def _resolve(path_or_name):
    """(path, name for messages) of a lens file or a sample."""
    from .. import samples

    if not isinstance(path_or_name, (str, os.PathLike)):
        raise LensFileError(
            f"a lens file is given by a path or a sample name, not {path_or_name!r}"
        )
    path = Path(path_or_name)
    source = str(path_or_name)
    bare = path.name == source  # no directory part
    if bare and path.suffix == "" and source in samples.names():
        return samples.path(source), f"{source}.toml (sample)"
    if path.exists():
        return path, source
    if bare and path.suffix == ".toml" and path.stem in samples.names():
        return samples.path(path.stem), f"{source} (sample)"
    raise LensFileError(
        f"{source}: no such lens file, and not the name of a sample "
        f"(samples: {', '.join(samples.names())})"
    )


def _format(path: Path, source: str) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise LensFileError(
            f"{source}: unknown lens-file extension {path.suffix or '(none)'!r}; "
            "use .toml or .json (or .zmx, a Zemax file, or .seq, a CODE V file)"
        )
    return fmt


def _write_atomically(path: Path, text, source: str):
    """Write ``text`` (str as UTF-8, or bytes) atomically; LensFileError naming ``source``."""
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    try:
        write_bytes_atomically(path, data)
    except OSError as exc:
        raise LensFileError(f"{source}: cannot write the lens file: {exc.strerror or exc}") from exc


# --- format details ---------------------------------------------------------------------


def _json_error(exc) -> str:
    return f"line {exc.lineno}, column {exc.colno}: JSON syntax error: {exc.msg}"


def _toml_error(exc) -> str:
    """'line L, column C: TOML syntax error: ...' from tomllib's message."""
    message = str(exc)
    match = _TOML_POSITION.search(message)
    if match:
        line, column = match.groups()
        return f"line {line}, column {column}: TOML syntax error: {message[: match.start()]}"
    if message.endswith("(at end of document)"):
        return f"end of file: TOML syntax error: {message[: -len('(at end of document)')].strip()}"
    return f"TOML syntax error: {message}"


def _decode_infinities(value, key=None):
    if isinstance(value, dict):
        return {k: _decode_infinities(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode_infinities(v, key) for v in value]
    if isinstance(value, str) and key not in _JSON_NAME_KEYS:
        return _JSON_INFINITIES.get(value, value)
    return value


def _encode_infinities(value, where):
    if isinstance(value, Mapping):
        return {
            k: _encode_infinities(v, f"{where}.{k}" if where else str(k)) for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_encode_infinities(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, float):
        if math.isnan(value):
            raise ValueError(f"{where}: JSON cannot hold NaN")
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
    return value


def _json_text(value, indent: str) -> str:
    """JSON with objects one key per line and arrays of scalars (or short arrays) on one line."""
    inner = indent + "  "
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(str(k))}: {_json_text(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list):
        if any(isinstance(v, dict) for v in value) or any(
            isinstance(v, list) and any(isinstance(w, (dict, list)) for w in v) for v in value
        ):
            return (
                "[\n"
                + ",\n".join(inner + _json_text(v, inner) for v in value)
                + "\n"
                + indent
                + "]"
            )
        return "[" + ", ".join(_json_text(v, inner) for v in value) + "]"
    try:
        return json.dumps(value, allow_nan=False, ensure_ascii=False)
    except TypeError as exc:
        raise ValueError(
            f"cannot write a {type(value).__name__} value ({value!r}) in JSON"
        ) from exc
