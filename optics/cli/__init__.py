"""The ``optics`` command: one subcommand module per job, registered below.

User mistakes (bad lens files, bad options) print one line to stderr and exit
with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import sys

from .._version import __version__
from ..errors import OpticsError

# Each module defines ``register(subparsers)`` which adds its subcommand and
# sets ``func`` (a callable taking the parsed args and returning an exit code).
_SUBCOMMANDS = (
    "optics.cli._analyze",
    "optics.cli._trace",
    "optics.cli._plot",
    "optics.cli._demo",
    "optics.cli._gradcheck",
    "optics.cli._optimize",
    "optics.cli._convert",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


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
    """Entry point of the ``optics`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except OpticsError as exc:
        print(f"optics {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        print(f"optics {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
