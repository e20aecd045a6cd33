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
import logging
import math
import os

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError, OpticsError
from ..limits import MAX_TRIALS, MAX_WORKERS, check_size
from ._montecarlo import MonteCarlo, run_trial, trial_seeds

#: Batches per worker (more: finer load balancing and progress; fewer: less overhead).
BATCHES_PER_WORKER = 8
#: Seconds to wait for a scheduler given by address to connect and answer as one.
CONNECT_TIMEOUT = 10.0
#: Address schemes of a Dask scheduler reachable from other processes.
SCHEDULER_SCHEMES = ("tcp", "tls")
#: How long an embedded cluster's scheduler waits for a silent worker before dropping it.
WORKER_TTL = "60s"
#: How often a batch that raised is resubmitted.
RETRIES = 3
#: Environment of embedded workers: one thread each (the cluster has one worker per core).
WORKER_ENV = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


class DaskUnavailableError(ConfigurationError, ImportError):
    """Dask distributed is needed (more than one worker, or a scheduler) but not installed."""


class SchedulerUnreachableError(ConfigurationError, ConnectionError):
    """No Dask scheduler answered at the given address."""


class WorkersLostError(OpticsError, RuntimeError):
    """A batch of trials was on every worker that died (Dask's ``KilledWorker``)."""


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


def check_scheduler_address(address) -> str:
    """``address`` as ``scheme://host:port`` when it names a Dask scheduler's place, else an error.

    The scheme is ``tcp`` or ``tls`` (``host:port`` alone means tcp), the host
    is not empty and the port is an integer from 1 to 65535; ``tls`` needs the
    client certificates of the Dask configuration (``distributed.comm.tls``).

    Raises
    ------
    ConfigurationError
        Naming the address and what is wrong with it.
    """
    from urllib.parse import urlsplit

    if not isinstance(address, str) or not address.strip():
        raise ConfigurationError(
            f"scheduler address {address!r}: give tcp://HOST:PORT (e.g. tcp://10.0.0.5:8786)"
        )
    text = address.strip()
    if "://" not in text:
        text = f"tcp://{text}"
    parts = urlsplit(text)
    where = f"scheduler address {address!r}"
    if parts.scheme not in SCHEDULER_SCHEMES:
        raise ConfigurationError(
            f"{where}: scheme {parts.scheme!r} is not tcp or tls (a scheduler of another "
            "process is reached over tcp:// or tls://)"
        )
    try:
        port = parts.port
    except ValueError:
        port = -1
    if not parts.hostname:
        raise ConfigurationError(f"{where}: no host (give {parts.scheme}://HOST:PORT)")
    if port is None or not 1 <= port <= 65535:
        raise ConfigurationError(f"{where}: the port must be an integer from 1 to 65535")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigurationError(f"{where}: only {parts.scheme}://HOST:PORT, nothing after it")
    if parts.scheme == "tls":
        import dask

        needed = ("distributed.comm.tls.ca-file", "distributed.comm.tls.client.cert")
        missing = [key for key in needed if not dask.config.get(key, None)]
        if missing:
            raise ConfigurationError(
                f"{where}: tls:// needs certificates; set {' and '.join(missing)} in the Dask "
                "configuration (or use tcp://)"
            )
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"{parts.scheme}://{host}:{port}"


def probe_scheduler(address, timeout=None) -> dict:
    """The identity of the Dask scheduler at ``address``, asked within ``timeout`` seconds.

    ``timeout`` defaults to :data:`CONNECT_TIMEOUT`.

    A closed port, a host that does not answer, or a peer that does not
    answer as a Dask scheduler (an HTTP server, a Dask worker) raises
    :class:`SchedulerUnreachableError` after at most about ``timeout`` seconds.
    """
    import asyncio
    import concurrent.futures

    timeout = CONNECT_TIMEOUT if timeout is None else float(timeout)

    async def identity():
        from distributed.comm import connect

        comm = await asyncio.wait_for(connect(address, timeout=timeout), timeout)
        try:
            await asyncio.wait_for(comm.write({"op": "identity", "reply": True}), timeout)
            return await asyncio.wait_for(comm.read(), timeout)
        finally:
            comm.abort()

    # A thread of its own: the probe has its own event loop even when the caller runs one.
    pool = concurrent.futures.ThreadPoolExecutor(1)
    try:
        reply = pool.submit(asyncio.run, identity()).result(timeout=3 * timeout + 1)
    except (OSError, asyncio.TimeoutError, concurrent.futures.TimeoutError, EOFError) as exc:
        raise SchedulerUnreachableError(
            f"no Dask scheduler answered at {address!r} within {timeout:g} s "
            f"({type(exc).__name__}{': ' + str(exc) if str(exc) else ''})"
        ) from None
    except Exception as exc:  # the peer's bytes are no Dask message
        raise SchedulerUnreachableError(
            f"{address!r} is not a Dask scheduler (its answer cannot be read: {type(exc).__name__})"
        ) from None
    finally:
        pool.shutdown(wait=False)
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        kind = reply.get("type") if isinstance(reply, dict) else type(reply).__name__
        raise SchedulerUnreachableError(f"{address!r} is not a Dask scheduler (it is a {kind})")
    return reply


def run_batch(model, indices, seeds, backend):
    """Trials ``indices`` with their seed sequences: a list of (index, draws, value)."""
    return [run_trial(model, i, s, backend) for i, s in zip(indices, seeds)]


def _identity(model):
    return model


def _dask_batches(model, seeds, workers, scheduler, backend):
    """Yield the result lists of batches as they finish on a Dask cluster."""
    try:
        from dask.distributed import Client, KilledWorker, LocalCluster, as_completed
    except ImportError as exc:
        raise DaskUnavailableError(
            "more than one worker or a scheduler needs Dask: pip install 'dask[distributed]' "
            "(or run in this process with workers = 1)"
        ) from exc
    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            probe_scheduler(scheduler)
            try:
                client = stack.enter_context(Client(scheduler, timeout=f"{CONNECT_TIMEOUT}s"))
            except OSError as exc:
                raise SchedulerUnreachableError(
                    f"no Dask scheduler answered at {scheduler!r} within {CONNECT_TIMEOUT:g} s "
                    f"({exc})"
                ) from exc
        else:
            import dask

            # A worker that stops answering (frozen, SIGSTOPped) is dropped after WORKER_TTL
            # and its batches rerun on the others, instead of Dask's default five minutes.
            stack.enter_context(dask.config.set({"distributed.scheduler.worker-ttl": WORKER_TTL}))
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=workers or os.cpu_count() or 1,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                    env=dict(WORKER_ENV),
                )
            )
            client = stack.enter_context(Client(cluster))
        n_workers = max(1, len(client.scheduler_info().get("workers", {})))
        size = max(1, math.ceil(len(seeds) / (n_workers * BATCHES_PER_WORKER)))
        shared = client.submit(_identity, model, pure=False)
        futures = [
            client.submit(
                run_batch,
                shared,
                list(range(start, min(start + size, len(seeds)))),
                seeds[start : start + size],
                backend,
                retries=RETRIES,
                pure=False,
            )
            for start in range(0, len(seeds), size)
        ]
        for future in as_completed(futures):
            try:
                batch = future.result()
            except KilledWorker as exc:
                raise WorkersLostError(
                    f"a batch of trials was running on each of the workers that died ({exc}); "
                    "the trials may be too large for the workers' memory"
                ) from exc
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
