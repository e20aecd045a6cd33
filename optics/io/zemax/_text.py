"""Zemax .zmx text: the encoding from the byte-order mark and content, and keyword records.

A .zmx file is a list of lines, each a four-letter keyword and its arguments.
Header lines describe the system (UNIT, ENPD, WAVM ...); ``SURF n`` starts the
block of surface n, whose lines are indented in files OpticStudio writes (but
not in every file a script writes).  Files come in UTF-16 (LE or BE, with a
byte-order mark), UTF-8 and ISO-8859-1 (Latin-1), with CRLF or LF line ends.
"""

from __future__ import annotations

import codecs
import math
from dataclasses import dataclass, field

from ...errors import LensFileError
from ...limits import MAX_SURFACES

#: Keywords whose numbers may be INFINITY (an object at infinity is DISZ INFINITY).
INFINITE_KEYWORDS = frozenset({"DISZ"})
#: Lines every SURF block holds (OpticStudio writes them in every block): a block
#: without them is a file cut short.
REQUIRED_SURFACE_KEYWORDS = ("DISZ",)

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


@dataclass(frozen=True)
class Record:
    """One line: its 1-based number, the keyword, the argument tokens and the raw remainder."""

    line: int
    keyword: str
    args: tuple
    rest: str

    def number(self, i, where, default=None):
        """Argument ``i`` as a finite float; LensFileError names the line.

        INFINITY (spelled out, or inf) is read only where Zemax means it: a
        thickness (DISZ).  NaN is never a value.
        """
        if i >= len(self.args):
            if default is not None:
                return default
            raise LensFileError(f"{where}: line {self.line}: {self.keyword} needs argument {i + 1}")
        token = self.args[i]
        if token.upper() in ("INFINITY", "INF", "+INFINITY", "+INF"):
            value = math.inf
        elif token.upper() in ("-INFINITY", "-INF"):
            value = -math.inf
        else:
            try:
                value = float(token)
            except ValueError:
                raise LensFileError(
                    f"{where}: line {self.line}: {self.keyword} argument {i + 1} must be a "
                    f"number, not {token!r}"
                ) from None
        if math.isnan(value) or (math.isinf(value) and self.keyword not in INFINITE_KEYWORDS):
            raise LensFileError(
                f"{where}: line {self.line}: {self.keyword} argument {i + 1} must be a finite "
                f"number, not {token!r}"
            )
        return value

    def integer(self, i, where, default=None, *, lowest=None, highest=None):
        """Argument ``i`` as an int (written as an integer or a float like 3.0), in range."""
        value = self.number(i, where, default)
        if not math.isfinite(value) or value != int(value):
            raise LensFileError(
                f"{where}: line {self.line}: {self.keyword} argument {i + 1} must be an "
                f"integer, not {self.args[i]!r}"
            )
        value = int(value)
        if (lowest is not None and value < lowest) or (highest is not None and value > highest):
            bounds = f"from {lowest} to {highest}" if highest is not None else f">= {lowest}"
            raise LensFileError(
                f"{where}: line {self.line}: {self.keyword} argument {i + 1} must be an "
                f"integer {bounds}, not {value}"
            )
        return value

    def flag(self, i, where, default=None):
        """Argument ``i`` as 0 or 1 (an on/off value)."""
        return self.integer(i, where, default, lowest=0, highest=1)


@dataclass
class SurfaceBlock:
    """The records of one ``SURF n`` block, by keyword (repeated keywords keep their order)."""

    number: int
    line: int
    records: dict = field(default_factory=dict)

    def get(self, keyword):
        """The first record with ``keyword`` or None."""
        found = self.records.get(keyword)
        return found[0] if found else None

    def all(self, keyword) -> list:
        """Every record with ``keyword``, in file order."""
        return self.records.get(keyword, [])


@dataclass
class ZmxText:
    """A parsed file: header records by keyword, then the surface blocks in order."""

    header: dict
    surfaces: list

    def get(self, keyword):
        """The first header record with ``keyword`` or None."""
        found = self.header.get(keyword)
        return found[0] if found else None

    def all(self, keyword) -> list:
        """Every header record with ``keyword``."""
        return self.header.get(keyword, [])


