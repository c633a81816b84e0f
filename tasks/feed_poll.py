"""Polite feed polling: conditional GET state, backoff of failing feeds, fetch outcome rows.

Pure functions on per-feed state (one ``feeds`` row, :data:`affidavit.schemas.feeds.FEEDS_SCHEMA`)
and on :class:`affidavit.tasks.fetch.FetchResult`; the clock is an argument (``now``). The flow
side (:mod:`affidavit.flows.stages`) reads the state, fetches, parses and writes it back.

Backoff (documented constants below): a feed that fails (no response, an HTTP error status, or a
body that is not a feed) is polled again at the next run for its first
:data:`FAILURES_BEFORE_BACKOFF` - 1 consecutive failures (most failures are transient); after its
n-th consecutive failure, n >= :data:`FAILURES_BEFORE_BACKOFF`, it waits
``BACKOFF_BASE_S * 2 ** (n - FAILURES_BEFORE_BACKOFF)`` seconds, at most :data:`BACKOFF_CAP_S`
(1 h, 2 h, 4 h ... 24 h). A ``Retry-After`` on a 429/503 is honoured from the first
failure (same cap). A backed-off feed is not dropped: it is reported in the run summary (counted
``backed_off``), keeps its row in ``feeds`` with ``next_poll_at``, and is polled again when due.
One success (2xx or 304) resets the count.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from affidavit.schemas.fetches import FetchKind, FetchReason
from affidavit.tasks.fetch import FetchResult, parse_retry_after

__all__ = [
    "BACKOFF_BASE_S",
    "BACKOFF_CAP_S",
    "FAILURES_BEFORE_BACKOFF",
    "FeedState",
    "backoff_delay_s",
    "fetch_row",
    "is_due",
    "record_poll",
]

FAILURES_BEFORE_BACKOFF = 3
"""Consecutive failures after which a feed is backed off (the first two are retried at the next
run: a feed reader should not punish one bad hour)."""

BACKOFF_BASE_S = 3600.0
"""First backoff delay, seconds (one hour: the period of the shipped hourly deployment, so the
first backoff skips one scheduled run)."""

BACKOFF_CAP_S = 24 * 3600.0
"""Longest backoff, seconds: a dead feed is still tried once a day (the daily floor common
feed readers keep for erroring feeds)."""

UNPARSEABLE = "unparseable"
"""``feeds.last_reason`` of a 2xx answer whose body is not a feed (counted as a failure)."""


@dataclass(frozen=True, slots=True)
class FeedState:
    """One feed's polling state: a row of ``feeds`` (see its schema for the columns)."""

    feed_url: str
    title: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    first_polled_at: datetime | None = None
    last_polled_at: datetime | None = None
    last_success_at: datetime | None = None
    last_status: int | None = None
    last_reason: str | None = None
    last_error: str | None = None
    consecutive_failures: int = 0
    next_poll_at: datetime | None = None
    n_polls: int = 0
    n_not_modified: int = 0
    n_entries_seen: int = 0
    n_documents_added: int = 0

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> FeedState:
        """Build a state from a ``feeds`` row (a dict; unknown keys ignored)."""
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in row.items() if k in names and v is not None})

    def to_row(self) -> dict[str, Any]:
        """Return the ``feeds`` row."""
        return asdict(self)

    @property
    def is_backed_off(self) -> bool:
        """Whether the feed has failed often enough to be waiting beyond the next run."""
        return self.consecutive_failures >= FAILURES_BEFORE_BACKOFF


def backoff_delay_s(consecutive_failures: int) -> float:
    """Seconds a feed waits after ``consecutive_failures`` failures in a row (0: next run).

    >>> [backoff_delay_s(n) for n in (1, 2, 3, 4, 5)]
    [0.0, 0.0, 3600.0, 7200.0, 14400.0]
    >>> backoff_delay_s(40) == BACKOFF_CAP_S
    True
    """
    if consecutive_failures < FAILURES_BEFORE_BACKOFF:
        return 0.0
    exponent = min(consecutive_failures - FAILURES_BEFORE_BACKOFF, 32)
    return min(BACKOFF_BASE_S * 2.0**exponent, BACKOFF_CAP_S)


def is_due(state: FeedState | None, now: datetime) -> bool:
    """Whether a feed may be fetched at ``now`` (never polled, or its ``next_poll_at`` passed)."""
    return state is None or state.next_poll_at is None or state.next_poll_at <= now


