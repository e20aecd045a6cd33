"""Running Monte Carlo trials: in this process, on an embedded Dask LocalCluster, or on any cluster.

- ``workers=1`` (no scheduler): every trial in this process, in order;
- default: an embedded ``dask.distributed.LocalCluster`` with one
  single-threaded worker process per core (``workers=K`` for K), started
  and closed here;
- ``scheduler="tcp://HOST:PORT"``: the workers of an existing cluster.

On Dask the model travels once as the result of a task (so a worker that
holds it can be lost: the scheduler recomputes it elsewhere), and trials go
out in batches.  A worker lost mid-run has its unfinished batches rerun by
the scheduler; a batch that raises is retried (``retries``).  Results land
in trial order whatever order they finish in, and a trial's values depend on
its seed alone (see :mod:`optics.tolerance._montecarlo`), so every worker
count gives identical results.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from .. import backend as be
from .._scheduler import (  # noqa: F401 - the names this module had before
    CONNECT_TIMEOUT,
    RETRIES,
    SCHEDULER_SCHEMES,
    WORKER_ENV,
    WORKER_TTL,
    DaskUnavailableError,
    SchedulerUnreachableError,
    WorkersLostError,
    check_scheduler_address,
    dask_client,
    map_tasks,
    probe_scheduler,
)
from ..errors import ConfigurationError
from ..limits import MAX_TRIALS, MAX_WORKERS, check_size
from ._montecarlo import MonteCarlo, run_trial, trial_seeds

#: Batches per worker (more: finer load balancing and progress; fewer: less overhead).
BATCHES_PER_WORKER = 8


def monte_carlo(
    model,
    trials,
    seed=0,
    *,
    workers=None,
    scheduler=None,
    threshold=None,
    progress=False,
    backend=None,
) -> MonteCarlo:
    """Run ``trials`` Monte Carlo trials of ``model``.

    Parameters
    ----------
    model : ToleranceModel
    trials : int
        N >= 1.
    seed : int
        Root of the per-trial seeds (``SeedSequence(seed).spawn(N)``).
    workers : int, optional
        1: in this process.  None: one per core.  Ignored with ``scheduler``.
    scheduler : str, optional
        Address of a running Dask scheduler, e.g. ``"tcp://10.0.0.5:8786"``.
    threshold : float, optional
        Yield threshold (criterion <= threshold passes).
    progress : bool or callable
        True: show a progress bar (tqdm, when installed).  A callable is
        called as ``progress(done, total)`` whenever trials finish.
    backend : str, optional
        Array backend of the trials (default: the configured one).

    Returns
    -------
    MonteCarlo
    """
    if isinstance(trials, bool) or not isinstance(trials, int) or trials < 1:
        raise ConfigurationError(f"the number of trials must be a positive integer, not {trials!r}")
    check_size(trials, MAX_TRIALS, "the number of Monte Carlo trials", lowest=1)
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise ConfigurationError(f"workers must be a positive integer, not {workers!r}")
    if workers is not None:
        check_size(workers, MAX_WORKERS, "the number of workers", lowest=1)
    backend = backend or be.get_backend()
    seeds = trial_seeds(seed, trials)
    if scheduler is not None:
        scheduler = check_scheduler_address(scheduler)
    draws = np.full((trials, len(model)), np.nan)
    values = np.full(trials, np.nan)
    done = np.zeros(trials, dtype=bool)
    interrupted = False
    with _progress_bar(trials, progress) as bar:
        try:
            if workers == 1 and scheduler is None:
                for i, s in enumerate(seeds):
                    index, drawn, value = run_trial(model, i, s, backend)
                    draws[index], values[index], done[index] = drawn, value, True
                    bar(1)
            else:
                for batch in _dask_batches(model, seeds, workers, scheduler, backend):
                    for index, drawn, value in batch:
                        draws[index], values[index], done[index] = drawn, value, True
                    bar(len(batch))
        except KeyboardInterrupt:  # Ctrl-C, or SIGTERM/SIGHUP turned into it by the CLI
            if not done.any():
                raise
            interrupted = True
    if not interrupted:
        return MonteCarlo(seed, list(model.labels), draws, values, threshold)
    indices = np.flatnonzero(done)
    return MonteCarlo(
        seed,
        list(model.labels),
        draws[indices],
        values[indices],
        threshold,
        indices=indices,
        interrupted=True,
        requested=trials,
    )


def run_batch(model, indices, seeds, backend):
    """Trials ``indices`` with their seed sequences: a list of (index, draws, value)."""
    return [run_trial(model, i, s, backend) for i, s in zip(indices, seeds)]


def _dask_batches(model, seeds, workers, scheduler, backend):
    """Yield the result lists of batches as they finish on a Dask cluster."""
    with dask_client(workers, scheduler, CONNECT_TIMEOUT) as (client, n_workers):
        size = max(1, math.ceil(len(seeds) / (n_workers * BATCHES_PER_WORKER)))
        tasks = [
            (
                list(range(start, min(start + size, len(seeds)))),
                seeds[start : start + size],
                backend,
            )
            for start in range(0, len(seeds), size)
        ]
        for _, batch in map_tasks(run_batch, model, tasks, client):
            yield batch


@contextlib.contextmanager
def _progress_bar(total, enabled):
    """A callable advancing a tqdm bar (or a ``enabled(done, total)`` callback) by n trials."""
    if callable(enabled):
        done = [0]

        def advance(n):
            done[0] += n
            enabled(done[0], total)

        yield advance
        return
    bar = None
    if enabled:
        with contextlib.suppress(ImportError):
            from tqdm import tqdm

            bar = tqdm(total=total, desc="monte carlo", unit="trial", leave=False)
    try:
        yield (bar.update if bar is not None else lambda n: None)
    finally:
        if bar is not None:
            bar.close()
