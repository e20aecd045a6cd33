"""Dask plumbing shared by tolerance Monte Carlo and global optimization.

One way to get workers: an embedded ``dask.distributed.LocalCluster`` (one
single-threaded worker process per core, or ``workers=K``), started and
closed here, or the workers of a running cluster at ``scheduler`` (an
address checked and probed first, so that a wrong one fails in seconds
with a clear message).  :func:`dask_client` gives the client;
:func:`map_tasks` runs independent tasks on it and yields their results as
they finish (a worker lost mid-run has its tasks rerun by the scheduler; a
task that raises is retried).
"""

from __future__ import annotations

import contextlib
import logging
import os

from .errors import ConfigurationError, OpticsError

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


@contextlib.contextmanager
def dask_client(workers=None, scheduler=None, connect_timeout=None):
    """A ``(client, worker count)`` of an embedded LocalCluster or of the cluster at ``scheduler``.

    Parameters
    ----------
    workers : int, optional
        Worker processes of the embedded cluster (default one per core);
        ignored with ``scheduler``.
    scheduler : str, optional
        Address of a running scheduler (checked with :func:`check_scheduler_address`
        by the caller), probed before connecting.
    connect_timeout : float, optional
        Seconds (default :data:`CONNECT_TIMEOUT`).
    """
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:
        raise DaskUnavailableError(
            "more than one worker or a scheduler needs Dask: pip install 'dask[distributed]' "
            "(or run in this process with workers = 1)"
        ) from exc
    timeout = CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            probe_scheduler(scheduler, timeout)
            try:
                client = stack.enter_context(Client(scheduler, timeout=f"{timeout}s"))
            except OSError as exc:
                raise SchedulerUnreachableError(
                    f"no Dask scheduler answered at {scheduler!r} within {timeout:g} s ({exc})"
                ) from exc
        else:
            import dask

            # A worker that stops answering (frozen, SIGSTOPped) is dropped after WORKER_TTL
            # and its tasks rerun on the others, instead of Dask's default five minutes.
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
        yield client, max(1, len(client.scheduler_info().get("workers", {})))


def _identity(value):
    return value


def map_tasks(fn, shared, tasks, client):
    """Yield ``(i, fn(shared, *tasks[i]))`` on ``client`` as the tasks finish.

    ``shared`` travels once, as the result of a task (a worker that holds it
    can be lost: the scheduler recomputes it elsewhere).

    Raises
    ------
    WorkersLostError
        A task was on every worker that died.
    """
    from dask.distributed import KilledWorker, as_completed

    value = client.submit(_identity, shared, pure=False)
    futures = {
        client.submit(fn, value, *task, retries=RETRIES, pure=False): i
        for i, task in enumerate(tasks)
    }
    for future in as_completed(list(futures)):
        try:
            result = future.result()
        except KilledWorker as exc:
            raise WorkersLostError(
                f"a task was running on each of the workers that died ({exc}); "
                "it may be too large for the workers' memory"
            ) from exc
        yield futures[future], result
