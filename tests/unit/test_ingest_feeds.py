"""Tests of tasks.ingest_feeds: RSS/Atom/RDF with feedparser, JSON Feed with json."""

from __future__ import annotations

import gzip
import json
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affidavit.schemas.documents import DOCUMENTS_SCHEMA, content_sha256, make_doc_id
from affidavit.tasks.fetch import FetchConfig, Fetcher
from affidavit.tasks.ingest_feeds import feed_date, load_feed, parse_feed

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
REAL_FEEDS = SHARED / "feeds" / "rsparser-real-feeds"


def _utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_rss_entries_become_snippet_documents() -> None:
    batch = parse_feed((FIXTURES / "rss_small.xml").read_bytes(), source="rss_small.xml")
    docs = batch.documents
    assert docs.schema.equals(DOCUMENTS_SCHEMA)
    rows = docs.to_pylist()
    assert [r["title"] for r in rows] == ["Council approves & funds new bridge", "Second story",
                                        "Third story", "No body at all"]
    # the entry without content or summary keeps its title as its text (a headline is quotable)
    assert batch.skips["title_only_entry"] == 1
    assert rows[3]["text"] == "No body at all"
    first = rows[0]
    # content:encoded wins over the description; HTML stripped, script dropped.
    assert first["text"] == (
        "The council voted 7 to 2 on Monday to fund the bridge.\nWork starts in 2004."
    )
    assert first["url"].startswith("https://WWW.Example.com/news/bridge/?utm_source=rss")
    assert first["canonical_url"] == "https://example.com/news/bridge?id=7"
    assert first["host"] == "example.com"
    assert first["source_id"] == "wire-0001"
    assert first["author"] == "Jane Roe"
    assert first["lang"] == "en-gb"
    assert first["published_at"] == _utc(2003, 6, 10, 4, 0, 0)
    assert first["published_at_raw"] == "Tue, 10 Jun 2003 04:00:00 GMT"
    assert first["doc_id"] == make_doc_id(first["canonical_url"], content_sha256(first["text"]))
    assert first["content_sha256"] == content_sha256(first["text"])
    for r in rows:
        assert r["source_kind"] == "feed"
        assert r["is_snippet_only"] is True
        assert r["source_path"] == "rss_small.xml"
        assert r["ingest_run_id"] is None
    # Summary-only entry: HTML summary stripped to text.
    assert rows[1]["text"] == "Only a summary, with a link."
    # feedparser turns "2016/6/29" into the 1st of the current month; we keep the real date.
    assert rows[1]["published_at"] == _utc(2016, 6, 29)
    assert rows[1]["published_at_raw"] == "2016/6/29"
    # An unparseable date stays NULL, its raw string kept.
    assert rows[2]["published_at"] is None
    assert rows[2]["published_at_raw"] == "sometime last week"


def test_atom_entry_dates_titles_and_language() -> None:
    batch = parse_feed((FIXTURES / "atom_small.xml").read_bytes(), source="atom_small.xml")
    (row,) = batch.documents.to_pylist()
    assert row["title"] == "Le radium isolé"
    assert row["text"] == "Le radium a été isolé en 1902."
    assert row["published_at"] == _utc(2005, 7, 31, 12, 29, 29)
    assert row["modified_at"] == _utc(2005, 8, 1, 10, 0, 0)
    assert row["author"] == "Marie Curie"
    assert row["lang"] == "fr"
    assert row["canonical_url"] == "http://example.fr/2005/07/31/radium"


