"""The ``fetches`` table: one row per fetch attempt (feeds and pages found by search).

Fetch outcomes are a table of their own rather than columns on ``documents``:

* a fetch that yields no document (refused by the guard or robots.txt, timed out, a 304 Not
  Modified, an HTTP error, a feed whose entries are all stored already) must still leave a row;
* ``documents`` holds one row per distinct document *version*, so re-fetching unchanged content
  adds no document row, and one feed fetch yields many entries: neither grain is the grain of a
  fetch attempt;
* the same URL is fetched again by later runs; each attempt is kept with its run.
"""

from __future__ import annotations

from enum import StrEnum

import pyarrow as pa

from affidavit.schemas._meta import UTC_TS, table_schema


class FetchReason(StrEnum):
    """Outcome of one fetch attempt (``fetches.reason``).

    ``ok`` (2xx) and ``not_modified`` (304 to a conditional request) are successes; every other
    value says why no usable body came.
    """

    OK = "ok"
    NOT_MODIFIED = "not_modified"
    HTTP_STATUS = "http_status"  # a final 3xx/4xx/5xx status (after retries)
    BLOCKED = "blocked"  # address guard: scheme, missing host, non-public address
    DNS = "dns"  # the host name does not resolve (no address to check or connect to)
    ROBOTS = "robots"  # robots.txt disallows
    TIMEOUT = "timeout"  # connect/read timeout (after retries)
    DEADLINE = "deadline"  # the fetch's total deadline passed
    TOO_LARGE = "too_large"  # body over the byte cap
    TRANSPORT = "transport"  # connection refused/reset, TLS error (after retries)
    DECODING = "decoding"  # bad gzip/deflate/br body
    TOO_MANY_REDIRECTS = "too_many_redirects"
    BACKED_OFF = "backed_off"  # not attempted: a failing feed waits until its next_poll_at


class FetchKind(StrEnum):
    """What was fetched (``fetches.kind``)."""

    FEED = "feed"
    PAGE = "page"  # a page found by web search


FETCHES_SCHEMA = table_schema(
    [
        pa.field("fetch_id", pa.string(), nullable=False),  # run_id + ":" + sequence number
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),  # FetchKind
        pa.field("url", pa.string(), nullable=False),  # credentials stripped
        pa.field("final_url", pa.string()),  # after redirects
        pa.field("status", pa.int16()),  # HTTP status of the last response; NULL: none came
        pa.field("reason", pa.string(), nullable=False),  # FetchReason
        pa.field("error", pa.string()),  # detail when refused or failed
        pa.field("body_bytes", pa.int64(), nullable=False),  # decoded body bytes kept
        pa.field("elapsed_ms", pa.int64(), nullable=False),  # wall time, retries included
        pa.field("fetched_at", UTC_TS, nullable=False),  # when the attempt started
        pa.field("is_conditional", pa.bool_(), nullable=False),  # sent If-None-Match/-Since
        pa.field("doc_ids_added", pa.int32()),  # documents added from this fetch
    ],
    name="fetches",
    grain="one row per fetch attempt",
    key=("fetch_id",),
    version=1,
)
