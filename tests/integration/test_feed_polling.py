"""Feed polling against a real HTTP server on 127.0.0.1: conditional GET, backoff, OPML, fetches.

The polling stage runs through its task body (``.fn``); one test runs the ``factcheck`` flow
twice end to end (a scheduled run twice in a row downloads each unchanged feed once).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from affidavit.flows.context import RunRecord, open_warehouse
from affidavit.flows.stages import materialize_web_hits, poll_task
from affidavit.tasks.feed_poll import BACKOFF_BASE_S, FAILURES_BEFORE_BACKOFF
from affidavit.tasks.fetch import AllowList, FetchConfig, Fetcher
from affidavit.tasks.search import SearchHit
from tests.feed_server import FeedServer, opml, rss

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
FEEDS = {
    f"/feeds/{name}.xml": rss(name, [(f"http://example.org/{name}/{i}", f"{name} story {i}",
                                      f"The {name} council approved {i + 3} new parks on Monday.")
                                     for i in range(3)])
    for name in ("alpha", "beta", "gamma")
}


@pytest.fixture
def wh(tmp_path):  # noqa: ANN201
    return open_warehouse(str(tmp_path / "home"))


@pytest.fixture
def server():  # noqa: ANN201
    files = dict(FEEDS)
    files["/flaky.xml"] = rss("flaky", [("http://example.org/flaky/1", "flaky story",
                                         "The flaky feed finally answered.")])
    files["/not-a-feed.xml"] = b"<html><body></body></html>"
    with FeedServer(files, fail_first={"/flaky.xml": 3}) as srv:
        yield srv


def _fetcher(**cfg: object) -> Fetcher:
    allow = AllowList(networks=("127.0.0.0/8",))
    return Fetcher(FetchConfig(allow=allow, timeout_s=5.0, max_retries=0, **cfg))  # type: ignore[arg-type]


def _poll(wh, urls, *, now, fetcher=None):  # noqa: ANN001, ANN202
    run = RunRecord(wh, "test", {})
    with fetcher or _fetcher() as f:
        res = poll_task.fn(wh, urls, run=run, fetcher=f, now=now)
    return run, res


def test_second_poll_gets_304s_parses_nothing_adds_nothing(wh, server) -> None:
    urls = [server.url + p for p in FEEDS]
    run1, res1 = _poll(wh, urls, now=T0)
    assert sorted(res1.read) == sorted(urls)
    assert len(res1.added) == 9
    n_docs = wh.count("documents")
    run2, res2 = _poll(wh, urls, now=T0 + timedelta(hours=1))
    assert sorted(res2.not_modified) == sorted(urls)
    assert res2.added == []
    assert res2.read == []
    assert run2.counts["documents_read"] == 0  # nothing parsed
    assert run2.counts["fetch:not_modified"] == 3
    assert run2.counts["feeds_not_modified"] == 3
    assert wh.count("documents") == n_docs
    assert all(server.downloads[p] == 1 for p in FEEDS)
    assert all(server.not_modified[p] == 1 for p in FEEDS)
    feeds = wh.query("select * from feed_status order by feed_url").to_dicts()
    assert [f["state"] for f in feeds] == ["ok"] * 3
    assert all(f["etag"] and f["last_modified"] for f in feeds)
    assert all(f["n_not_modified"] == 1 and f["n_polls"] == 2 and f["n_entries_seen"] == 3
               for f in feeds)
    fetches = wh.query("select reason, is_conditional, body_bytes, status from fetches "
                       "order by fetched_at, fetch_id").to_dicts()
    assert [f["reason"] for f in fetches] == ["ok"] * 3 + ["not_modified"] * 3
    assert [f["is_conditional"] for f in fetches] == [False] * 3 + [True] * 3
    assert all(f["body_bytes"] > 0 for f in fetches[:3])
    assert all(f["body_bytes"] == 0 and f["status"] == 304 for f in fetches[3:])


def test_failing_feed_backs_off_and_is_reported_not_dropped(wh, server) -> None:
    url = server.url + "/flaky.xml"
    now = T0
    for i in range(1, FAILURES_BEFORE_BACKOFF + 1):
        run, res = _poll(wh, [url], now=now)
        assert res.failed == [url]
        state = wh.query("select * from feed_status").to_dicts()[0]
        assert state["consecutive_failures"] == i
        assert state["last_status"] == 500
        now += timedelta(minutes=5)
    assert state["state"] == "backed_off"
    assert state["next_poll_at"] == now - timedelta(minutes=5) + timedelta(seconds=BACKOFF_BASE_S)
    # still backed off: not fetched, but reported and recorded
    run, res = _poll(wh, [url], now=now)
    assert res.backed_off == [url]
    assert server.hits["/flaky.xml"] == FAILURES_BEFORE_BACKOFF
    assert run.counts["fetch:backed_off"] == 1
    assert run.counts["feeds_backed_off"] == 1
    assert any("backed off after 3 failures" in m for m in run.messages)
    # due again: fetched, the server has recovered, the count resets
    run, res = _poll(wh, [url], now=now + timedelta(hours=2))
    assert res.read == [url]
    assert len(res.added) == 1
    state = wh.query("select * from feed_status").to_dicts()[0]
    assert state["state"] == "ok"
    assert state["consecutive_failures"] == 0
    reasons = wh.query("select reason from fetches order by fetched_at, fetch_id")["reason"]
    assert reasons.to_list() == ["http_status"] * 3 + ["backed_off", "ok"]


def test_unparseable_body_counts_as_a_failure(wh, server) -> None:
    url = server.url + "/not-a-feed.xml"
    run, res = _poll(wh, [url], now=T0)
    state = wh.query("select * from feeds").to_dicts()[0]
    assert res.failed == [url]
    assert state["consecutive_failures"] == 1
    assert state["last_reason"] == "unparseable"
    assert state["last_status"] == 200
    assert run.counts["sources_refused"] == 1  # not a feed: an input that could not be read


_PAGE = (b'<!doctype html><html><head><title>Corvallo news</title>'
         b'<link rel="alternate" type="application/rss+xml" href="/feeds/alpha.xml"></head>'
         b"<body><article><p>The Lumen Bridge in Corvallo opened on 14 May 2024 after four "
         b"years of construction work by the regional authority.</p></article></body></html>")


def test_a_feed_url_answering_an_html_page_is_a_failed_feed_naming_the_feed_it_links(wh) -> None:
    # the page was stored as a web document and its sentences checked as a feed's entries,
    # while a local HTML file given to --feed was refused: a feed option reads feeds only
    with FeedServer({"/news.html": _PAGE, "/feeds/alpha.xml": FEEDS["/feeds/alpha.xml"]}) as srv:
        url = srv.url + "/news.html"
        run, res = _poll(wh, [url], now=T0)
    assert res.failed == [url]
    assert res.added == []
    assert wh.count("documents") == 0
    assert run.counts["skip:not_a_feed"] == 1
    assert run.counts["sources_refused"] == 1
    said = (f"{url}: is an HTML page, not an RSS/Atom/JSON Feed document; the page names its "
            f"feed: {srv.url}/feeds/alpha.xml: refused")
    assert said in run.messages
    state = wh.query("select * from feeds").to_dicts()[0]
    assert state["consecutive_failures"] == 1


def test_guard_refusal_is_a_fetch_row_with_its_reason(wh, server) -> None:
    url = server.url + "/feeds/alpha.xml"
    run, res = _poll(wh, [url], now=T0, fetcher=Fetcher(FetchConfig(timeout_s=5.0)))
    row = wh.query("select * from fetches").to_dicts()[0]
    assert row["reason"] == "blocked"
    assert "AFFIDAVIT_ALLOW_PRIVATE" in row["error"]
    assert server.hits[url.split(server.url)[1]] == 0
    # an input that could not be read: the run exits non-zero (the CLI's _exit_for_refusals
    # reads this count), as for a local feed file that cannot be read
    assert run.counts["sources_refused"] == 1
    assert res.failed == [url]


def test_web_hits_leave_fetch_rows_and_snippets_keep_date_and_title(wh, server) -> None:
    server.files["/article"] = (
        b"<html><head><title>Parks</title></head><body><article><h1>Parks</h1>"
        + b"<p>The alpha council approved six new parks on Monday, officials said. </p>" * 8
        + b"</article></body></html>")
    hits = [
        SearchHit("searxng", "q", 1, None, None, server.url + "/article", "Parks", "six parks"),
        SearchHit("searxng", "q", 2, None, None, server.url + "/missing", "Gone page",
                  "The alpha council approved six parks.", "2025-06-02T10:00:00Z"),
    ]
    run = RunRecord(wh, "test", {})
    with _fetcher() as f:
        out = materialize_web_hits(wh, hits, run=run, fetcher=f)
    assert len(out) == 2
    docs = {d["url"]: d for d in wh.read("documents").to_dicts()}
    snip = docs[server.url + "/missing"]
    assert snip["is_snippet_only"]
    assert snip["title"] == "Gone page"
    assert snip["published_at"] == datetime(2025, 6, 2, 10, 0, tzinfo=UTC)
    rows = {r["url"]: r for r in wh.read("fetches").to_dicts()}
    assert rows[server.url + "/article"]["reason"] == "ok"
    assert rows[server.url + "/article"]["doc_ids_added"] == 1
    assert rows[server.url + "/missing"]["reason"] == "http_status"
    assert rows[server.url + "/missing"]["status"] == 404
    assert all(r["kind"] == "page" and r["elapsed_ms"] >= 0 for r in rows.values())
    assert run.counts["fetch:ok"] == 1
    assert run.counts["fetch:http_status"] == 1


def test_scheduled_run_twice_downloads_each_unchanged_feed_once(
    prefect_harness, tmp_path: Path, monkeypatch
) -> None:
    from affidavit.flows.factcheck import factcheck

    monkeypatch.setenv("AFFIDAVIT_ALLOW_PRIVATE", "127.0.0.1")
    with FeedServer(dict(FEEDS)) as srv:
        subs = tmp_path / "subs.opml"
        subs.write_bytes(opml([(p, srv.url + p) for p in FEEDS], folder="news"))
        home = str(tmp_path / "home")
        # the same feed again, with credentials: stripped, so polled once and never sent
        secret = srv.url.replace("http://", "http://bob:s3cret@") + "/feeds/alpha.xml"
        first = factcheck(feeds=[str(subs), secret], home=home, mode="quick")
        second = factcheck(feeds=[str(subs), secret], home=home, mode="quick")
        assert srv.auth_headers == []
        assert all(srv.downloads[p] == 1 for p in FEEDS)
        assert all(srv.not_modified[p] == 1 for p in FEEDS)
    assert first.counts["documents_added"] == 9
    assert first.counts["opml_feeds"] == 3
    assert second.counts["fetch:not_modified"] == 3
    assert second.counts.get("documents_read", 0) == 0
    assert second.counts.get("documents_added", 0) == 0
    assert second.verdicts == []
    assert "3 not modified" in second.message
    wh = open_warehouse(home)
    runs = wh.read("runs").to_dicts()
    assert all('"allow_private": "127.0.0.1/32"' in r["parameters"] for r in runs)
    assert all("s3cret" not in r["parameters"] for r in runs)
    assert wh.query("select count(*) as n from fetch_outcomes where reason = 'not_modified'"
                    )["n"][0] == 1


def test_remote_opml_list_is_fetched_through_the_guard_and_recorded(wh, server) -> None:
    from affidavit.flows.factcheck import expand_feed_sources
    from affidavit.tasks.opml import OpmlError

    server.files["/subs.opml"] = opml([(p, server.url + p) for p in FEEDS])
    run = RunRecord(wh, "test", {})
    with _fetcher() as f:
        files, urls, titles = expand_feed_sources(
            [server.url + "/subs.opml", "local.xml"], run=run, wh=wh, fetcher=f)
        assert files == ["local.xml"]
        assert urls == [server.url + p for p in FEEDS]
        assert titles[urls[0]] == "/feeds/alpha.xml"
        with pytest.raises(OpmlError, match="could not be fetched"):
            expand_feed_sources([server.url + "/missing.opml"], run=run, wh=wh, fetcher=f)
    reasons = wh.read("fetches").sort("fetch_id")["reason"].to_list()
    assert reasons == ["ok", "http_status"]
