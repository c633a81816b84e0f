"""What every flow of affidavit starts with: the home, the warehouse, a run record, a preflight."""

from __future__ import annotations

import json
import logging
import threading
import uuid
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from affidavit.flows.supervise import INTERRUPTED, quiet_logs, watching_for_stop
from affidavit.schemas.enums import RunStatus
from affidavit.warehouse.home import HomePaths, apply_prefect_environment, home_lock, resolve_home
from affidavit.warehouse.store import Warehouse

log = logging.getLogger("affidavit")

STATUSES = ("SUPPORTED", "PARTIAL", "CONTESTED", "CONTRADICTED", "UNVERIFIED")
"""Verdict statuses in the order summaries list them."""


class RunFailed(RuntimeError):
    """A run that ended without doing its job; the Prefect flow run ends FAILED with the reason.

    Attributes:
        result: What the run did write (verdicts of the batches that landed, counts, report).
    """

    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result


def utcnow() -> datetime:
    """Return the current time in UTC with microsecond precision (the only clock of a flow)."""
    return datetime.now(UTC)


def pin_ephemeral_server_port() -> int | None:
    """Give Prefect's ephemeral API server a port the kernel picked, before anything starts it.

    Prefect picks the port of its ephemeral server at random in 8000-8999 after a bind test, so
    two commands starting at once (two homes, or other Prefect programs) can pick the same one;
    the loser's health check may then answer from the winner's server, and the command dies
    when that server stops (seen once in about forty backfills). A port from the kernel's
    ephemeral range (bind to port 0) is outside the range Prefect draws from and is not handed
    out twice at once. A no-op when ``PREFECT_API_URL`` names a server, when the server is
    already set up, or when Prefect's internals differ from 3.x (``SubprocessASGIServer``).

    Returns:
        The port chosen, or None when nothing was changed.
    """
    import os
    import socket

    if os.environ.get("PREFECT_API_URL"):
        return None
    try:
        from prefect.server.api.server import SubprocessASGIServer
    except ImportError:
        return None
    instances = getattr(SubprocessASGIServer, "_instances", None)
    if not isinstance(instances, dict) or None in instances:
        return None
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = SubprocessASGIServer()  # the instance Prefect's clients will use (key None)
    if getattr(server, "running", True) or getattr(server, "port", 0) is not None:
        return None
    server.port = port
    return port


def open_warehouse(home: str | None = None) -> Warehouse:
    """Resolve the home (argument, ``$AFFIDAVIT_HOME``, ``./.affidavit``); open its warehouse."""
    paths: HomePaths = resolve_home(home)
    apply_prefect_environment(paths)
    return Warehouse(paths)