def test_json_feed_items() -> None:
    batch = parse_feed((FIXTURES / "jsonfeed_11.json").read_bytes(), source="jsonfeed_11.json")
    rows = {r["source_id"]: r for r in batch.documents.to_pylist()}
    assert set(rows) == {"1", "2", "3"}
    assert batch.skips["empty_text"] == 1
    assert batch.skips["not_an_object"] == 1
    one = rows["1"]
    assert one["text"] == "Text of the first item."
    assert one["canonical_url"] == "https://example.org/posts/1"
    assert one["author"] == "Item Author"
    assert one["published_at"] == _utc(2020, 2, 3, 9, 5, 6)
    assert one["modified_at"] == _utc(2020, 2, 4)
    assert one["lang"] == "en"
    assert rows["2"]["text"] == "First paragraph.\nSecond & last."
    assert rows["2"]["published_at"] is None
    assert rows["2"]["published_at_raw"] == "not a date"
    assert rows["2"]["author"] == "Feed Author"
    assert rows["3"]["url"] == "https://other.example.net/story"
    assert rows["3"]["text"] == "Only a summary."
    assert rows["3"]["author"] == "Legacy Author"
    assert all(r["is_snippet_only"] and r["source_kind"] == "feed" for r in rows.values())


def test_malformed_feed_is_a_counted_skip_with_line() -> None:
    batch = parse_feed((FIXTURES / "malformed.xml").read_bytes(), source="malformed.xml")
    assert batch.documents.num_rows == 0
    assert batch.skips["malformed_feed"] == 1
    assert batch.messages
    assert batch.messages[0].startswith("malformed.xml: not well-formed XML")
    assert "at line" in batch.messages[0]
    assert batch.messages[0].endswith("skipped")


def test_entity_bomb_is_refused_before_parsing() -> None:
    data = (FIXTURES / "entity_bomb.xml").read_bytes()
    t0 = time.perf_counter()
    batch = parse_feed(data, source="entity_bomb.xml")
    assert time.perf_counter() - t0 < 1.0
    assert batch.documents.num_rows == 0
    assert batch.skips == {"xml_entity_declaration": 1}
    assert "entity" in batch.messages[0].lower()
    # The same refusal in UTF-16.
    utf16 = parse_feed(data.decode().replace('<?xml version="1.0"?>', "").encode("utf-16"),
                       source="bomb16.xml")
    assert utf16.skips["xml_entity_declaration"] == 1


def test_external_doctype_without_subset_is_accepted() -> None:
    data = (
        b'<?xml version="1.0"?>\n<!DOCTYPE rss PUBLIC '
        b'"-//Netscape Communications//DTD RSS 0.91//EN" '
        b'"http://my.netscape.com/publish/formats/rss-0.91.dtd">\n<rss version="0.91"><channel>'
        b"<title>T</title><link>http://example.com/</link><description>d</description>"
        b"<item><title>A</title><link>http://example.com/a</link><description>Body A"
        b"</description></item></channel></rss>"
    )
    batch = parse_feed(data, source="rss091.xml")
    assert batch.documents.column("text").to_pylist() == ["Body A"]


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "empty_feed"),
        (b"   \n", "empty_feed"),
        (b"https://example.com/feed.xml", "not_a_feed"),  # bytes: never fetched; plain text
        (b"<html><body><p>not a feed</p></body></html>", "not_a_feed"),
        (b'{"version": "https://jsonfeed.org/version/1", "items": [', "malformed_feed"),
        (b'{"title": "no items"}', "not_a_feed"),
        (b"\x1f\x8b\x08\x00garbage", "malformed_feed"),
    ],
)
def test_bad_feeds_never_raise(data: bytes, reason: str) -> None:
    batch = parse_feed(data, source="x")
    assert batch.documents.num_rows == 0
    assert batch.skips[reason] == 1
    assert batch.messages


def test_path_like_bytes_are_not_opened(tmp_path: Path) -> None:
    feed = tmp_path / "real.xml"
    feed.write_bytes((FIXTURES / "atom_small.xml").read_bytes())
    batch = parse_feed(str(feed).encode(), source="x")
    assert batch.documents.num_rows == 0
    assert batch.skips["not_a_feed"] == 1  # a path is plain text, not a feed


def test_gzipped_feed_bytes() -> None:
    data = gzip.compress((FIXTURES / "atom_small.xml").read_bytes())
    assert parse_feed(data, source="a.xml.gz").documents.num_rows == 1


