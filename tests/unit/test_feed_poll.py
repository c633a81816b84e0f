"""Per-feed polling state: validators kept, failures counted, backoff capped, Retry-After."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from affidavit.schemas.fetches import FetchKind
from affidavit.tasks.feed_poll import (
    BACKOFF_CAP_S,
    FeedState,
    backoff_delay_s,
    fetch_row,
    is_due,
    record_poll,
)
from affidavit.tasks.fetch import FetchResult

NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
URL = "http://feeds.test/rss"


def _res(status: int | None, headers: dict[str, str] | None = None,
         error: str | None = None) -> FetchResult:
    return FetchResult(URL, URL, status, b"<rss/>" if status == 200 else b"", headers or {},
                       error)


def test_validators_are_kept_across_a_304_and_replaced_by_a_200() -> None:
    st = record_poll(None, _res(200, {"etag": '"v1"', "last-modified": "Mon"}), url=URL,
                     now=NOW, n_entries=4, n_added=4)
    assert (st.etag, st.last_modified, st.n_entries_seen, st.n_documents_added) == (
        '"v1"', "Mon", 4, 4)
    st = record_poll(st, _res(304), url=URL, now=NOW + timedelta(hours=1))
    assert st.etag == '"v1"'
    assert st.n_not_modified == 1
    assert st.n_entries_seen == 4
    st = record_poll(st, _res(200, {"etag": '"v2"'}), url=URL, now=NOW, n_entries=2)
    assert st.etag == '"v2"'
    assert st.last_modified is None
    assert st.n_polls == 3


def test_backoff_grows_to_its_cap_and_a_success_resets_it() -> None:
    delays = [backoff_delay_s(n) for n in range(1, 12)]
    assert delays[:2] == [0.0, 0.0]
    assert delays[2] > 0
    assert all(b >= a for a, b in zip(delays, delays[1:], strict=False))
    assert delays[-1] == BACKOFF_CAP_S
    st: FeedState | None = None
    for i in range(3):
        st = record_poll(st, _res(None, error="transport: refused"), url=URL,
                         now=NOW + timedelta(minutes=i))
    assert st is not None
    assert st.is_backed_off
    assert st.last_reason == "http_status"
    assert not is_due(st, NOW + timedelta(minutes=30))
    assert is_due(st, NOW + timedelta(hours=2))
    st = record_poll(st, _res(200), url=URL, now=NOW + timedelta(hours=2))
    assert st.consecutive_failures == 0
    assert is_due(st, NOW + timedelta(hours=2))


def test_retry_after_is_honoured_from_the_first_failure() -> None:
    st = record_poll(None, _res(503, {"retry-after": "7200"}), url=URL, now=NOW)
    assert st.consecutive_failures == 1
    assert st.next_poll_at == NOW + timedelta(hours=2)
    st = record_poll(None, _res(429, {"retry-after": "99999999"}), url=URL, now=NOW)
    assert st.next_poll_at == NOW + timedelta(seconds=BACKOFF_CAP_S)


def test_state_round_trips_through_a_row_and_fetch_rows_have_the_schema() -> None:
    st = record_poll(None, _res(200, {"etag": "x"}), url=URL, now=NOW, title="T")
    assert FeedState.from_row(st.to_row()) == st
    row = fetch_row(_res(404), run_id="r", seq=1, kind=FetchKind.FEED, fetched_at=NOW)
    assert row["reason"] == "http_status"
    assert row["error"] == "HTTP 404"
    from affidavit.schemas.fetches import FETCHES_SCHEMA

    assert set(row) == set(FETCHES_SCHEMA.names)
