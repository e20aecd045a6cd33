"""Every subcommand's ``--help`` ends with examples, and they run as written.

The examples are read back from the formatted help text (not from the table
they are made from): the lines under ``examples:`` run in that order in an
empty folder, each through ``optics.cli.main`` in this process, after the
files the help shows (``NAME holds:`` and its indented lines) are written
there.  Each must exit 0.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shlex

import pytest

from optics.cli import build_parser, main

_EXAMPLES = re.compile(r"^examples:\n((?:  .*\n?)+)", re.MULTILINE)
_FILE = re.compile(r"^(\S+) holds:\n((?:  .*\n?)+)", re.MULTILINE)


def _commands():
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


COMMANDS = _commands()


def _help(name):
    return COMMANDS[name].format_help()


def _examples(text):
    found = _EXAMPLES.search(text)
    return [line.strip() for line in found.group(1).splitlines()] if found else []


def test_every_subcommand_has_examples_of_itself():
    for name in COMMANDS:
        lines = _examples(_help(name))
        assert lines, f"optics {name} --help shows no examples"
        assert all(line.startswith("optics ") for line in lines), lines
        assert any(shlex.split(line)[1] == name for line in lines), (name, lines)


def test_an_example_line_is_printed_as_written_not_refilled():
    text = _help("simulate")  # its second example is longer than a help line
    longest = max(_examples(text), key=len)
    assert len(longest) > 80 and f"  {longest}\n" in text


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_help_examples_run_as_written(name, tmp_path, monkeypatch):
    text = _help(name)
    monkeypatch.chdir(tmp_path)
    for file_name, body in _FILE.findall(text):
        lines = [line[2:] for line in body.splitlines()]
        (tmp_path / file_name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    for line in _examples(text):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(shlex.split(line, comments=True)[1:])
        assert status == 0, f"{line}\n{err.getvalue()}"
        assert "error:" not in err.getvalue(), err.getvalue()
