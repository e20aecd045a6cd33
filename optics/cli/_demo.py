"""``optics demo``: analyze the built-in Cooke triplet, plot it, optimize it briefly."""

from __future__ import annotations

import importlib.util

from .. import backend as be
from ..plot import check_image_path, layout_and_spots_figure, save_figure


def register(subparsers):
    parser = subparsers.add_parser(
        "demo",
        help="analyze, plot and briefly optimize the built-in Cooke triplet",
        description="Analyze the built-in Cooke triplet (first-order data and spots), write a "
        "layout + spot-diagram PNG when matplotlib is installed, and run a short optimization "
        "from a perturbed start, printing the merit as it falls.",
    )
    parser.add_argument(
        "-o", "--output", default="optics_demo.png", metavar="OUT.png", help="figure to write"
    )
    parser.add_argument("--no-optimize", action="store_true", help="skip the optimization part")
    parser.set_defaults(func=run)


def run(args):
    from ..io import load
    from ._analyze import run as analyze

    class _Args:
        lens = "cooke_triplet"
        backend = None
        precision = None
        rings = 6
        json = False

    plotting = importlib.util.find_spec("matplotlib") is not None
    if plotting:
        check_image_path(args.output)  # before any work
    analyze(_Args)
    if plotting:
        save_figure(layout_and_spots_figure(load("cooke_triplet")), args.output)
        print(f"\nwrote {args.output} (layout and spot diagrams)")
    else:
        print("\n(matplotlib is not installed: no figure; pip install 'optics[plot]')")
    if not args.no_optimize:
        _optimize_demo()
    return 0


def _optimize_demo():
    try:
        from ._optimize_demo import demo_optimization
    except ModuleNotFoundError:
        return
    print()
    backend = "torch" if "torch" in be.available_backends() else "numpy"
    with be.using(backend):
        demo_optimization(print)
