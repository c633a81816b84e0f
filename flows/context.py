"""What every flow of affidavit starts with: the home, the warehouse, a run record, a preflight."""

from __future__ import annotations

import json
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from affidavit.schemas.enums import RunStatus
from affidavit.warehouse.home import HomePaths, apply_prefect_environment, resolve_home
from affidavit.warehouse.store import Warehouse


def utcnow() -> datetime:
    """Return the current time in UTC with microsecond precision (the only clock of a flow)."""
    return datetime.now(UTC)


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
        """Write the run's row with status ``running``.

        The private-address setting of the fetcher (``AFFIDAVIT_ALLOW_PRIVATE``) is recorded in
        ``parameters["allow_private"]`` unless the flow set it.

        Raises:
            ValueError: When ``AFFIDAVIT_ALLOW_PRIVATE`` cannot be parsed.
        """
        from affidavit.tasks.fetch import allow_list_from_env

        if "allow_private" not in self.parameters:
            self.parameters["allow_private"] = allow_list_from_env().describe()
        self.wh.write("runs", _table([self._row(None, None)]), part=f"run-{self.run_id}")
        return self

    def finish(self, status: RunStatus, message: str | None = None) -> None:
        """Rewrite the run's row with its final status, counts and message."""
        self.status = status
        self.wh.write(
            "runs", _table([self._row(utcnow(), message)]), part=f"run-{self.run_id}"
        )


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
