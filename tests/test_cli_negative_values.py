"""A value that starts like a negative number is read as a value, as typed.

``--defocus -0.05,0.05`` (a symmetric range as a user types it) used to be
refused by argparse ("expected one argument"); only ``--defocus=-0.05,0.05``
worked.  One mechanism in the parser class covers every option of every
command: this test walks them all.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json

import pytest

from optics.cli import build_parser, main

_REFUSALS = ("expected one argument", "expected at least one argument", "unrecognized arguments")


def _commands():
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def _valued_options(subparser):
    """(option string, nargs) of every option that takes a value."""
    for action in subparser._actions:
        if action.option_strings and action.nargs != 0 and not action.choices:
            yield action.option_strings[-1], action


def _parse(subparser, argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            return subparser.parse_known_args(argv)[0], ""
        except SystemExit:
            return None, err.getvalue()


@pytest.mark.parametrize("value", ["-0.05,0.05", "-1", "-1e-3", "-.5", "-2x3", "-inf"])
def test_every_valued_option_of_every_command_takes_a_negative_first_value(value):
    checked = 0
    for name, subparser in _commands().items():
        for option, action in _valued_options(subparser):
            parsed, err = _parse(subparser, [option, value])
            assert not any(refusal in err for refusal in _REFUSALS), (name, option, err)
            if parsed is not None and action.type is None:  # a plain string reaches the command
                got = getattr(parsed, action.dest)
                assert (got[-1] if isinstance(got, list) else got) == value, (name, option)
            checked += 1
    assert checked > 100  # every command's options were walked


def test_a_symmetric_defocus_range_runs_as_typed(capsys):
    argv = ["through-focus", "singlet", "--spot", "--rings", "2", "--steps", "3", "--json"]
    assert main([*argv, "--defocus", "-0.05,0.05"]) == 0
    typed = capsys.readouterr().out
    assert main([*argv, "--defocus=-0.05,0.05"]) == 0
    assert typed == capsys.readouterr().out  # the same as the = form
    assert json.loads(typed)["defocus"] == pytest.approx([-0.05, 0.0, 0.05])


def test_a_negative_frequency_is_the_command_s_own_error_not_the_parser_s(capsys):
    assert main(["mtf", "singlet", "--frequencies", "-10,20"]) == 2
    err = capsys.readouterr().err
    assert "--frequencies must be finite, non-negative" in err and err.count("\n") == 1


def test_a_word_that_only_starts_with_a_dash_is_still_an_unknown_option(capsys):
    assert main(["through-focus", "singlet", "--defocus", "-x"]) == 2
    assert "expected one argument" in capsys.readouterr().err
