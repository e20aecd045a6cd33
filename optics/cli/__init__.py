"""The ``optics`` command: one subcommand module per job, registered below.

:func:`main` is the command's one error boundary (docs/cli.md, "Errors and exit
status"): user mistakes (bad lens files, bad options, unreadable or unwritable
files, numerics that cannot go on) print one line to stderr and exit with
status 2; anything else is a bug in optics and prints one line asking for a
report, exit status 1.  Warnings print as one line each.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import warnings

from .. import backend
from .._version import __version__
from ..errors import OpticsError
from ._examples import epilog as examples_epilog

# Each module defines ``register(subparsers)`` which adds its subcommand and
# sets ``func`` (a callable taking the parsed args and returning an exit code).
_SUBCOMMANDS = (
    "optics.cli._analyze",
    "optics.cli._trace",
    "optics.cli._plot",
    "optics.cli._demo",
    "optics.cli._gradcheck",
    "optics.cli._optimize",
    "optics.cli._wavefront",
    "optics.cli._mtf",
    "optics.cli._psf",
    "optics.cli._through_focus",
    "optics.cli._mtf_field",
    "optics.cli._convert",
    "optics.cli._tolerance",
    "optics.cli._seidel",
    "optics.cli._field_curvature",
    "optics.cli._distortion",
    "optics.cli._focal_shift",
    "optics.cli._lateral_color",
    "optics.cli._illumination",
    "optics.cli._footprint",
    "optics.cli._fan",
    "optics.cli._prescription",
    "optics.cli._spots",
    "optics.cli._simulate",
    "optics.cli._thermal",
    "optics.cli._ghosts",
    "optics.cli._beam",
    "optics.cli._polarization",
)


EXIT_OK = 0
EXIT_BUG = 1
EXIT_USER = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command killed by it
TRACEBACK_VARIABLE = "OPTICS_TRACEBACK"
"""Set to 1 to let an unexpected exception (a bug) show its traceback."""


_NEGATIVE_VALUE = re.compile(r"^-(\.?\d|(inf|infinity|nan)\b)", re.IGNORECASE)
"""A word that starts like a negative number: ``-0.05,0.05``, ``-1e-3``, ``-.5``, ``-inf``.