@dataclass
class RunRecord:
    """One row of ``runs``, written when the run starts and rewritten when it ends.

    Attributes:
        flow: Flow name.
        parameters: The run's parameters (JSON-serialisable).
        counts: Rows written and skips by reason; printed in the summary.
        messages: Human-readable notes (skipped inputs, degradations).
    """

    wh: Warehouse
    flow: str
    parameters: dict[str, Any]
    run_id: str = field(default_factory=lambda: utcnow().strftime("%Y%m%dT%H%M%S") + "-"
                        + uuid.uuid4().hex[:8])
    started_at: datetime = field(default_factory=utcnow)
    capabilities: dict[str, Any] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)
    messages: list[str] = field(default_factory=list)
    degraded: list[str] = field(default_factory=list)
    status: RunStatus = RunStatus.RUNNING
    _ending: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)
    """Held while the run's end is written: the main thread and the stop watcher
    (:meth:`record_stop`) may both end it."""

    def _row(self, finished_at: datetime | None, message: str | None) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "flow": self.flow,
            "started_at": self.started_at,
            "finished_at": finished_at,
            "status": self.status.value,
            "parameters": json.dumps(_without_credentials(self.parameters), default=str,
                                     sort_keys=True),
            "capabilities": json.dumps(self.capabilities, default=str, sort_keys=True),
            "counts": json.dumps(dict(self.counts), sort_keys=True),
            "degraded": "; ".join(self.degraded) or None,
            "message": message,
        }

    def start(self) -> RunRecord:
        """Close out runs whose process died; take this run's lock; write its ``running`` row.

        The lock is taken before the row is written, so another run starting meanwhile never
        takes this one for abandoned (``affidavit.warehouse.runs``). The private-address
        setting of the fetcher (``AFFIDAVIT_ALLOW_PRIVATE``) is recorded in
        ``parameters["allow_private"]`` unless the flow set it.

        Raises:
            ValueError: When ``AFFIDAVIT_ALLOW_PRIVATE`` cannot be parsed.
            KeyboardInterrupt: When Ctrl-C came after the command's previous run was
                completed (``affidavit.flows.supervise.note_run_started``).
        """
        from affidavit.flows.supervise import note_run_started
        from affidavit.tasks.fetch import allow_list_from_env
        from affidavit.warehouse.runs import RunLock, close_out_abandoned_runs

        note_run_started()  # raises KeyboardInterrupt after a Ctrl-C that came between runs
        if "allow_private" not in self.parameters:
            self.parameters["allow_private"] = allow_list_from_env().describe()
        closed = close_out_abandoned_runs(self.wh, now=utcnow())
        if closed:
            self.counts["runs_abandoned_closed"] += len(closed)
            self.messages.append(f"{len(closed)} earlier run(s) left running by a process that "
                                 f"died marked abandoned: {', '.join(closed[:5])}")
        self._lock = RunLock(self.wh, self.run_id).acquire()
        self.wh.write("runs", _table([self._row(None, None)]), part=f"run-{self.run_id}")
        return self

    def finish(self, status: RunStatus, message: str | None = None) -> None:
        """Rewrite the run's row with its final status, counts and message; drop its lock.

        A run that ended by itself (not ``abandoned``, no Ctrl-C before) is done: a Ctrl-C
        from then on does not stop the command
        (``affidavit.flows.supervise.note_run_completed``).
        """
        from affidavit.flows.supervise import note_run_completed

        with self._ending:
            self.status = status
            self.wh.write(
                "runs", _table([self._row(utcnow(), message)]), part=f"run-{self.run_id}"
            )
            lock = getattr(self, "_lock", None)
            if lock is not None:
                lock.release()
        if status not in (RunStatus.RUNNING, RunStatus.ABANDONED) and not INTERRUPTED.is_set():
            note_run_completed()

    def record_stop(self, signum: int) -> None:
        """Record the run ``abandoned``, stopped by signal ``signum``, unless it has ended.

        Called by the stop watcher (:func:`writing_run`) from its own thread, the moment the
        supervisor passes a SIGTERM on: the record does not wait for the command's main thread
        to unwind, which under load can outlast the supervisor's grace before SIGKILL.
        """
        with self._ending:
            if self.status is RunStatus.RUNNING:
                self.finish(RunStatus.ABANDONED, _signal_message(signum))


def stop_message(exc: BaseException) -> str:
    """Say what stopped a run: Ctrl-C, or the signal that terminated it.

    Ctrl-C wins when it came first (:data:`INTERRUPTED`): the SIGTERM the supervisor sends
    after its grace is part of that stop. A SIGTERM alone is ``terminated (SIGTERM)``: told by
    Prefect's ``TerminationSignal`` (``exc`` or an exception it replaced), else by the
    supervisor's record of the signal it passed on (:func:`~affidavit.flows.supervise.stop_signal`).

    >>> stop_message(KeyboardInterrupt())
    'interrupted (Ctrl-C)'
    """
    from affidavit.flows.supervise import stop_signal

    term = _termination_in(exc)
    signum = getattr(term, "signal", None) if term is not None else stop_signal()
    if isinstance(exc, KeyboardInterrupt) or not isinstance(signum, int):
        return "interrupted (Ctrl-C)"
    return _signal_message(signum)


