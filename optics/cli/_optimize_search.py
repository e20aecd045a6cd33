"""``optics optimize --driver global`` and ``--glass-substitute``: the global steps.

``--driver global`` runs the local driver (``--local-driver``, default dls)
from ``--starts N`` points (the design and scrambled Sobol points within the
variables' bounds, ``--seed``), in this process (``--workers 1``, the
default), on an embedded Dask cluster (``--workers K``) or on the cluster
at ``--scheduler ADDRESS``.  ``--glass-substitute 3,5`` then (or alone, after
the local run) tries the catalog glasses near those surfaces' glasses.
"""

from __future__ import annotations

import math

from ._common import UsageError, positive_int


def add_search_options(parser):
    """Add the global-search and glass-substitution options to the optimize parser."""
    group = parser.add_argument_group("global search (--driver global)")
    group.add_argument(
        "--starts",
        type=positive_int,
        default=16,
        metavar="N",
        help="starts of the global search, the design among them (default 16)",
    )
    group.add_argument("--seed", type=int, default=0, help="seed of the Sobol starts (default 0)")
    group.add_argument(
        "--local-driver",
        default="dls",
        metavar="DRIVER",
        help="the driver refining each start (default dls)",
    )
    group.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        metavar="K",
        help="1: every start in this process (default); K: an embedded Dask "
        "cluster of K worker processes",
    )
    group.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="a running Dask scheduler, e.g. tcp://10.0.0.5:8786",
    )
    glass = parser.add_argument_group("glass substitution")
    glass.add_argument(
        "--glass-substitute",
        default=None,
        metavar="SURF[,SURF]",
        help="surfaces whose glass is replaced by the best nearby catalog glass "
        "(each candidate re-optimized)",
    )
    glass.add_argument(
        "--glass-radius",
        type=float,
        default=5.0,
        metavar="D",
        help="search radius on the glass map, sqrt((100 dnd)^2 + dvd^2) (default 5)",
    )
    glass.add_argument(
        "--glass-candidates",
        type=positive_int,
        default=8,
        metavar="N",
        help="most candidates per surface, nearest first (default 8)",
    )
    glass.add_argument(
        "--glass-catalogs",
        default=None,
        metavar="CAT[,CAT]",
        help="catalogs to draw from (default: those of the lens's glasses)",
    )


def run_search(problem, args, driver, steps, options):
    """(OptimizationResult on the optic, extra report keys) of the global and glass steps.

    Returns None when neither is asked for.
    """
    from ..optimize import global_search, optimize, substitute_glasses

    if args.scheduler is not None:
        from .._scheduler import check_scheduler_address

        check_scheduler_address(args.scheduler)
    if args.glass_substitute and not (math.isfinite(args.glass_radius) and args.glass_radius >= 0):
        raise UsageError(f"--glass-radius must be a finite number >= 0, not {args.glass_radius:g}")
    extra = {}
    result = None
    if driver == "global":
        found = global_search(
            problem,
            args.starts,
            args.seed,
            local=args.local_driver,
            steps=steps,
            workers=None if args.scheduler else args.workers,
            scheduler=args.scheduler,
        )
        result = found.best
        report = found.as_dict()
        extra = {k: report[k] for k in ("local_driver", "best_start", "seed", "starts")}
        extra["driver"] = "global"
    if args.glass_substitute:
        surfaces = _surfaces(args.glass_substitute)
        if result is None:
            result = optimize(problem, driver, steps=steps, **options)
        catalogs = args.glass_catalogs.split(",") if args.glass_catalogs else None
        local = args.local_driver if driver == "global" else driver
        substituted = substitute_glasses(
            problem,
            surfaces,
            catalogs=catalogs,
            radius=args.glass_radius,
            limit=args.glass_candidates,
            local=local,
            steps=steps,
        )
        result = substituted.best
        extra["glass_substitution"] = substituted.surfaces
    return None if result is None else (result, extra)


def _surfaces(text):
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise UsageError(f"--glass-substitute {text!r}: give surface numbers, e.g. 3,5") from None


def print_search(report):
    """One line for a global search, one per substituted surface (table output)."""
    starts = report.get("starts")
    if starts:
        finite = sum(1 for s in starts if s["merit_after"] != float("inf"))
        print(
            f"global search: {len(starts)} starts (seed {report['seed']}, {finite} finished), "
            f"best start {report['best_start']} ({report['local_driver']})"
        )
    for row in report.get("glass_substitution", []):
        print(
            f"glass after surface {row['surface']}: {row['before']} -> {row['chosen']} "
            f"({len(row['candidates'])} candidates tried)"
        )
