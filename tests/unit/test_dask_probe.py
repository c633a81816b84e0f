"""A --dask address where no Dask scheduler answers is refused clearly and in bounded time."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from affidavit.flows.dask_probe import SchedulerUnreachableError, check_scheduler


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port on 127.0.0.1 that accepts connections and never answers."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(srv.accept()[0])
            except OSError:
                continue

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield srv.getsockname()[1]
    stop.set()
    t.join(2)
    for c in held:
        c.close()
    srv.close()


@pytest.fixture
def http_port() -> Iterator[int]:
    """An HTTP server on 127.0.0.1 that answers every request it can parse with 400."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            self.send_error(400)

        def log_message(self, *args: object) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def test_a_port_that_never_answers_is_refused_in_bounded_time(silent_port: int) -> None:
    t0 = time.monotonic()
    with pytest.raises(SchedulerUnreachableError, match="no Dask scheduler answers"):
        check_scheduler(f"tcp://127.0.0.1:{silent_port}", timeout=2.0)
    assert time.monotonic() - t0 < 30


def test_a_service_of_another_protocol_is_refused(http_port: int) -> None:
    with pytest.raises(SchedulerUnreachableError, match="no Dask scheduler answers"):
        check_scheduler(f"tcp://127.0.0.1:{http_port}", timeout=2.0)


def test_a_real_scheduler_passes() -> None:
    from distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        check_scheduler(cluster.scheduler_address, timeout=20.0)


def test_a_refused_port_is_told_at_once_without_asking_distributed() -> None:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    port = srv.getsockname()[1]
    srv.close()  # nothing listens there now
    t0 = time.monotonic()
    with pytest.raises(SchedulerUnreachableError, match="connection refused"):
        check_scheduler(f"tcp://127.0.0.1:{port}", timeout=20.0)
    assert time.monotonic() - t0 < 10  # not distributed's connect timeout


def test_a_bad_port_is_refused() -> None:
    with pytest.raises(SchedulerUnreachableError, match="not a host:port address"):
        check_scheduler("tcp://127.0.0.1:99999", timeout=5.0)