def _signal_message(signum: int) -> str:
    """``terminated (NAME)`` for a stop by signal ``signum``; Ctrl-C when it came first.

    >>> _signal_message(15)
    'terminated (SIGTERM)'
    """
    import signal

    if INTERRUPTED.is_set():
        return "interrupted (Ctrl-C)"
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    return f"terminated ({name})"


def _termination_in(exc: BaseException) -> BaseException | None:
    """Return Prefect's ``TerminationSignal`` among ``exc`` and the exceptions it replaced.

    Walks ``__cause__`` and ``__context__`` (an error raised while the stop was unwinding, such
    as Prefect's own on a task it crashed, keeps the stop as its context); None when absent.
    """
    from prefect.exceptions import TerminationSignal

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, TerminationSignal):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


@contextmanager
def writing_run(home: str | None, flow: str, parameters: dict[str, Any]
                ) -> Iterator[tuple[Warehouse, RunRecord]]:
    """Hold the home's writer lock, open its warehouse and start a run record for the block.

    One writer per home, enforced here so that runs started by a Prefect worker from
    deployments wait for each other like commands do. A run that raises is recorded as failed
    (unless it recorded its own end); one stopped by Ctrl-C (``KeyboardInterrupt``, or any
    error after :data:`INTERRUPTED` was set, such as Prefect's ``TerminationSignal`` on the
    SIGTERM that follows it) or by a SIGTERM of its own (``TerminationSignal``, or any error
    on the way out after it: :func:`finish_after_error`) is recorded abandoned at once, as the
    next run would record it, saying which (:func:`stop_message`). A home without
    ``warehouse.duckdb`` gets it when the run starts (:func:`sync_views`), so that the file is
    there however the run ends.
    """
    paths = resolve_home(home)
    with home_lock(paths.root, on_wait=lambda root: log.warning(
            "waiting: another affidavit run is writing %s", root)):
        wh = open_warehouse(paths.spec)
        run = RunRecord(wh, flow, parameters).start()
        if not wh.paths.duckdb.exists():
            # its views read the Parquet datasets as they are when queried: made now, the
            # file shows the rows of a run stopped before its end (Ctrl-C, killed)
            sync_views(wh, run)
        try:
            with watching_for_stop(run.record_stop):
                yield wh, run
        except BaseException as exc:
            finish_after_error(run, exc)
            raise


def finish_after_error(run: RunRecord, exc: BaseException, *, failed_anyway: bool = False
                       ) -> None:
    """Record the end of a run that raised ``exc``: ``abandoned`` when stopped, else ``failed``.

    Stopped: by Ctrl-C (``KeyboardInterrupt``, or any error after :data:`INTERRUPTED` was set,
    such as Prefect's own errors in the task it stopped) or by a SIGTERM (``timeout``, systemd,
    ``docker stop``: Prefect's ``TerminationSignal``, or any error that replaced it or came
    after the supervisor passed one on, ``affidavit.flows.supervise.stop_signal``), recorded
    with :func:`stop_message`. A repeat of the SIGTERM (sent to the process group, it comes
    twice) does not cut the recording short. A run that recorded its own end is left as it
    is, unless ``failed_anyway`` (an error after it is then recorded ``failed``, a stop still
    not).
    """
    from prefect.exceptions import TerminationSignal

    from affidavit.flows.supervise import holding_stop_signals, stop_signal

    stopped = (INTERRUPTED.is_set() or isinstance(exc, KeyboardInterrupt)
               or stop_signal() is not None or _termination_in(exc) is not None)
    if not stopped:
        if run.status is RunStatus.RUNNING or failed_anyway:
            run.finish(RunStatus.FAILED, f"{type(exc).__name__}: {exc}")
        return
    was_running = run.status is RunStatus.RUNNING  # (finish sets the status before it writes)
    for _ in range(_STOP_REPEATS):
        try:
            with holding_stop_signals():  # from here on a repeat is ignored
                # Prefect's services fail to reach the local server the interrupt also
                # stopped, and log each failure at length: not the user's concern (this
                # process is ending; its own messages go to the console, not to logging)
                quiet_logs()
                if was_running:
                    run.finish(RunStatus.ABANDONED, stop_message(exc))
            return
        except TerminationSignal:  # the repeat came before the hold: record again (atomic)
            continue