def test_feed_date_validates_feedparser_against_raw() -> None:
    wrong = time.strptime("2026-11-01", "%Y-%m-%d")
    assert feed_date("2016/6/29", wrong) == _utc(2016, 6, 29)
    assert feed_date("on 29th of the sixth month", wrong) is None
    # feedparser's parse is used when the raw string carries its year, month and day.
    right = time.strptime("2016-06-29 10:00", "%Y-%m-%d %H:%M")
    assert feed_date("29 Juni 2016 um 10:00 Uhr (June)", right) == _utc(2016, 6, 29, 10, 0)
    assert feed_date(None, right) is None


def test_load_feed_path_and_url() -> None:
    assert load_feed(str(FIXTURES / "atom_small.xml")).documents.num_rows == 1
    body = (FIXTURES / "rss_small.xml").read_bytes()

    def handler(req: httpx.Request) -> httpx.Response:
        if req.url.path == "/feed.xml":
            return httpx.Response(200, content=body)
        return httpx.Response(404)

    fetcher = Fetcher(
        FetchConfig(respect_robots=False),
        client=httpx.Client(transport=httpx.MockTransport(handler)),
        resolver=lambda host: ["93.184.216.34"],
    )
    now = _utc(2024, 1, 1)
    got = load_feed("https://feeds.example.com/feed.xml", fetcher=fetcher, now=now)
    assert got.documents.num_rows == 4  # three entries with a body, one title-only
    assert set(got.documents.column("fetched_at").to_pylist()) == {now}
    assert set(got.documents.column("source_path").to_pylist()) == {
        "https://feeds.example.com/feed.xml"
    }
    missing = load_feed("https://feeds.example.com/gone.xml", fetcher=fetcher)
    assert missing.documents.num_rows == 0
    assert missing.skips["fetch_failed"] == 1
    private = Fetcher(FetchConfig(respect_robots=False),
                      client=httpx.Client(transport=httpx.MockTransport(handler)),
                      resolver=lambda host: ["192.168.0.10"])
    blocked = load_feed("http://router.example/feed.xml", fetcher=private)
    assert blocked.skips["fetch_failed"] == 1
    assert "blocked" in blocked.messages[0]


def _real_feeds() -> list[Path]:
    if not REAL_FEEDS.exists():
        return []
    return sorted(
        p for p in REAL_FEEDS.iterdir() if p.suffix in (".xml", ".rss", ".atom", ".rdf")
    )


@pytest.mark.shared_data
def test_all_real_xml_feeds_parse() -> None:
    feeds = _real_feeds()
    if not feeds:
        pytest.skip(f"shared data not found: {REAL_FEEDS}")
    assert len(feeds) == 27
    totals = {}
    for path in feeds:
        batch = load_feed(str(path))
        assert batch.documents.schema.equals(DOCUMENTS_SCHEMA)
        totals[path.name] = batch.documents.num_rows
        texts = batch.documents.column("text").to_pylist()
        assert all(t and t == t.strip() and "\x00" not in t for t in texts)
        # Dates: every parsed date is UTC and its year appears in the raw string.
        for pub, raw in zip(batch.documents.column("published_at").to_pylist(),
                            batch.documents.column("published_at_raw").to_pylist(), strict=True):
            if pub is not None:
                assert str(pub.year) in raw
    assert all(n > 0 for n in totals.values()), totals
    assert totals["livemint.xml"] == 25
    assert totals["lanacion.xml"] == 100
    lanacion = load_feed(str(REAL_FEEDS / "lanacion.xml")).documents
    assert min(len(t) for t in lanacion.column("text").to_pylist()) > 20
    kc = load_feed(str(REAL_FEEDS / "kc0011.rss")).documents.to_pylist()
    first = next(r for r in kc if r["published_at_raw"] == "2020/1/10 14:33:00")
    assert first["published_at"] == _utc(2020, 1, 10, 14, 33)