def decode(raw: bytes, source: str) -> str:
    """The text of a .zmx file: BOM first, then UTF-16 without BOM, UTF-8, and Latin-1."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            try:
                return raw.decode(encoding)
            except UnicodeDecodeError as exc:
                raise LensFileError(
                    f"{source}: the byte-order mark says {encoding}, but byte {exc.start} "
                    f"is not: {exc.reason}"
                ) from exc
    if len(raw) >= 4 and raw[1] == 0 and raw[3] == 0 and raw[0] != 0:
        return raw.decode("utf-16-le", errors="replace")
    if len(raw) >= 4 and raw[0] == 0 and raw[2] == 0 and raw[1] != 0:
        return raw.decode("utf-16-be", errors="replace")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")  # every byte is a Latin-1 character


def parse(text: str, source: str) -> ZmxText:
    """Split decoded text into header records and surface blocks."""
    header: dict = {}
    surfaces: list = []
    current = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        keyword, _, rest = stripped.partition(" ")
        keyword = keyword.upper()
        record = Record(number, keyword, tuple(rest.split()), rest.strip())
        if keyword == "SURF":
            index = record.integer(0, source, lowest=0, highest=MAX_SURFACES)
            if index != len(surfaces):
                raise LensFileError(
                    f"{source}: line {number}: SURF {index} out of order (expected "
                    f"SURF {len(surfaces)})"
                )
            current = SurfaceBlock(index, number)
            surfaces.append(current)
            continue
        indented = line[:1].isspace()
        if current is not None and (indented or keyword in _SURFACE_KEYWORDS):
            current.records.setdefault(keyword, []).append(record)
        else:
            current = None if not indented else current
            header.setdefault(keyword, []).append(record)
    if not surfaces:
        raise LensFileError(f"{source}: no SURF blocks: not a sequential Zemax lens file")
    for block in surfaces:
        _check_complete(block, source)
    _check_image(surfaces[-1], source)
    return ZmxText(header, surfaces)


def _check_image(block, source):
    """Refuse a last block with a thickness: OpticStudio's image surface has DISZ 0.

    A file cut between two SURF blocks would otherwise read as a shorter lens
    whose "image" is an optical surface of the real one.
    """
    record = block.get("DISZ")
    value = record.number(0, source)
    if value != 0:
        raise LensFileError(
            f"{source}: line {record.line}: the last surface, SURF {block.number}, has DISZ "
            f"{record.args[0]}: an image surface has thickness 0, so the file is truncated "
            "(or its image surface is missing)"
        )


def _check_complete(block, source):
    """Refuse a SURF block without the lines every block has: the file was cut short."""
    missing = [k for k in REQUIRED_SURFACE_KEYWORDS if k not in block.records]
    if missing:
        raise LensFileError(
            f"{source}: line {block.line}: SURF {block.number} has no {', '.join(missing)} line "
            "(every surface states its thickness): the file is truncated or incomplete"
        )


# Keywords that belong to a surface block even when a script wrote them unindented.
_SURFACE_KEYWORDS = frozenset(
    """TYPE CURV CONI DISZ GLAS DIAM STOP PARM XDAT COMM CLAP FLAP SQAP ELAP OBSC OBDC
    SCBD MIRR HIDE SLAB POPS MEMA FIMP SSID COAT VDSZ PPAR PZUP OEMA MNUM MOFF DMFS
    TOLE CTGT PPAR VPAR VCON XDAT""".split()
)


def indexed(records, where, lowest, highest, owner, *, zeros_up_to=None) -> dict:
    """{n: value} of numbered lines ``KEY n value`` (PARM, XDAT): n an integer in range, once.

    With ``zeros_up_to``, a line numbered above ``highest`` (up to it) whose
    value is 0 is skipped instead of refused.
    """
    values, lines = {}, {}
    for record in records:
        if len(record.args) < 2:
            raise LensFileError(
                f"{where}: line {record.line}: {record.keyword} needs a number and a value"
            )
        if zeros_up_to is not None and record.number(1, where) == 0:
            n = record.integer(0, where, lowest=lowest, highest=max(highest, zeros_up_to))
            if n > highest:
                continue
        try:
            n = record.integer(0, where, lowest=lowest, highest=highest)
        except LensFileError as exc:
            raise LensFileError(
                f"{exc} ({owner} has {record.keyword} {lowest}-{highest})"
            ) from None
        if n in values:
            raise LensFileError(
                f"{where}: line {record.line}: {record.keyword} {n} is given twice (lines "
                f"{lines[n]} and {record.line})"
            )
        values[n], lines[n] = record.number(1, where), record.line
    return values