_STOP_REPEATS = 3
"""Attempts at recording a stopped run: a SIGTERM sent to the process group comes twice (from
the sender and passed on by the supervisor), and the second may land before it is ignored."""


def summary_markdown(run: RunRecord, verdicts: Sequence[Mapping[str, Any]], *, message: str,
                     report_path: str | None) -> str:
    """Return the run's summary as Markdown: status, counts by verdict status, degraded, report."""
    by_status = dict.fromkeys(STATUSES, 0)
    for v in verdicts:
        by_status[str(v["status"])] = by_status.get(str(v["status"]), 0) + 1
    lines = [f"# affidavit {run.flow} run `{run.run_id}`", "",
             f"**{run.status.value}**: {message}", ""]
    if verdicts:
        lines += ["| status | claims |", "| --- | ---: |"]
        lines += [f"| {k} | {n} |" for k, n in by_status.items()]
        lines.append("")
    counts = {k: v for k, v in sorted(run.counts.items()) if not k.startswith("status:")}
    if counts:
        lines.append("counts: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
        lines.append("")
    lines.append("degraded: " + ("; ".join(run.degraded) if run.degraded else "nothing"))
    lines.append("")
    lines.append(f"report: {report_path or 'none'}")
    return "\n".join(lines) + "\n"


def publish_summary(run: RunRecord, verdicts: Sequence[Mapping[str, Any]], *, message: str,
                    report_path: str | None) -> str:
    """Publish the run's summary as a Prefect Markdown artifact and in the flow run's logs.

    Outside a flow run (a flow body called as a function) it is only returned.

    Returns:
        The summary (Markdown).
    """
    text = summary_markdown(run, verdicts, message=message, report_path=report_path)
    from prefect.context import FlowRunContext

    if FlowRunContext.get() is None:
        return text
    from prefect import get_run_logger
    from prefect.artifacts import create_markdown_artifact

    create_markdown_artifact(markdown=text, key=f"affidavit-{run.flow.replace('_', '-')}",
                             description=f"{run.flow} {run.run_id}: {message}"[:500])
    get_run_logger().info("summary of run %s\n%s", run.run_id, text)
    try:  # send it now: a flow-run process on a loaded worker may end before the next batch
        from prefect.logging.handlers import APILogHandler

        APILogHandler().flush()
    except Exception:  # noqa: BLE001 - the summary is also in the runs table and the artifact
        log.debug("could not flush the summary log", exc_info=True)
    return text


def sync_views(wh: Warehouse, run: RunRecord) -> None:
    """Refresh ``warehouse.duckdb``'s views; a lock held by a reader is a note, not a failure.

    The run's rows are already in Parquet; the views read them the next time they are synced.
    """
    from affidavit.warehouse.store import WarehouseError

    try:
        wh.sync_duckdb()
    except WarehouseError as exc:
        run.messages.append(f"views not refreshed (the DuckDB file is open elsewhere?): {exc}")
        run.counts["views_not_refreshed"] += 1


def _without_credentials(value: Any) -> Any:
    """Return ``value`` with ``user:password@`` dropped from every URL string in it (nested)."""
    from affidavit.tasks.fetch import strip_credentials

    if isinstance(value, str):
        return strip_credentials(value) if "://" in value and "@" in value else value
    if isinstance(value, dict):
        return {k: _without_credentials(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_without_credentials(v) for v in value]
    return value


def _table(rows: list[dict[str, Any]]):  # noqa: ANN202
    import pyarrow as pa

    from affidavit.schemas.runs import RUNS_SCHEMA

    return pa.Table.from_pylist(rows, schema=RUNS_SCHEMA)
