"""The ``runs`` table: one row per flow run."""

from __future__ import annotations

import pyarrow as pa

from affidavit.schemas._meta import UTC_TS, table_schema

RUNS_SCHEMA = table_schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("flow", pa.string(), nullable=False),
        pa.field("started_at", UTC_TS, nullable=False),
        pa.field("finished_at", UTC_TS),
        pa.field("status", pa.string(), nullable=False),  # schemas.enums.RunStatus
        pa.field("parameters", pa.string()),  # JSON object
        pa.field("capabilities", pa.string()),  # JSON object from the preflight
        pa.field("counts", pa.string()),  # JSON object: rows written, skips by reason, statuses
        pa.field("degraded", pa.string()),  # what was missing; NULL when nothing
        pa.field("message", pa.string()),
    ],
    name="runs",
    grain="one row per flow run",
    key=("run_id",),
    version=1,
)
