"""Dask scheduler addresses: validated before use; a peer that is no scheduler refused in time."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from optics.errors import ConfigurationError
from optics.tolerance._runner import (
    SchedulerUnreachableError,
    check_scheduler_address,
    probe_scheduler,
)


@pytest.mark.parametrize(
    "address, needle",
    [
        ("", "give tcp://HOST:PORT"),
        ("   ", "give tcp://HOST:PORT"),
        ("garbage", "the port must be an integer"),
        ("tcp://10.0.0.5:abc", "the port must be an integer"),
        ("tcp://10.0.0.5:0", "the port must be an integer from 1 to 65535"),
        ("tcp://10.0.0.5:70000", "the port must be an integer"),
        ("tcp://:8786", "no host"),
        ("inproc://192.0.2.2/1/1", "scheme 'inproc' is not tcp or tls"),
        ("http://10.0.0.5:8786", "scheme 'http' is not tcp or tls"),
        ("tcp://10.0.0.5:8786/path", "nothing after it"),
        ("tls://10.0.0.5:8786", "tls:// needs certificates"),
    ],
)
def test_a_bad_scheduler_address_is_refused_naming_it(address, needle):
    with pytest.raises(ConfigurationError, match=needle) as info:
        check_scheduler_address(address)
    assert repr(address) in str(info.value)


def test_a_host_and_port_alone_mean_tcp():
    assert check_scheduler_address("10.0.0.5:8786") == "tcp://10.0.0.5:8786"


def test_a_non_string_address_is_refused():
    with pytest.raises(ConfigurationError, match="give tcp://HOST:PORT"):
        check_scheduler_address(8786)


@pytest.fixture
def silent_server():
    """A TCP server on a port the OS picks that accepts and never answers (like a frozen peer)."""
    pytest.importorskip("distributed")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    held, stop = [], threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    server.close()


def test_a_peer_that_never_answers_is_refused_within_the_timeout(silent_server):
    start = time.perf_counter()
    with pytest.raises(SchedulerUnreachableError, match="no Dask scheduler answered"):
        probe_scheduler(silent_server, timeout=1.0)
    assert time.perf_counter() - start < 8


@pytest.fixture
def http_server():
    """An HTTP server on a port the OS picks: answers, but not as a Dask scheduler."""
    pytest.importorskip("distributed")
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_an_http_server_is_refused_as_no_scheduler_within_the_timeout(http_server):
    start = time.perf_counter()
    with pytest.raises(SchedulerUnreachableError):
        probe_scheduler(http_server, timeout=1.0)
    assert time.perf_counter() - start < 8


def test_a_running_scheduler_answers_the_probe():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=0, processes=False, protocol="tcp://", scheduler_port=0, dashboard_address=None
    ) as cluster:
        assert probe_scheduler(cluster.scheduler_address, timeout=5.0)["type"] == "Scheduler"


@pytest.mark.parametrize("address", ["garbage", "", "tcp://h:abc", "inproc://x", "tls://h:1"])
def test_the_command_refuses_a_bad_address_at_once_in_one_line(capsys, address):
    from optics.cli import main

    start = time.perf_counter()
    argv = ["tolerance", "cooke_triplet_tolerance", "--monte-carlo", "2", "--scheduler", address]
    assert main(argv) == 2
    assert time.perf_counter() - start < 5
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("optics tolerance: error: scheduler address")
