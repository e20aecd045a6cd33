"""``optics optimize --vary / --operand / --constraint``: an ``[optimize]`` section from options.

So that an imported lens (a .zmx) can be optimized without hand-writing a
section, the options build one:

- ``--vary radius:1-6``, ``--vary thickness:3``, ``--vary conic:2,4``,
  ``--vary thickness:6:40:60`` (with min and max), ``--vary 'surfaces[1].material.index'``;
  a ``radius`` of a plane surface becomes its ``curvature`` (which can pass through flat);
- ``--operand rms_spot``, ``--operand efl=50``, ``--operand rms_spot,weight=3``,
  ``--operand 'distortion<=1,hy=1'``, ``--operand 'rms_spot,fields=[0,2]'``;
- ``--constraint 'center_thickness>=2,surface=1'``, ``--constraint total_track<=60``.

``--vary`` replaces the section's variables, ``--operand`` its operands and
``--constraint`` its constraints; the other keys of a section in the file
(driver, steps ...) are kept.
"""

from __future__ import annotations

import json
import math
import re

from ._common import UsageError

#: --vary shorthands: name -> the attribute of surfaces[i].
VARY_PARAMETERS = ("radius", "curvature", "thickness", "conic")
#: --operand aliases.
OPERAND_ALIASES = {"spot_rms": "rms_spot"}
_LIMIT = re.compile(r"^([A-Za-z_]\w*)\s*(<=|>=|=)\s*([^,]+)$")


def add_section_options(parser):
    """Add --vary, --operand and --constraint to the optimize parser."""
    parser.add_argument(
        "--vary",
        action="append",
        default=None,
        metavar="PARAM:SURFACES[:MIN:MAX]",
        help="a variable: radius, curvature, thickness or conic of surfaces '1-6', '3' or "
        "'2,4' (optionally with bounds, e.g. thickness:6:40:60), or a full path such as "
        "'surfaces[1].material.index'; repeatable; replaces the [optimize] variables",
    )
    parser.add_argument(
        "--operand",
        action="append",
        default=None,
        metavar="TYPE[=T|<=T|>=T][,KEY=VALUE...]",
        help="an operand, e.g. rms_spot, efl=50, 'rms_spot,weight=3', 'distortion<=1,hy=1' "
        "(<= and >= are at_most / at_least); repeatable; replaces the [optimize] operands",
    )
    parser.add_argument(
        "--constraint",
        action="append",
        default=None,
        metavar="TYPE>=MIN|TYPE<=MAX[,KEY=VALUE...]",
        help="an inequality held by the dls and minimize drivers, e.g. "
        "'center_thickness>=2,surface=1' or total_track<=60; repeatable",
    )


def apply_section_options(optic, args):
    """Replace parts of ``optic.optimize`` by the --vary / --operand / --constraint options."""
    if not (args.vary or args.operand or args.constraint):
        return
    section = dict(optic.optimize or {})
    if args.vary:
        section["variables"] = [v for text in args.vary for v in parse_vary(text, optic)]
    if args.operand:
        section["operands"] = [parse_operand(text) for text in args.operand]
    if args.constraint:
        section["constraints"] = [parse_constraint(text) for text in args.constraint]
    missing = [k for k in ("variables", "operands") if not section.get(k)]
    if missing:
        option = "--vary" if missing[0] == "variables" else "--operand"
        raise UsageError(
            f"the lens has no [optimize] {missing[0]}: give {option} (see optics optimize --help)"
        )
    optic.optimize = section


def parse_vary(text, optic) -> list:
    """``radius:1-6`` -> variable entries (``[optimize]`` syntax) for surfaces 1 to 6."""
    if text.startswith("surfaces["):
        return [text]
    parts = text.split(":")
    if len(parts) not in (2, 4) or parts[0] not in VARY_PARAMETERS:
        raise UsageError(
            f"--vary {text!r}: write PARAM:SURFACES[:MIN:MAX] with PARAM one of "
            f"{', '.join(VARY_PARAMETERS)} (e.g. radius:1-6), or a path like 'surfaces[3].radius'"
        )
    surfaces = _surface_list(parts[1], text)
    bounds = {}
    if len(parts) == 4:
        for key, value in zip(("min", "max"), parts[2:]):
            if value.strip():
                bounds[key] = _float(value, f"--vary {text!r}")
    entries = []
    last = len(optic.surfaces) - 2
    for i in surfaces:
        if not 1 <= i <= last:
            raise UsageError(f"--vary {text!r}: surface {i} is not a lens surface (1 to {last})")
        name = parts[0]
        if name == "radius" and not math.isfinite(_radius(optic, i)):
            name = "curvature"  # a plane: its radius is infinite, its curvature 0
        entries.append({"path": f"surfaces[{i}].{name}", **bounds})
    return entries


def parse_operand(text) -> dict:
    """``efl=50``, ``distortion<=1,hy=1`` -> an operand entry (``[optimize]`` syntax)."""
    head, args = _head_and_arguments(text, "--operand")
    match = _LIMIT.match(head)
    entry = {}
    if match:
        name, sign, value = match.groups()
        entry["target"] = _float(value, f"--operand {text!r}")
        if sign != "=":
            entry["kind"] = "at_most" if sign == "<=" else "at_least"
    else:
        name = head
    entry["type"] = OPERAND_ALIASES.get(name, name)
    entry.update(args)
    return entry


def parse_constraint(text) -> dict:
    """``center_thickness>=2,surface=1`` -> a constraint entry (``[optimize]`` syntax)."""
    head, args = _head_and_arguments(text, "--constraint")
    match = _LIMIT.match(head)
    if not match or match.group(2) == "=":
        raise UsageError(f"--constraint {text!r}: write TYPE>=MIN or TYPE<=MAX[,KEY=VALUE...]")
    name, sign, value = match.groups()
    limit = _float(value, f"--constraint {text!r}")
    return {"type": name, ("min" if sign == ">=" else "max"): limit, **args}


def _head_and_arguments(text, option):
    pieces = _split_top_level(text)
    args = {}
    for piece in pieces[1:]:
        key, sep, value = piece.partition("=")
        if not sep or not key.strip().isidentifier():
            raise UsageError(f"{option} {text!r}: {piece!r} is not KEY=VALUE")
        args[key.strip()] = _value(value.strip())
    return pieces[0].strip(), args


def _split_top_level(text):
    """Split on commas outside brackets (so ``fields=[0,2]`` stays one piece)."""
    pieces, depth, current = [], 0, ""
    for char in text:
        depth += char in "[(" and 1 or (-1 if char in "])" else 0)
        if char == "," and depth == 0:
            pieces.append(current)
            current = ""
        else:
            current += char
    pieces.append(current)
    return pieces


def _value(text):
    """A JSON number, list or boolean; anything else stays a string."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _float(text, where):
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{where}: {text!r} is not a number") from None


def _surface_list(text, where):
    out = []
    for part in text.split(","):
        first, sep, last = part.strip().partition("-")
        try:
            lo, hi = int(first), int(last) if sep else int(first)
        except ValueError:
            message = f"--vary {where!r}: surfaces {text!r} are not like 1-6 or 2,4"
            raise UsageError(message) from None
        out.extend(range(lo, hi + 1))
    return out


def _radius(optic, index):
    from .. import backend as be
    from ..errors import OpticsError
    from ..params import get_param

    try:
        return float(be.item(get_param(optic, f"surfaces[{index}].radius")))
    except OpticsError:
        return 0.0  # no radius: the variable's own check names the problem
