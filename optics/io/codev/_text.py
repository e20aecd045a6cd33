"""CODE V sequence-file text: commands with their line numbers, arguments and qualifiers.

A .seq file is a list of commands.  A command is a keyword and its tokens,
separated by blanks; ``;`` separates commands on one line, ``!`` starts a
comment that runs to the end of the line, and a line ending in ``&`` continues
on the next one.  Strings are quoted with ``'`` or ``"`` (a ``!``, ``;`` or
``&`` inside quotes is text).  Keywords are case-insensitive and may be spelled
out: CODE V reads the first three letters (``TITLE`` is ``TIT``, ``stop`` is
``STO``); the surface commands ``SO``, ``S`` and ``SI`` and the one-letter
aspheric coefficients ``K``, ``A`` ... ``J`` are kept whole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import LensFileError

#: Keywords compared whole, not by their first three letters.
_WHOLE = frozenset({"S", "SO", "SI", "K", "A", "B", "C", "D", "E", "F", "G", "H", "J", "CA"})


@dataclass(frozen=True)
class Command:
    """One command: the 1-based line it starts on, its keyword (upper case) and tokens."""

    line: int
    keyword: str
    args: tuple  # tokens after the keyword, quotes removed from strings
    quoted: tuple  # True for each token that was a quoted string
    source: str
    named: bool = False  # the keyword was a quoted string (a private-catalog glass name)

    @property
    def where(self) -> str:
        """``"file: line n: KEY"`` for messages (a keyword that is no plain word shown escaped
        and cut to 24 characters: a binary file gives one short line, not its bytes)."""
        keyword = self.keyword
        if not (keyword.isprintable() and len(keyword) <= 24):
            keyword = ascii(keyword[:24]) + ("..." if len(keyword) > 24 else "")
        return f"{self.source}: line {self.line}: {keyword}"

    def number(self, i, default=None) -> float:
        """Argument ``i`` as a finite float; LensFileError names the file, line and command."""
        if i >= len(self.args):
            if default is not None:
                return default
            raise LensFileError(f"{self.where}: needs a number as argument {i + 1}")
        token = self.args[i]
        try:
            value = float(token)
        except ValueError:
            raise LensFileError(
                f"{self.where}: argument {i + 1} must be a number, not {token!r}"
            ) from None
        if not math.isfinite(value):
            raise LensFileError(f"{self.where}: argument {i + 1} must be finite, not {token!r}")
        return value

    def numbers(self, start=0) -> list:
        """Every argument from ``start`` on, each a finite float."""
        return [self.number(i) for i in range(start, len(self.args))]


def decode(raw: bytes, source: str) -> str:
    """The text of a .seq file: UTF-8 (a byte-order mark skipped), else Latin-1."""
    if raw.startswith(b"\xff\xfe") or raw.startswith(b"\xfe\xff"):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise LensFileError(f"{source}: not UTF-16 text ({exc.reason})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def parse(text: str, source: str) -> list:
    """The commands of .seq text, in order (see the module docstring for the syntax)."""
    commands = []
    for line, logical in _logical_lines(text, source):
        for piece in _split(logical, ";"):
            tokens = _tokens(piece)
            if tokens:
                commands.append(_command(tokens, line, source))
    return commands


def _logical_lines(text, source):
    """(first line number, text) of each line joined with the lines its '&' continues on."""
    buffer, start = "", None
    for number, line in enumerate(text.splitlines(), start=1):
        content = _uncommented(line, number, source).rstrip()
        if start is None:
            start = number
        if content.endswith("&"):
            buffer += content[:-1]
            continue
        yield start, buffer + content
        buffer, start = "", None
    if start is not None:
        yield start, buffer


def _uncommented(line, number, source):
    """``line`` up to its first '!' outside quotes; LensFileError for an unclosed quote."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "!":
            return line[:i]
    if quote:
        raise LensFileError(f"{source}: line {number}: a string opened with {quote} is not closed")
    return line


def _split(text, separator):
    """``text`` split at each ``separator`` outside quotes."""
    pieces, quote, begin = [], None, 0
    for i, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == separator:
            pieces.append(text[begin:i])
            begin = i + 1
    pieces.append(text[begin:])
    return pieces


def _tokens(text):
    """[(token, quoted)] of one command: blank-separated words and quoted strings."""
    tokens, word, quote = [], None, None
    for char in text:
        if quote:
            if char == quote:
                tokens.append((word or "", True))
                word, quote = None, None
            else:
                word = char if word is None else word + char
        elif char in "'\"":
            if word is not None:
                tokens.append((word, False))
            word, quote = None, char
        elif char.isspace():
            if word is not None:
                tokens.append((word, False))
                word = None
        else:
            word = char if word is None else word + char
    if word is not None:
        tokens.append((word, False))
    return tokens


def _command(tokens, line, source):
    (head, named), rest = tokens[0], tokens[1:]
    keyword = head if named else head.upper()
    if not named and keyword not in _WHOLE and len(keyword) > 3 and keyword[:3].isalpha():
        keyword = keyword[:3]
    args, quoted = tuple(t for t, _ in rest), tuple(q for _, q in rest)
    return Command(line, keyword, args, quoted, source, named)