@pytest.mark.shared_data
def test_real_json_feeds() -> None:
    if not REAL_FEEDS.exists():
        pytest.skip(f"shared data not found: {REAL_FEEDS}")
    import json

    for name in ["DaringFireball.json", "inessential.json", "allthis.json", "pxlnv.json",
                 "curt.json", "rose.json", "3960.json", "jsonfeed-extension.json"]:
        data = (REAL_FEEDS / name).read_bytes()
        items = json.loads(data)["items"]
        batch = load_feed(str(REAL_FEEDS / name))
        skipped = sum(v for k, v in batch.skips.items() if k != "title_only_entry")  # kept
        assert batch.documents.num_rows + skipped == len(items), name
        assert batch.documents.num_rows > 0
    # The same site as Atom and as JSON Feed gives the same number of entries.
    atom = load_feed(str(REAL_FEEDS / "allthis.atom")).documents.num_rows
    assert load_feed(str(REAL_FEEDS / "allthis.json")).documents.num_rows == atom
    partial = load_feed(str(REAL_FEEDS / "allthis-partial.json"))
    assert partial.skips["malformed_feed"] == 1
    assert partial.documents.num_rows == 0
    # A JSON file that is not a JSON Feed (Scripting News' RSS-in-JSON) is a counted skip.
    assert load_feed(str(REAL_FEEDS / "ScriptingNews.json")).skips["not_a_feed"] == 1


def test_ingest_path_url_reads_feed_or_page() -> None:
    from affidavit.tasks.ingest import ingest_path
    from affidavit.tasks.ingest_common import merge_batches

    feed = (FIXTURES / "atom_small.xml").read_bytes()
    paras = "".join(
        f"<p>Paragraph {i} of a long enough article body about the harbour authority, cargo "
        f"volumes and the new cranes that were installed during the winter months.</p>"
        for i in range(4)
    )
    page = (f"<!doctype html><html lang='en'><head><title>Page title</title></head><body>"
            f"<article>{paras}</article></body></html>").encode()

    def handler(req: httpx.Request) -> httpx.Response:
        if req.url.path == "/feed":
            return httpx.Response(200, content=feed, headers={"Content-Type": "text/html"})
        if req.url.path == "/article":
            return httpx.Response(200, content=page, headers={"Content-Type": "text/html"})
        return httpx.Response(200, content=b"<html><body></body></html>")

    fetcher = Fetcher(
        FetchConfig(respect_robots=False),
        client=httpx.Client(transport=httpx.MockTransport(handler)),
        resolver=lambda host: ["93.184.216.34"],
    )
    as_feed = merge_batches(ingest_path("https://site.example/feed", fetcher=fetcher))
    assert as_feed.documents.column("source_kind").to_pylist() == ["feed"]
    as_page = merge_batches(ingest_path("https://site.example/article", fetcher=fetcher))
    (row,) = as_page.documents.to_pylist()
    assert row["source_kind"] == "web"
    assert row["is_snippet_only"] is False
    assert row["title"] == "Page title"
    assert "Paragraph 3" in row["text"]
    assert row["http_status"] == 200
    assert row["canonical_url"] == "https://site.example/article"
    empty = merge_batches(ingest_path("https://site.example/empty", fetcher=fetcher))
    assert empty.skips["empty_extraction"] == 1


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=400) | st.text(max_size=300).map(str.encode))
def test_parse_feed_never_raises(data: bytes) -> None:
    batch = parse_feed(b"<?xml version='1.0'?><rss><channel><item><description>" + data,
                       source="fuzz")
    assert batch.documents.schema.equals(DOCUMENTS_SCHEMA)
    assert parse_feed(data, source="fuzz").documents.schema.equals(DOCUMENTS_SCHEMA)


def test_json_feed_whose_version_follows_a_long_item_list_is_a_feed(tmp_path):
    import json as _json

    from affidavit.tasks.ingest import detect_kind, ingest_path

    items = [{"id": str(i), "url": f"https://example.org/{i}",
              "content_text": f"Item number {i} says something long enough. " * 5}
             for i in range(40)]
    path = tmp_path / "late.json"
    path.write_text(_json.dumps({"items": items, "title": "t",
                                 "version": "https://jsonfeed.org/version/1.1"}))
    assert path.stat().st_size > 4096
    assert detect_kind(path) == "feed"
    docs = sum(b.documents.num_rows for b in ingest_path(str(path)))
    assert docs == 40