argparse's own test (``-5`` or ``-.5`` only) takes ``--defocus -0.05,0.05`` for an
option and says "expected one argument"; no option of ``optics`` starts with a digit,
so such a word is always a value (of the option before it, or a positional)."""


class _Parser(argparse.ArgumentParser):
    """The parser of ``optics`` and of each subcommand.

    A bad option is one line naming ``--help``; a word that starts like a
    negative number (:data:`_NEGATIVE_VALUE`) is a value, never an option,
    for every list or number option of every command.
    """

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_VALUE
        self.register("action", "parsers", _Commands)

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class _Commands(argparse._SubParsersAction):
    """The subcommands: each one's ``--help`` ends with its examples (optics.cli._examples)."""

    def add_parser(self, name, **kwargs):
        kwargs["epilog"] = examples_epilog(name, kwargs.get("epilog"))
        return super().add_parser(name, **kwargs)


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, except that a paragraph of lines indented by two spaces (an
    example command line, a file's content) is printed as it is, not refilled."""

    def _fill_text(self, text, width, indent):
        return "\n\n".join(self._paragraph(part, width, indent) for part in text.split("\n\n"))

    def _paragraph(self, text, width, indent):
        lines = text.splitlines()
        if len(lines) > 1 and all(line.startswith("  ") for line in lines[1:]):
            return "\n".join(indent + line for line in lines)
        return super()._fill_text(text, width, indent)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every available subcommand."""
    import importlib

    parser = _Parser(
        prog="optics",
        description="Differentiable sequential optical design: analyze, trace, plot and "
        "optimize lenses on NumPy or PyTorch.",
    )
    parser.add_argument("--version", action="version", version=f"optics {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module_name in _SUBCOMMANDS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            continue  # a subcommand that is not built yet
        module.register(sub)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``optics`` console script; returns the exit status.

    A bad option exits 2 with argparse's one line (``--help``/``--version``
    return 0).  Every failure ends here as one line on stderr: an :class:`OpticsError`
    (lens file, configuration, numerics), an ``OSError`` (a file that cannot
    be read or written), an ``ArithmeticError`` (a degenerate system, such as a
    division by zero in the paraxial data) or a ``RecursionError``/``MemoryError``
    gives status 2;
    Ctrl-C 130; a closed stdout (``| head``) 141 without a message; any other
    exception is a bug: status 1 and a line asking for a report
    (``OPTICS_TRACEBACK=1`` shows the traceback instead).
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a bad option (its one line is printed)
        return exc.code if isinstance(exc.code, int) else EXIT_USER
    if getattr(args, "func", None) is None:
        parser.print_help()
        return EXIT_OK
    name = f"optics {args.command}"
    with warnings.catch_warnings():
        warnings.showwarning = _one_line_warning(name)
        try:
            backend.check_environment()  # OPTICS_BACKEND & co.: one line, exit 2, when wrong
            status = int(_run_command(args) or 0)
            sys.stdout.flush()  # a closed pipe shows here, not at interpreter exit
            return status
        except BrokenPipeError:
            _silence_stdout()
            return EXIT_BROKEN_PIPE
        except KeyboardInterrupt:
            _error(name, "interrupted")
            return EXIT_INTERRUPTED
        except OpticsError as exc:
            _error(name, str(exc))
        except OSError as exc:
            _error(name, os_error_message(exc))
        except RecursionError:
            _error(name, "input nested too deeply to process")
        except ArithmeticError as exc:  # a degenerate system the checks did not catch
            _error(
                name,
                f"the computation failed ({type(exc).__name__}: {exc}): the system is probably "
                "degenerate (e.g. the object in the entrance pupil); if it is not, please "
                "report it",
            )
        except MemoryError:
            _error(name, "out of memory (fewer rays, rings or steps may fit)")
        except Exception as exc:
            if os.environ.get(TRACEBACK_VARIABLE, "") not in ("", "0"):
                raise
            detail = one_line(f"{type(exc).__name__}: {exc}")
            _error(
                name,
                f"internal error ({detail}); this is a bug in optics, please report it with "
                f"the command line and input files ({TRACEBACK_VARIABLE}=1 shows the traceback)",
                kind="bug",
            )
            return EXIT_BUG
    return EXIT_USER


def _run_command(args):
    """The subcommand, once or (``--config all``) once per configuration."""
    from ._common import run_command

    return run_command(args)


def os_error_message(exc: OSError) -> str:
    """'FILE: reason' for an OSError (the file names come first, as in every message)."""
    reason = exc.strerror or str(exc) or type(exc).__name__
    files = [f for f in (exc.filename, exc.filename2) if f is not None]
    return f"{': '.join(map(str, files))}: {reason}" if files else reason


def one_line(text: str) -> str:
    """``text`` with its line breaks folded into "; " (messages are one line)."""
    return "; ".join(part.strip() for part in str(text).splitlines() if part.strip())


def _error(name, message, kind="error"):
    try:
        print(f"{name}: {kind}: {one_line(message)}", file=sys.stderr)
    except (OSError, ValueError):  # stderr closed too: nothing left to tell
        pass


def _one_line_warning(name):
    """A showwarning that prints each distinct warning once, as one line."""
    shown = set()

    def show(message, category, filename, lineno, file=None, line=None):
        text = f"{name}: warning: {one_line(message)}"
        if text in shown:  # the same lens analysed, plotted and optimized warns alike
            return
        shown.add(text)
        try:
            print(text, file=file or sys.stderr)
        except (OSError, ValueError):
            pass

    return show


def _silence_stdout():
    """After a broken pipe, point stdout at /dev/null so the exit flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests) or closed
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
