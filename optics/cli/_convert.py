"""``optics convert``: a lens from one file format to another (.zmx, .seq, .toml, .json)."""

from __future__ import annotations

import os
from pathlib import Path

from ._common import UsageError, add_lens_options, lens_from_args


def register(subparsers):
    parser = subparsers.add_parser(
        "convert",
        help="convert a lens between .zmx, .seq, .toml and .json",
        description="Read IN (a .zmx, .seq, .toml or .json lens file, or a built-in sample name) "
        "and write it to OUT in the format OUT's extension names (.zmx is written as UTF-16 LE "
        "with a byte-order mark, as OpticStudio writes it; .seq is CODE V's sequence file, "
        "docs/codev.md).  OUT is written atomically (a "
        "temporary file renamed over it), and only after the written text has been read back.  "
        "An existing OUT, or OUT being IN itself, needs --force.",
    )
    parser.add_argument("input", metavar="IN", help="lens file or built-in sample name")
    parser.add_argument("output", metavar="OUT", help="file to write: .zmx, .seq, .toml or .json")
    parser.add_argument(
        "--force", action="store_true", help="replace OUT when it exists (even when it is IN)"
    )
    add_lens_options(parser)
    parser.set_defaults(func=run)


def run(args):
    from ..io import save

    output = Path(args.output)
    source = Path(args.input)
    if output.exists() and not args.force:
        same = source.exists() and os.path.samefile(source, output)
        what = "is the input file" if same else "exists"
        raise UsageError(f"{output} {what}; add --force to replace it")
    optic = lens_from_args(args, args.input)
    save(optic, output)
    print(f"wrote {output} ({len(optic.surfaces)} surfaces) from {args.input}")
    return 0