def record_poll(
    state: FeedState | None,
    result: FetchResult,
    *,
    url: str,
    now: datetime,
    n_entries: int = 0,
    n_added: int = 0,
    parse_failed: bool = False,
    parse_error: str | None = None,
    title: str | None = None,
) -> FeedState:
    """Return a feed's state after one fetch attempt.

    Args:
        state: The state before (None for a feed never polled).
        result: The fetch's outcome.
        url: The feed URL (credentials stripped).
        now: When the fetch started (UTC).
        n_entries: Entries in the body (a full 2xx download that was parsed).
        n_added: Documents added from it.
        parse_failed: A 2xx body that is not a feed (counted as a failure).
        parse_error: Why, for ``last_error``.
        title: A title for the feed (from an OPML outline), kept when given.

    Returns:
        The new :class:`FeedState`: validators (ETag, Last-Modified) replaced from a 2xx or 304
        answer that sends them, counters advanced, ``next_poll_at`` set by the backoff rule.
    """
    st = state or FeedState(feed_url=url)
    ok = result.ok and not parse_failed
    success = ok or result.not_modified
    etag, last_mod = st.etag, st.last_modified
    if result.ok or result.not_modified:
        etag = result.headers.get("etag") or (etag if result.not_modified else None)
        last_mod = result.headers.get("last-modified") or (
            last_mod if result.not_modified else None)
    failures = 0 if success else st.consecutive_failures + 1
    delay = backoff_delay_s(failures)
    if not success and result.status in (429, 503):
        wanted = parse_retry_after(result.headers.get("retry-after"), now=now.timestamp())
        if wanted is not None:
            delay = max(delay, min(wanted, BACKOFF_CAP_S))
    reason = UNPARSEABLE if (result.ok and parse_failed) else result.outcome.value
    error = parse_error if (result.ok and parse_failed) else (
        result.error or (None if success else f"HTTP {result.status}"))
    return replace(
        st,
        title=title or st.title,
        etag=etag,
        last_modified=last_mod,
        first_polled_at=st.first_polled_at or now,
        last_polled_at=now,
        last_success_at=now if success else st.last_success_at,
        last_status=result.status,
        last_reason=reason,
        last_error=error,
        consecutive_failures=failures,
        next_poll_at=now + timedelta(seconds=delay),
        n_polls=st.n_polls + 1,
        n_not_modified=st.n_not_modified + (1 if result.not_modified else 0),
        n_entries_seen=n_entries if ok else st.n_entries_seen,
        n_documents_added=st.n_documents_added + n_added,
    )


def fetch_row(
    result: FetchResult | None,
    *,
    run_id: str,
    seq: int,
    kind: FetchKind,
    fetched_at: datetime,
    url: str | None = None,
    reason: FetchReason | None = None,
    error: str | None = None,
    doc_ids_added: int | None = None,
) -> dict[str, Any]:
    """Return one ``fetches`` row for a fetch attempt (or a fetch not attempted, ``result=None``).

    Args:
        result: The fetch's outcome; None when it was not attempted (``reason`` says why).
        run_id: The run.
        seq: The attempt's number within the run (makes ``fetch_id`` unique).
        kind: What was fetched.
        fetched_at: When the attempt started (UTC).
        url: The URL, when ``result`` is None.
        reason: The outcome code, when ``result`` is None.
        error: Detail, when ``result`` is None.
        doc_ids_added: Documents added from this fetch, when known.

    Returns:
        A dict with the columns of :data:`affidavit.schemas.fetches.FETCHES_SCHEMA`.
    """
    if result is None:
        if url is None or reason is None:
            raise ValueError("a fetch that was not attempted needs its url and reason")
        return {"fetch_id": f"{run_id}:{seq:06d}", "run_id": run_id, "kind": kind.value,
                "url": url, "final_url": None, "status": None, "reason": reason.value,
                "error": error, "body_bytes": 0, "elapsed_ms": 0, "fetched_at": fetched_at,
                "is_conditional": False, "doc_ids_added": doc_ids_added}
    return {
        "fetch_id": f"{run_id}:{seq:06d}",
        "run_id": run_id,
        "kind": kind.value,
        "url": result.url,
        "final_url": result.final_url,
        "status": result.status,
        "reason": result.outcome.value,
        "error": result.error or (None if (result.ok or result.not_modified)
                                  else f"HTTP {result.status}"),
        "body_bytes": len(result.content),
        "elapsed_ms": result.elapsed_ms,
        "fetched_at": fetched_at,
        "is_conditional": result.is_conditional,
        "doc_ids_added": doc_ids_added,
    }
