"""Tests of tasks.ingest_archive: WARC/WET framing, recovery, HTTP decoding, extraction."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affidavit.schemas.documents import DOCUMENTS_SCHEMA
from affidavit.tasks.ingest_archive import dechunk, read_warc
from affidavit.tasks.ingest_common import REPAIRS, IngestBatch, merge_batches

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
ARCHIVES = SHARED / "archives"
WARCIO = ARCHIVES / "warcio-testdata" / "test" / "data"
WHIRLWIND = ARCHIVES / "commoncrawl-whirlwind"


def _all(path: Path, **kw: object) -> IngestBatch:
    return merge_batches(read_warc(path, **kw))  # type: ignore[arg-type]


def _need(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"shared data not found: {path}")


def _record(headers: list[tuple[str, object]], block: bytes) -> bytes:
    head = "WARC/1.0\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    return head.encode() + block + b"\r\n\r\n"


def _response(uri: str, http: bytes, *, length: int | None = None) -> bytes:
    return _record(
        [("WARC-Type", "response"), ("WARC-Target-URI", uri), ("WARC-Date", "2021-05-06T07:08:09Z"),
         ("Content-Type", "application/http; msgtype=response"),
         ("Content-Length", len(http) if length is None else length)],
        http,
    )


def _text_http(text: str) -> bytes:
    return b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + text.encode()


# ------------------------------------------------------------------------------ fixture


def test_truncated_fixture_counts_and_recovers() -> None:
    batch = _all(FIXTURES / "truncated.warc")
    assert batch.documents.schema.equals(DOCUMENTS_SCHEMA)
    rows = batch.documents.to_pylist()
    assert [r["canonical_url"] for r in rows] == ["http://example.com/harbour",
                                                  "http://example.com/notes.txt"]
    assert dict(batch.skips) == {
        "warcinfo_record": 1,
        "bad_content_length": 1,  # the record claiming 10 bytes fewer than it has
        "request_record": 1,
        "revisit_record": 1,
        "http_status_not_2xx": 1,
        "truncated_record": 1,  # the file ends inside the last record
    }
    assert any("Content-Length" in m and "example.com/short" in m for m in batch.messages)
    harbour, notes = rows
    # Chunked + gzip-encoded body decoded, then extracted by trafilatura.
    assert "cargo volumes rose by 12 percent" in harbour["text"]
    assert "Copyright" not in harbour["text"]
    assert harbour["title"] == "Harbour volumes rise"
    assert harbour["author"] == "Sam Writer"
    assert harbour["fetched_at"] == datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert harbour["published_at"] == datetime(2019, 5, 6, tzinfo=UTC)
    assert harbour["http_status"] == 200
    assert harbour["lang"] == "en"
    assert harbour["source_kind"] == "archive"
    assert harbour["is_snippet_only"] is False
    assert notes["text"] == "Plain notes: the bridge opened in 1932.\nSecond line."
    assert notes["title"] is None
    assert notes["published_at"] is None


@pytest.mark.parametrize("how", ["single_stream", "per_record_members"])
def test_gzipped_warc_both_layouts(tmp_path: Path, how: str) -> None:
    raw = (FIXTURES / "truncated.warc").read_bytes()
    cut = raw.index(b"WARC/1.0", raw.index(b"example.com/cut") - 200)
    whole = raw[:cut]  # drop the truncated last record
    path = tmp_path / "f.warc.gz"
    if how == "single_stream":
        path.write_bytes(gzip.compress(whole))
    else:
        parts = whole.split(b"WARC/1.0\r\n")[1:]
        path.write_bytes(b"".join(gzip.compress(b"WARC/1.0\r\n" + p) for p in parts))
    batch = _all(path)
    assert batch.documents.num_rows == 2
    assert batch.skips["bad_content_length"] == 1
    assert "truncated_record" not in batch.skips


def test_truncated_gzip_stream_keeps_earlier_records(tmp_path: Path) -> None:
    members = [gzip.compress(_response(f"http://e.com/{i}", _text_http(f"text {i}")))
               for i in range(5)]
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(b"".join(members[:3]) + members[3][: len(members[3]) // 2])
    batch = _all(path)
    assert batch.documents.column("text").to_pylist() == ["text 0", "text 1", "text 2"]
    assert batch.skips["truncated_file"] == 1
    assert any("end-of-stream" in m for m in batch.messages)


def test_content_length_too_long_does_not_lose_the_next_record(tmp_path: Path) -> None:
    first = _text_http("first record text")
    second = _text_http("second record text")
    data = (
        _response("http://e.com/1", first, length=len(first) + 60)  # swallows 56 bytes of the next
        + _response("http://e.com/2", second)
        + _response("http://e.com/3", _text_http("third record text"))
    )
    path = tmp_path / "long.warc"
    path.write_bytes(data)
    batch = _all(path)
    assert batch.documents.column("url").to_pylist() == ["http://e.com/2", "http://e.com/3"]
    assert batch.skips["bad_content_length"] == 1


def test_garbage_and_bad_headers_between_records(tmp_path: Path) -> None:
    data = (
        b"some junk before\r\n"
        + _response("http://e.com/1", _text_http("one"))
        + b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: abc\r\n\r\nxyz\r\n\r\n"
        + _response("http://e.com/2", _text_http("two"))
    )
    path = tmp_path / "junk.warc"
    path.write_bytes(data)
    batch = _all(path)
    assert batch.documents.column("text").to_pylist() == ["one", "two"]
    assert batch.skips["garbage_between_records"] == 1
    assert batch.skips["bad_content_length"] == 1


def test_gzip_bomb_in_a_record_is_skipped(tmp_path: Path) -> None:
    bomb = gzip.compress(b"<p>" + b"a" * (8 * 1024 * 1024), compresslevel=9)
    http = (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n\r\n" + bomb)
    path = tmp_path / "bomb.warc"
    path.write_bytes(_response("http://e.com/bomb", http) + _response("http://e.com/ok",
                                                                        _text_http("fine")))
    batch = _all(path, max_body_bytes=1024 * 1024)
    assert batch.skips["decompressed_too_large"] == 1
    assert batch.documents.column("text").to_pylist() == ["fine"]


def test_non_text_and_non_web_records(tmp_path: Path) -> None:
    png = b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG...."
    data = (
        _response("http://e.com/img.png", png)
        + _record([("WARC-Type", "resource"), ("WARC-Target-URI", "metadata://crawler/log"),
                   ("Content-Type", "text/plain"), ("Content-Length", 8)], b"log line")
        + _record([("WARC-Type", "resource"), ("WARC-Target-URI", "http://e.com/r.txt"),
                   ("WARC-Date", "2021-01-01T00:00:00Z"), ("Content-Type", "text/plain"),
                   ("Content-Length", 13)], b"resource text")
        + _record([("WARC-Type", "conversion"), ("WARC-Target-URI", "http://e.com/c"),
                   ("WARC-Identified-Content-Language", "fra,eng"), ("Content-Type", "text/plain"),
                   ("Content-Length", 9)], b"conv \xff\x00ok")
    )
    path = tmp_path / "mixed.warc"
    path.write_bytes(data)
    batch = _all(path)
    rows = batch.documents.to_pylist()
    assert [r["text"] for r in rows] == ["resource text", "conv \u00ffok"]  # 0xff: Windows-1252
    assert rows[1]["lang"] == "fra"
    assert rows[0]["http_status"] is None
    assert batch.skips["non_text_payload"] == 1
    assert batch.skips["non_web_resource"] == 1
    assert batch.skips["non_utf8_text"] == 1


def test_batches_and_arguments() -> None:
    batches = list(read_warc(FIXTURES / "truncated.warc", batch_rows=1))
    assert [b.documents.num_rows for b in batches] == [1, 1, 0]
    assert sum(sum(b.skips.values()) for b in batches) == 6
    with pytest.raises(ValueError, match="must be positive"):
        list(read_warc(FIXTURES / "truncated.warc", batch_rows=0))
    with pytest.raises(FileNotFoundError):
        list(read_warc(FIXTURES / "absent.warc"))


def test_dechunk() -> None:
    assert dechunk(b"4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\n\r\n") == b"Wikipedia"
    assert dechunk(b"3\nabc\n0\n\n") == b"abc"
    with pytest.raises(ValueError, match="no chunk size line"):
        dechunk(b"<html>not chunked</html>")
    with pytest.raises(ValueError, match="past the end of the body"):
        dechunk(b"ff\r\nshort")


# ------------------------------------------------------------------------------ real archives


@pytest.mark.shared_data
def test_warcio_broken_files() -> None:
    _need(WARCIO)
    trunc = _all(WARCIO / "example-trunc.warc")
    # The response's Content-Length is 2 bytes short: skipped and counted; the request after
    # it is still read (and counted as a request record).
    assert trunc.skips["bad_content_length"] == 1
    assert trunc.skips["request_record"] == 1
    assert trunc.documents.num_rows == 0
    # Gzip members that do not align with records (warcio and fastwarc stop here).
    # Its records are read, but the response's block no longer matches its WARC-Block-Digest
    # (the request's does): a damaged record is a counted skip, never stored as a source.
    wrong = _all(WARCIO / "example-wrong-chunks.warc.gz")
    assert wrong.documents.num_rows == 0
    assert wrong.skips["warc_digest_mismatch"] == 1
    assert any("WARC-Block-Digest" in m for m in wrong.messages)
    # ... reported among the skips, not the repairs (a record kept with a digest it could not
    # check is the warning)
    assert "warc_digest_mismatch" not in REPAIRS
    assert "warc_digest_unchecked" in REPAIRS
    assert wrong.skips["request_record"] == 1
    # One gzip stream for the whole file (warcio refuses it).
    single = _all(WARCIO / "example-bad-non-chunked.warc.gz")
    assert single.documents.num_rows == 1
    assert single.skips["revisit_record"] == 1
    chunked = _all(WARCIO / "example-iana.org-chunked.warc")
    assert chunked.documents.num_rows == 1
    assert "Management of the DNS Root Zone" in chunked.documents.column("text")[0].as_py()
    arc = _all(WARCIO / "example.arc.gz")
    assert arc.skips["unsupported_format"] == 1
    for path in sorted(WARCIO.iterdir()):
        batch = _all(path)  # no file raises
        assert batch.documents.schema.equals(DOCUMENTS_SCHEMA)


@pytest.mark.shared_data
def test_commoncrawl_warc_and_wet() -> None:
    _need(WHIRLWIND)
    for name in ["whirlwind.warc", "whirlwind.warc.gz"]:
        batch = _all(WHIRLWIND / name)
        (row,) = batch.documents.to_pylist()
        assert row["url"] == "https://an.wikipedia.org/wiki/Escopete"
        assert row["fetched_at"] == datetime(2024, 5, 18, 1, 58, 10, tzinfo=UTC)
        assert row["http_status"] == 200
        assert "Escopete" in row["text"]
        assert batch.skips == {"warcinfo_record": 1, "request_record": 1, "metadata_record": 1}
    for name in ["whirlwind.warc.wet", "whirlwind.warc.wet.gz"]:
        (row,) = _all(WHIRLWIND / name).documents.to_pylist()
        assert row["lang"] == "spa"
        assert row["text"].startswith("Escopete - Biquipedia")
        assert row["source_kind"] == "archive"


@pytest.mark.shared_data
def test_pywb_sample_revisits_counted() -> None:
    path = ARCHIVES / "pywb-sample-archive" / "sample_archive" / "warcs" / "dupes.warc.gz"
    _need(path)
    batch = _all(path)
    assert batch.skips["revisit_record"] == 9
    assert batch.documents.num_rows == 1


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=300), st.integers(min_value=0, max_value=3000))
def test_read_warc_never_raises_on_damaged_bytes(noise: bytes, cut: int) -> None:
    import tempfile

    raw = (FIXTURES / "truncated.warc").read_bytes()
    damaged = raw[:cut] + noise + raw[cut:]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "damaged.warc"
        path.write_bytes(damaged)
        batch = _all(path)
        assert batch.documents.schema.equals(DOCUMENTS_SCHEMA)
        gz = Path(d) / "damaged.warc.gz"
        gz.write_bytes(gzip.compress(raw)[: cut // 2] + noise)
        assert _all(gz).documents.schema.equals(DOCUMENTS_SCHEMA)


def test_notes_come_in_the_order_of_the_records(tmp_path: Path) -> None:
    # a record's own note (empty text, from the rows) before the next record's (a bad header,
    # from the reader): not the reader's notes first
    data = (_response("http://e.com/1", _text_http("   "))
            + b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: abc\r\n\r\nxyz\r\n\r\n"
            + _response("http://e.com/2", _text_http("two")))
    path = tmp_path / "order.warc"
    path.write_bytes(data)
    messages = _all(path).messages
    assert ["empty text" in m for m in messages] == [True, False], messages


def test_record_notes_say_where_the_record_starts_and_what_it_names(tmp_path: Path) -> None:
    """A record's notes give its offset (as the reader's framing notes do, not a count from 0)
    and its target URI, or its record id when it names none (never "None")."""
    same = _response("https://a.example/x", _text_http("The bridge opened in May 2024."))
    untargeted = _record(
        [("WARC-Type", "response"), ("WARC-Record-ID", "<urn:uuid:7>"),
         ("Content-Type", "application/http; msgtype=response"), ("Content-Length", 7)],
        b"garbage")
    path = tmp_path / "w.warc"
    path.write_bytes(same + same + untargeted)
    batch = _all(path)
    assert batch.documents.num_rows == 1
    assert f"{path}: offset {len(same)}: the same document as offset 0 (same id or URL " \
           "and text): skipped (later such rows are counted, not noted)" in batch.messages
    assert f"{path}: offset {2 * len(same)}: <urn:uuid:7>: no HTTP status" in batch.messages
    assert not any(": None:" in m for m in batch.messages), batch.messages
