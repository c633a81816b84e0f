"""Is a Dask scheduler there? Asked before any work (or Prefect) starts.

Light imports only: the CLI asks this before the flows are imported, so that a wrong ``--dask``
address costs a second, not Prefect's start-up and then distributed's 30 s connect timeout.
"""

from __future__ import annotations

import re
import socket
from urllib.parse import urlsplit

SCHEDULER_PROBE_S = 30.0
"""Seconds a Dask scheduler has to answer a first connection (distributed's own default
connect timeout is 30 s)."""

TCP_PROBE_S = 5.0
"""Seconds a plain TCP connection to the scheduler's port may take before distributed is asked
(a refused port or an unknown host answers at once; a filtered one is left to distributed)."""


class SchedulerUnreachableError(ConnectionError):
    """No Dask scheduler answers at the address given (``--dask`` / ``AFFIDAVIT_DASK_ADDRESS``)."""


def _unreachable(address: str, timeout: float | None, why: str) -> SchedulerUnreachableError:
    within = f" within {timeout:g} s" if timeout is not None else ""
    return SchedulerUnreachableError(
        f"no Dask scheduler answers at {address}{within} ({why}); give the "
        "scheduler's address (its port, usually 8786, not the dashboard's)"
    )


def _tcp_refusal(address: str) -> str | None:
    """Why a plain TCP connection to a ``tcp://host:port`` address fails at once, else None.

    Other schemes (``tls://``, ``inproc://``, ``ucx://``) and addresses without a port are left
    to distributed.

    >>> _tcp_refusal("inproc://10.0.0.1/1/2") is None
    True
    """
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    if parts.scheme != "tcp":
        return None
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        return "not a host:port address"
    if not host or port is None:
        return None
    try:
        with socket.create_connection((host, port), timeout=TCP_PROBE_S):
            return None
    except ConnectionRefusedError:
        return "connection refused"
    except socket.gaierror as exc:
        return f"unknown host {host!r} ({exc.strerror or exc})"
    except OSError as exc:  # a timeout or an unreachable network: distributed decides
        if isinstance(exc, TimeoutError):
            return None
        return exc.strerror or str(exc) or type(exc).__name__


def address_fault(address: str) -> str | None:
    """Why ``address`` cannot name a Dask scheduler, by distributed's own parser; else None.

    An unknown scheme, or a ``tcp://``/``tls://``/``ws(s)://`` address without a host and a
    port in 0..65535. (distributed would fail on it only once its client is made, and that
    half-made client then holds the process up to a minute at exit.)

    >>> address_fault("tcp://10.0.0.5:8786") is None, address_fault("inproc://10.0.0.1/1/2")
    (True, None)
    >>> address_fault("scheduler")
    "missing port number in address 'scheduler'"
    """
    from distributed.comm.addressing import get_address_host_port, parse_address
    from distributed.comm.registry import get_backend

    scheme, _ = parse_address(address)
    try:
        get_backend(scheme)
        if scheme not in ("tcp", "tls", "ws", "wss"):
            return None
        _, port = get_address_host_port(address)
    except ValueError as exc:
        not_int = re.match(r"invalid literal for int\(\) with base 10: (.*)", str(exc))
        return f"port {not_int[1]} is not a number" if not_int else str(exc)
    return None if 0 <= port <= 65535 else f"port {port} is out of range (0-65535)"


def check_scheduler(address: str, *, timeout: float = SCHEDULER_PROBE_S) -> None:
    """Make sure a Dask scheduler answers at ``address`` before any work is sent there.

    A refused port or an unknown host is told at once (a plain TCP connection first). A port
    that accepts and never answers (a dashboard, any other service) would otherwise hang the
    connection past its timeout, and one that answers in another protocol (HTTP) makes
    distributed read a length from the reply and fail with a ``MemoryError``. The first
    connection runs in a daemon thread with a wall-clock bound.

    Args:
        address: The scheduler's address (``tcp://host:8786``).
        timeout: Seconds to wait for it.

    Raises:
        SchedulerUnreachableError: No Dask scheduler answered in time, or the reply was not
            Dask's (a ``ConnectionError``, so the CLI prints the message alone).
    """
    refused = _tcp_refusal(address)
    if refused is not None:
        raise _unreachable(address, None, refused)

    import threading

    from distributed import Client

    box: dict[str, BaseException | bool] = {}

    def connect() -> None:
        try:
            client = Client(address, timeout=timeout, set_as_default=False)
            client.close()
            box["ok"] = True
        except BaseException as exc:  # noqa: BLE001 - MemoryError from a non-Dask reply
            box["exc"] = exc

    t = threading.Thread(target=connect, name="dask-scheduler-probe", daemon=True)
    t.start()
    t.join(timeout + 5.0)
    if box.get("ok") is True:
        return
    exc = box.get("exc")
    why = (f"{type(exc).__name__}: {str(exc)[:120]}" if isinstance(exc, BaseException)
           else "no answer")
    raise _unreachable(address, timeout, why)
