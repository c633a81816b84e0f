"""The ``verdicts`` table: one row per (run, claim)."""

from __future__ import annotations

import pyarrow as pa

from affidavit.schemas._meta import UTC_TS, table_schema

VERDICTS_SCHEMA = table_schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("claim_id", pa.string(), nullable=False),
        pa.field("claim_text", pa.string(), nullable=False),
        pa.field("status", pa.string(), nullable=False),  # schemas.enums.VerdictStatus
        pa.field("confidence", pa.float64(), nullable=False),  # 0..1
        pa.field("supporting_origins", pa.int32(), nullable=False),
        pa.field("refuting_origins", pa.int32(), nullable=False),
        pa.field("supporting_publishers", pa.int32(), nullable=False),
        pa.field("refuting_publishers", pa.int32(), nullable=False),
        pa.field("sources_total", pa.int32(), nullable=False),  # documents judged
        pa.field("n_admitted", pa.int32(), nullable=False),  # admitted judgments (any stance)
        pa.field("n_rejected", pa.int32(), nullable=False),  # judgments whose quote failed a gate
        pa.field("best_quote", pa.string()),
        pa.field("best_doc_id", pa.string()),
        pa.field("best_url", pa.string()),
        pa.field("queries_tried", pa.list_(pa.string())),
        pa.field("judge", pa.string(), nullable=False),
        pa.field("mode", pa.string(), nullable=False),  # schemas.enums.Mode
        pa.field("decided_at", UTC_TS, nullable=False),
        pa.field("expires_at", UTC_TS),
        pa.field("degraded", pa.string()),  # what was missing in that run; NULL when nothing
        pa.field("explanation", pa.string()),
        # one line: the status, why, and the quote of each deciding origin (added in version 2;
        # NULL in parts written before)
        pa.field("decided_by", pa.string()),
    ],
    name="verdicts",
    grain="one row per (run, claim)",
    key=("run_id", "claim_id"),
    version=2,
)
