"""The ``queries`` table: one row per issued query."""

from __future__ import annotations

import pyarrow as pa

from affidavit.schemas._meta import UTC_TS, table_schema

QUERIES_SCHEMA = table_schema(
    [
        pa.field("query_id", pa.string(), nullable=False),
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("claim_id", pa.string(), nullable=False),
        pa.field("round", pa.int16(), nullable=False),
        pa.field("angle", pa.string(), nullable=False),  # schemas.enums.Angle
        pa.field("side", pa.string(), nullable=False),  # schemas.enums.Side
        pa.field("text", pa.string(), nullable=False),
        pa.field("provider", pa.string(), nullable=False),
        pa.field("n_results", pa.int32(), nullable=False),
        pa.field("n_new_docs", pa.int32(), nullable=False),
        pa.field("novelty", pa.float64()),  # n_new_docs / n_results, 0..1
        pa.field("issued_at", UTC_TS, nullable=False),
    ],
    name="queries",
    grain="one row per issued query",
    key=("query_id",),
    version=1,
)