def test_kind_feed_forces_feed_parsing(tmp_path):
    from affidavit.tasks.ingest import ingest_path

    path = tmp_path / "feed.data"
    path.write_text('<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
                    "<item><title>a</title><link>https://example.org/a</link>"
                    "<description>A story long enough to keep as text.</description></item>"
                    "</channel></rss>")
    docs = sum(b.documents.num_rows for b in ingest_path(str(path), kind="feed"))
    assert docs == 1


def test_untrusted_feed_dates_are_stored_null_and_counted() -> None:
    rss = (b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
           b"<item><title>a</title><link>https://ex.example/a</link><description>Exports rose 12 "
           b"percent.</description><pubDate>Tue, 14 May 2024 10:00:00 CEST</pubDate></item>"
           b"<item><title>b</title><link>https://ex.example/b</link><description>Imports fell."
           b"</description><pubDate>Tue, 14 May 2024 10:00:00 GMT</pubDate></item>"
           b"</channel></rss>")
    batch = parse_feed(rss, source="f.xml")
    dates = batch.documents.column("published_at").to_pylist()
    assert dates[0] is None
    assert dates[1] is not None
    assert batch.skips["date_untrusted"] == 1
    assert any(m.startswith("f.xml: item 1: date 'Tue, 14 May 2024 10:00:00 CEST' cannot be "
                            "trusted") for m in batch.messages)
    js = (b'{"version": "https://jsonfeed.org/version/1.1", "title": "t", "items": ['
          b'{"id": "1", "url": "https://ex.example/1", "content_text": "Exports rose.", '
          b'"date_published": "14/05/2024 10:00"}]}')
    batch = parse_feed(js, source="f.json")
    assert batch.documents.column("published_at").to_pylist() == [None]
    assert batch.skips["date_untrusted"] == 1


def test_json_feed_fields_of_the_wrong_type_are_ignored_and_counted() -> None:
    feed = {"version": "https://jsonfeed.org/version/1.1", "title": "T", "items": [
        {"id": "1", "url": "https://a.example/1", "title": "Ferry fares", "content_text": 12345},
        {"id": "2", "url": "https://a.example/2", "title": ["x"], "content_html": {"a": 1},
         "summary": "Port traffic fell 3 percent in May."},
        {"id": "3", "url": "https://a.example/3", "title": "Grain", "date_published": 12,
         "content_text": "Grain exports rose 12 percent in March, the port said."},
    ]}
    batch = parse_feed(json.dumps(feed).encode(), source="f.json")
    rows = batch.documents.select(["title", "text", "published_at"]).to_pylist()
    assert rows == [
        {"title": "Ferry fares", "text": "Ferry fares", "published_at": None},
        {"title": None, "text": "Port traffic fell 3 percent in May.", "published_at": None},
        {"title": "Grain", "text": "Grain exports rose 12 percent in March, the port said.",
         "published_at": None},
    ]
    assert batch.skips["wrong_type_field"] == 3
    assert "f.json: item 2: title is a list, content_html is an object, not text: ignored" in (
        batch.messages)


def test_feed_notes_name_items_from_1_in_feed_order() -> None:
    items = [{"id": "1", "content_text": ""}, {"id": 2, "content_text": 5}, "not an object",
             {"id": "4", "content_text": "The bridge opened on 14 May 2024, officials said."},
             {"id": "5", "content_text": ""}]
    data = json.dumps({"version": "https://jsonfeed.org/version/1.1", "items": items}).encode()
    batch = parse_feed(data, source="f.json")
    assert batch.messages == [
        "f.json: item 1: empty text: skipped",
        "f.json: item 2: content_text is a number, not text: ignored",
        "f.json: item 2: empty text: skipped",
        "f.json: item 3 is not an object: skipped",
        "f.json: item 5: empty text: skipped",
    ]
    rss = (b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title>'
           b"<item><title>A</title><description>Rail use rose 4 percent in May.</description>"
           b"</item><item><title></title><description></description></item></channel></rss>")
    assert parse_feed(rss, source="r.xml").messages == ["r.xml: item 2: empty text: skipped"]
