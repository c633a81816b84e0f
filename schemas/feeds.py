"""The ``feeds`` table: one row per polled feed URL (conditional GET state and backoff)."""

from __future__ import annotations

import pyarrow as pa

from affidavit.schemas._meta import UTC_TS, table_schema

FEEDS_SCHEMA = table_schema(
    [
        pa.field("feed_url", pa.string(), nullable=False),  # credentials stripped
        pa.field("title", pa.string()),  # from the OPML outline, when listed there
        pa.field("etag", pa.string()),  # last ETag, sent back as If-None-Match
        pa.field("last_modified", pa.string()),  # last Last-Modified, sent as If-Modified-Since
        pa.field("first_polled_at", UTC_TS),
        pa.field("last_polled_at", UTC_TS),  # last attempt (NULL: never fetched)
        pa.field("last_success_at", UTC_TS),  # last 2xx or 304
        pa.field("last_status", pa.int16()),  # HTTP status of the last attempt
        pa.field("last_reason", pa.string()),  # schemas.fetches.FetchReason, or "unparseable"
        pa.field("last_error", pa.string()),
        pa.field("consecutive_failures", pa.int32(), nullable=False),
        pa.field("next_poll_at", UTC_TS),  # not fetched before this time (backoff)
        pa.field("n_polls", pa.int64(), nullable=False),  # fetch attempts
        pa.field("n_not_modified", pa.int64(), nullable=False),  # 304 answers
        pa.field("n_entries_seen", pa.int64(), nullable=False),  # entries in the last full body
        pa.field("n_documents_added", pa.int64(), nullable=False),  # over all polls
    ],
    name="feeds",
    grain="one row per feed URL",
    key=("feed_url",),
    version=1,
)
