"""Tests of tasks.ingest_dumps and the shared pieces in tasks.ingest_common."""

from __future__ import annotations

import gzip
import json
import time
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from affidavit.schemas.documents import DOCUMENTS_SCHEMA, content_sha256, make_doc_id
from affidavit.tasks.ingest import detect_kind, ingest_path
from affidavit.tasks.ingest_common import (
    ColumnMapping,
    IngestBatch,
    merge_batches,
    parse_datetime,
    rows_to_documents,
)
from affidavit.tasks.ingest_dumps import read_dump

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
CORPORA = SHARED / "corpora"


def _utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def _all(path: Path | str, **kw: object) -> IngestBatch:
    return merge_batches(read_dump(path, **kw))  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ JSONL


def test_jsonl_bad_lines_are_counted_with_line_numbers() -> None:
    batch = _all(FIXTURES / "bad_line.jsonl")
    rows = {r["source_id"]: r for r in batch.documents.to_pylist()}
    assert set(rows) == {"a1", "a2", "5", "a6"}
    assert batch.skips["bad_json_line"] == 1
    assert batch.skips["not_an_object"] == 1
    assert batch.skips["empty_text"] == 1
    assert batch.skips["nul_removed"] == 1
    assert batch.skips["non_utf8_text"] == 1
    assert any("line 3" in m and "not JSON" in m for m in batch.messages)
    assert any("line 6" in m for m in batch.messages)
    a1 = rows["a1"]
    assert a1["canonical_url"] == "https://example.com/a"
    assert a1["host"] == "example.com"
    assert a1["published_at"] == _utc(1987, 2, 26, 15, 1, 1)
    assert a1["published_at_raw"] == "1987-02-26T15:01:01Z"
    assert a1["author"] == "Ann"
    assert a1["source_kind"] == "archive"
    assert a1["doc_id"] == make_doc_id(a1["canonical_url"], content_sha256("Alpha text."))
    # No URL: the locator is the source id.
    assert rows["a2"]["doc_id"] == make_doc_id("a2", content_sha256("Beta text."))
    # An unparseable date is NULL, never invented; the raw string is kept.
    assert rows["a2"]["published_at"] is None
    assert rows["a2"]["published_at_raw"] == "26-FEB-1987 15:01:01.79"
    assert rows["5"]["text"] == "Epsilon text."
    assert rows["a6"]["text"] == "caf\u00e9 au lait"  # a byte not UTF-8: read as Windows-1252
    assert batch.documents.schema.equals(DOCUMENTS_SCHEMA)


def test_jsonl_line_not_an_object_is_named_as_json_names_it(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('[1, 2]\n3\n"str"\nnull\ntrue\n{"id": "k", "text": "kept"}\n')
    batch = _all(path)
    assert batch.documents.column("source_id").to_pylist() == ["k"]
    assert batch.skips["not_an_object"] == 5
    notes = [m for m in batch.messages if "not an object" in m]
    assert notes == [
        f"{path}: line 1: a list, not an object: skipped",
        f"{path}: line 2: a number, not an object: skipped",
        f"{path}: line 3: a string, not an object: skipped",
        f"{path}: line 4: null, not an object: skipped",
        f"{path}: line 5: a boolean, not an object: skipped",
    ]


def test_jsonl_gz_and_batches(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for i in range(12):
            fh.write(json.dumps({"id": f"d{i}", "text": f"text number {i}"}) + "\n")
    batches = list(read_dump(path, batch_rows=5))
    assert [b.documents.num_rows for b in batches] == [5, 5, 2]
    ids = [i for b in batches for i in b.documents.column("source_id").to_pylist()]
    assert ids == [f"d{i}" for i in range(12)]


def test_jsonl_without_id_or_url_uses_path_and_line(tmp_path: Path) -> None:
    path = tmp_path / "anon.jsonl"
    path.write_text('{"text": "same"}\n{"text": "same"}\n')
    rows = _all(path).documents.to_pylist()
    assert len(rows) == 2
    assert rows[0]["doc_id"] == make_doc_id(f"{path}#1", content_sha256("same"))
    assert rows[1]["doc_id"] == make_doc_id(f"{path}#2", content_sha256("same"))


def test_json_array(tmp_path: Path) -> None:
    path = tmp_path / "docs.json"
    path.write_text(json.dumps([{"id": 1, "text": "one"}, {"id": 2, "text": "two"}, 3]))
    batch = _all(path)
    assert batch.documents.column("source_id").to_pylist() == ["1", "2"]
    assert batch.skips["not_an_object"] == 1
    wrapped = tmp_path / "wrapped.json"
    wrapped.write_text(json.dumps({"documents": [{"id": "w", "text": "wrapped"}]}))
    assert _all(wrapped).documents.column("text").to_pylist() == ["wrapped"]
    broken = tmp_path / "broken.json"
    broken.write_text('[{"id": 1, "text": "x"')
    assert _all(broken).skips["bad_json_file"] == 1
    null = tmp_path / "null.json"
    null.write_text("null")
    assert _all(null).messages == [
        f"{null}: the JSON document is null, not a list of records: skipped"
    ]


# ------------------------------------------------------------------------------ CSV / Parquet

CSV_MAPPING = ColumnMapping(
    id="doc", url="link", title="headline", text="body", published_at="date", author="by"
)


def test_csv_with_column_mapping() -> None:
    batch = _all(FIXTURES / "docs.csv", mapping=CSV_MAPPING)
    rows = {r["source_id"]: r for r in batch.documents.to_pylist()}
    assert set(rows) == {"c1", "c2", "c4"}
    assert batch.skips["empty_text"] == 1
    assert rows["c1"]["text"] == "First body, with a comma\nand a second line."
    assert rows["c1"]["canonical_url"] == "https://example.com/c1"
    assert rows["c1"]["published_at"] == _utc(2021, 3, 4)
    assert rows["c2"]["url"] is None
    assert rows["c2"]["host"] is None
    assert rows["c2"]["author"] is None
    assert rows["c2"]["published_at"] is None
    assert rows["c4"]["text"] == 'Fourth "quoted" body.'
    assert rows["c4"]["published_at"] is None
    assert rows["c4"]["published_at_raw"] == "2021-13-45"


def test_wayback_first_seen_is_read_and_can_be_mapped(tmp_path: Path) -> None:
    """A dump's first-capture column reaches the documents, so lineage can direct edges."""
    path = tmp_path / "d.jsonl"
    rows = [
        {"id": "a", "text": "Alpha.", "published_at": "2024-05-02T10:00:00Z",
         "wayback_first_seen": "2024-04-30T08:00:00Z"},
        {"id": "b", "text": "Beta.", "first_capture": "2024-05-01"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    got = {r["source_id"]: r for r in _all(path).documents.to_pylist()}
    assert got["a"]["wayback_first_seen"] == _utc(2024, 4, 30, 8)
    assert got["b"]["wayback_first_seen"] is None
    mapped = _all(path, mapping=ColumnMapping(wayback_first_seen="first_capture"))
    got = {r["source_id"]: r for r in mapped.documents.to_pylist()}
    assert got["b"]["wayback_first_seen"] == _utc(2024, 5, 1)
    assert got["a"]["wayback_first_seen"] is None


def test_csv_missing_text_column_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"docs.csv: no 'text' column in its header \(it has "):
        _all(FIXTURES / "docs.csv")


def test_csv_bad_rows_and_non_utf8(tmp_path: Path) -> None:
    path = tmp_path / "d.tsv"
    path.write_bytes(b"id\ttext\nx1\tgood\nx2\textra\tfield\nx3\tbad \xff byte\n")
    batch = _all(path)
    assert batch.documents.column("source_id").to_pylist() == ["x1", "x3"]
    assert batch.skips["bad_csv_row"] == 1
    assert "d.tsv: row 2: 3 fields" in batch.messages[0]  # the second data row
    assert batch.skips["non_utf8_text"] == 1
    assert batch.documents.column("text").to_pylist()[1] == "bad \u00ff byte"


def test_csv_quote_never_closed_on_the_last_line_names_one_line(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text('id,text\nx1,first story\nx2,"an open quote\n', encoding="utf-8")
    batch = _all(path)
    assert batch.documents.column("source_id").to_pylist() == ["x1"]
    assert batch.skips["bad_csv_row"] == 1
    assert f"{path}: row 2 (line 3): a quote is never closed; line 3 skipped" in batch.messages


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
def test_csv_quote_never_closed_is_counted_not_merged(tmp_path: Path, suffix: str) -> None:
    # a quote opened in one row and never closed would make one document of the rest of the
    # file: every line from it on is counted as skipped and the note names where it opens
    sep = "," if suffix == ".csv" else "\t"
    lines = ["id" + sep + "text", "x1" + sep + "first story", "x2" + sep + '"an open quote',
             "x3" + sep + "third story", "x4" + sep + "fourth story"]
    path = tmp_path / f"q{suffix}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    batch = _all(path)
    assert batch.documents.column("source_id").to_pylist() == ["x1"]
    assert batch.skips["bad_csv_row"] == 3
    assert f"{path}: row 2 (line 3): a quote is never closed; lines 3-5 (3) skipped" in (
        batch.messages
    )
    # a quoted field spanning lines and closed is one row, as before
    path.write_text('id,text\nx1,"two\nlines"\nx2,next\n' if suffix == ".csv"
                    else 'id\ttext\nx1\t"two\nlines"\nx2\tnext\n', encoding="utf-8")
    ok = _all(path)
    assert ok.documents.column("text").to_pylist() == ["two\nlines", "next"]
    assert not ok.skips


def test_parquet() -> None:
    batch = _all(FIXTURES / "docs.parquet")
    rows = {r["source_id"]: r for r in batch.documents.to_pylist()}
    assert set(rows) == {"p1", "p2"}
    assert batch.skips["empty_text"] == 1
    assert rows["p1"]["canonical_url"] == "https://example.com/p1"
    assert rows["p1"]["published_at"] == _utc(2022, 1, 2, 3, 4, 5)
    assert rows["p2"]["published_at"] is None


def test_parquet_batches_and_missing_text_column(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    path = tmp_path / "many.parquet"
    pq.write_table(pa.table({"id": [str(i) for i in range(7)], "body": ["t"] * 7}), path)
    batches = list(read_dump(path, mapping=ColumnMapping(text="body"), batch_rows=3))
    assert [b.documents.num_rows for b in batches] == [3, 3, 1]
    with pytest.raises(ValueError, match="text column"):
        list(read_dump(path))


def test_parquet_dates_python_cannot_hold_do_not_refuse_the_file(tmp_path: Path) -> None:
    """A nanosecond timestamp (as pandas writes), or one past year 9999, is a date to read or
    a counted untrusted date of its row, never an error that refuses the whole file."""
    import pyarrow.parquet as pq

    ns = 1_715_644_800_123_456_789  # 2024-05-14 00:00:00.123456789
    cases = {
        "ns.parquet": pa.array([ns, None], pa.timestamp("ns")),
        "ns_tz.parquet": pa.array([ns, None], pa.timestamp("ns", tz="Europe/Paris")),
        "far_ms.parquet": pa.array([10**15, None], pa.timestamp("ms")),
        "far_date.parquet": pa.array([3_000_000, None], pa.date32()),
    }
    for name, column in cases.items():
        pq.write_table(pa.table({"id": ["a", "b"], "text": ["one text", "two text"],
                                 "published_at": column}), tmp_path / name)
    for name in ("ns.parquet", "ns_tz.parquet"):
        batch = _all(tmp_path / name)
        assert batch.documents.column("published_at").to_pylist() == [
            _utc(2024, 5, 14, 0, 0, 0, 123456), None], name
        assert not batch.skips, name
    for name in ("far_ms.parquet", "far_date.parquet"):
        batch = _all(tmp_path / name)
        assert batch.documents.column("published_at").to_pylist() == [None, None], name
        assert batch.skips == {"date_untrusted": 1}, name
        assert batch.messages[0].startswith(f"{tmp_path / name}: row 1: published_at "), name


def test_parquet_values_of_the_wrong_type_are_named_in_words(tmp_path: Path) -> None:
    import decimal

    import pyarrow.parquet as pq

    pq.write_table(pa.table({
        "id": ["a", "b", "c"],
        "text": pa.array([decimal.Decimal("1.5"), None, None], pa.decimal128(5, 2)),
        "body": ["one text", "two text", "three"],
        "published_at": pa.array([None, 5, None], pa.duration("s")),
        "title": pa.array([None, None, 7_200_000_000], pa.time64("us")),
    }), tmp_path / "d.parquet")
    said = _all(tmp_path / "d.parquet").messages
    assert said[:1] == [f"{tmp_path / 'd.parquet'}: row 1: text is a decimal number, not a "
                        "string: skipped"]
    batch = _all(tmp_path / "d.parquet", mapping=ColumnMapping(text="body"))
    assert [m.split(": ", 2)[2] for m in batch.messages] == [
        "published_at is a duration, not a date: skipped",
        "title is a time of day, not a string: skipped"]


_NAN_ROWS = [
    {"id": "a1", "url": "https://example.org/a1", "title": float("nan"), "author": float("nan"),
     "text": "The Lumen Bridge in Corvallo opened on 14 May 2024."},
    {"id": "a2", "url": float("nan"), "title": "Buses", "published_at": float("nan"),
     "text": "The council approved 12 new buses in March 2023."},
    {"id": "a3", "url": "https://example.org/a3", "title": "Rain", "text": float("nan")},
]
"""Rows as pandas writes them: a missing value is NaN (``NaN`` in JSON, a NaN double in
Parquet); the third misses its text, the one field a document needs."""


def _write_nan_rows(path: Path) -> None:
    if path.suffix == ".json":
        path.write_text(json.dumps(_NAN_ROWS), encoding="utf-8")
        return
    path.write_text("".join(json.dumps(r) + "\n" for r in _NAN_ROWS), encoding="utf-8")


@pytest.mark.parametrize("name", ["docs.jsonl", "docs.json"])
def test_a_nan_field_is_read_as_missing_and_a_nan_text_skips_its_row(tmp_path: Path,
                                                                     name: str) -> None:
    # a NaN title or URL refused the whole row ("title is a number, not a string: skipped")
    path = tmp_path / name
    _write_nan_rows(path)
    assert "NaN" in path.read_text(encoding="utf-8")  # as json.dumps writes a NaN
    batch = _all(path)
    rows = {r["source_id"]: r for r in batch.documents.to_pylist()}
    assert sorted(rows) == ["a1", "a2"]
    assert rows["a1"]["title"] is None
    assert rows["a1"]["author"] is None
    assert rows["a1"]["url"] == "https://example.org/a1"
    assert rows["a2"]["url"] is None
    assert rows["a2"]["title"] == "Buses"
    assert rows["a2"]["published_at"] is None
    assert dict(batch.skips) == {"empty_text": 1}
    unit = {"docs.jsonl": "line 3", "docs.json": "item 3"}[name]
    assert batch.messages == [f"{path}: {unit}: no text (NaN, a missing value): skipped"]


def test_a_parquet_column_of_nan_is_read_as_missing(tmp_path: Path) -> None:
    # a column pandas left all missing is a NaN double column: every row was refused
    import pyarrow.parquet as pq

    nan = float("nan")
    pq.write_table(pa.table({
        "id": ["a1", "a2"],
        "text": ["The Lumen Bridge opened on 14 May 2024.", "Exports rose 12 percent in 2023."],
        "title": pa.array([nan, nan], pa.float64()),
        "url": pa.array([nan, None], pa.float64()),
    }, schema=None), tmp_path / "d.parquet")
    batch = _all(tmp_path / "d.parquet")
    rows = batch.documents.to_pylist()
    assert [(r["source_id"], r["title"], r["url"]) for r in rows] == [("a1", None, None),
                                                                     ("a2", None, None)]
    assert not batch.skips
    assert not batch.messages


def test_unknown_extension_and_bad_arguments(tmp_path: Path) -> None:
    odd = tmp_path / "docs.xlsx"
    odd.write_bytes(b"x")
    with pytest.raises(ValueError, match="unknown dump extension"):
        list(read_dump(odd))
    with pytest.raises(ValueError, match="batch_rows"):
        list(read_dump(FIXTURES / "bad_line.jsonl", batch_rows=0))
    with pytest.raises(FileNotFoundError):
        list(read_dump(tmp_path / "absent.jsonl"))


def test_empty_file_yields_one_empty_batch(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    batches = list(read_dump(path))
    assert len(batches) == 1
    assert batches[0].documents.num_rows == 0


# ------------------------------------------------------------------------------ real corpora


@pytest.mark.shared_data
@pytest.mark.parametrize(
    ("name", "n_rows"),
    [
        ("bbc-news.jsonl", 2225),
        ("climate-fever-wikipedia.jsonl", 1344),
        ("fakenewsnet-v1.jsonl", 420),
        ("wice-dev-articles.jsonl", 349),
        ("reuters21578.jsonl", 19042),
    ],
)
def test_real_corpora_load(name: str, n_rows: int) -> None:
    path = CORPORA / name
    if not path.exists():
        pytest.skip(f"shared data not found: {path}")
    t0 = time.perf_counter()
    batches = list(read_dump(path))
    elapsed = time.perf_counter() - t0
    assert all(b.documents.num_rows <= 5000 for b in batches)
    n_docs = sum(b.documents.num_rows for b in batches)
    skips = sum((b.skips for b in batches), start=__import__("collections").Counter())
    # Every line is a document or a counted skip (fakenewsnet repeats 5 url+text pairs).
    assert n_docs + skips["duplicate_in_batch"] == n_rows
    # real articles hold a few stray C1 control characters: removed and counted, rows kept
    assert set(skips) <= {"duplicate_in_batch", "control_chars_removed"}
    texts_empty = sum(b.documents.column("text").null_count for b in batches)
    assert texts_empty == 0
    if name == "reuters21578.jsonl":
        assert n_docs == 19042
        assert len(batches) == 4
        first = batches[0].documents.slice(0, 1).to_pylist()[0]
        assert first["source_id"] == "reuters-1"
        assert first["published_at"] == _utc(1987, 2, 26, 15, 1, 1)
        assert elapsed < 30  # measured ~0.4 s here; generous for slow CI machines


# ------------------------------------------------------------------------------ common pieces


def test_rows_to_documents_rules() -> None:
    rows = [
        {"url": "https://www.x.com/a/?utm_source=z", "text": "  Hello\x00 world  ", "title": "T"},
        {"url": "https://x.com/a", "text": "Hello world"},  # same canonical URL + same text
        {"source_id": "s1", "text": b"bytes \xe9", "published_at": "2020-01-01",
         "fetched_at": datetime(2020, 1, 2, 3, 4, 5), "http_status": 200, "host": "WWW.Host.org"},
        {"text": ""},
        {"text": None},
    ]
    batch = rows_to_documents(rows, source_kind="web", source_path="p")
    out = batch.documents.to_pylist()
    assert len(out) == 2
    assert batch.skips == {"nul_removed": 1, "duplicate_in_batch": 1, "non_utf8_text": 1,
                           "empty_text": 2}
    assert out[0]["text"] == "Hello world"
    assert out[0]["host"] == "x.com"
    assert out[1]["host"] == "host.org"
    assert out[1]["text"] == "bytes \u00e9"
    assert out[1]["fetched_at"] == _utc(2020, 1, 2, 3, 4, 5)
    assert out[1]["published_at_raw"] == "2020-01-01"
    assert out[1]["http_status"] == 200
    ts_type = batch.documents.schema.field("published_at").type
    assert ts_type.tz == "UTC"
    assert ts_type.unit == "us"
    assert {r["is_snippet_only"] for r in out} == {False}
    with pytest.raises(ValueError, match="not a valid SourceKind"):
        rows_to_documents([{"text": "x"}], source_kind="tweet", source_path=None)
    empty = rows_to_documents([], source_kind="user", source_path=None)
    assert empty.documents.num_rows == 0
    assert empty.documents.schema.equals(DOCUMENTS_SCHEMA)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2016-06-29", _utc(2016, 6, 29)),
        ("2016-06-29T10:00:00Z", _utc(2016, 6, 29, 10)),
        ("2016-06-29 10:00:00+02:00", _utc(2016, 6, 29, 8)),
        ("2016/6/29", _utc(2016, 6, 29)),
        ("2020/1/10 14:33:00", _utc(2020, 1, 10, 14, 33)),
        ("20160629", _utc(2016, 6, 29)),
        ("29 June 2016", _utc(2016, 6, 29)),
        ("June 29, 2016", _utc(2016, 6, 29)),
        ("Wed, 29 Jun 2016 10:00:00 -0500", _utc(2016, 6, 29, 15)),
        (datetime(2016, 6, 29, 10), _utc(2016, 6, 29, 10)),
        (datetime(2016, 6, 29, 10, tzinfo=timezone(timedelta(hours=1))), _utc(2016, 6, 29, 9)),
        (date(2016, 6, 29), _utc(2016, 6, 29)),
        (1467194400, _utc(2016, 6, 29, 10)),
        (1467194400000, _utc(2016, 6, 29, 10)),
        (-1, None),  # the epoch and before it: a placeholder for "no date"
        (0, None),
        pytest.param(10**400, None, id="401-digit-int"),  # no float holds it: OverflowError
        (float("inf"), None),
        ("", None),
        (None, None),
        ("yesterday", None),
        ("2016-02-30", None),
        ("29/06/2016", None),  # day-first or month-first cannot be told: NULL
        ("06/29/2016", None),
        ("0001-01-01", None),
        ("Junk 29, 2016", None),
        (True, None),
        (float("nan"), None),
    ],
)
def test_parse_datetime_is_strict(value: object, expected: datetime | None) -> None:
    assert parse_datetime(value) == expected


@given(st.text(max_size=40))
def test_parse_datetime_never_raises(value: str) -> None:
    got = parse_datetime(value)
    assert got is None or (got.tzinfo is not None and got.utcoffset() == timedelta(0))


@given(st.datetimes(min_value=datetime(1800, 1, 2), max_value=datetime(2199, 12, 30),
                    timezones=st.just(UTC)))
def test_parse_datetime_roundtrips_isoformat(dt: datetime) -> None:
    assert parse_datetime(dt.isoformat()) == dt


def test_detect_kind(tmp_path: Path) -> None:
    assert detect_kind(FIXTURES / "rss_small.xml") == "feed"
    assert detect_kind(FIXTURES / "jsonfeed_11.json") == "feed"
    assert detect_kind(FIXTURES / "truncated.warc") == "warc"
    assert detect_kind(FIXTURES / "docs.csv") == "dump"
    assert detect_kind(FIXTURES / "docs.parquet") == "dump"
    assert detect_kind("x.warc.gz") == "warc"
    assert detect_kind("x.wet") == "warc"
    arr = tmp_path / "a.json"
    arr.write_text('[{"text": "x"}]')
    assert detect_kind(arr) == "dump"
    sniff = {"f1": b"\n<?xml version='1.0'?><rss version='2.0'>", "f2": b"WARC/1.0\r\n",
             "f3": b"PAR1....", "f4": b'{"version": "https://jsonfeed.org/version/1"}'}
    kinds = {}
    for name, head in sniff.items():
        (tmp_path / name).write_bytes(head)
        kinds[name] = detect_kind(tmp_path / name)
    assert kinds == {"f1": "feed", "f2": "warc", "f3": "dump", "f4": "feed"}
    (tmp_path / "gz").write_bytes(gzip.compress(b"WARC/1.0\r\n"))
    assert detect_kind(tmp_path / "gz") == "warc"
    (tmp_path / "mystery").write_bytes(b"hello")
    with pytest.raises(ValueError, match="cannot tell"):
        detect_kind(tmp_path / "mystery")


def test_ingest_path_dispatches() -> None:
    kinds = {}
    for name in ["rss_small.xml", "jsonfeed_11.json", "truncated.warc", "bad_line.jsonl",
                 "docs.parquet"]:
        batch = merge_batches(ingest_path(str(FIXTURES / name)))
        kinds[name] = set(batch.documents.column("source_kind").to_pylist())
    assert kinds == {"rss_small.xml": {"feed"}, "jsonfeed_11.json": {"feed"},
                     "truncated.warc": {"archive"}, "bad_line.jsonl": {"archive"},
                     "docs.parquet": {"archive"}}
    csv_batch = merge_batches(ingest_path(str(FIXTURES / "docs.csv"), mapping=CSV_MAPPING))
    assert csv_batch.documents.num_rows == 3


def test_overlong_line_and_gzip_bomb_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import affidavit.tasks.ingest_dumps as dumps

    monkeypatch.setattr(dumps, "MAX_LINE_BYTES", 1000)
    path = tmp_path / "bomb.jsonl.gz"
    with gzip.open(path, "wb") as fh:
        fh.write(b'{"id": "ok1", "text": "first"}\n')
        fh.write(b"\0" * 5_000_000 + b"\n")  # one huge line, tiny when compressed
        fh.write(b'{"id": "ok2", "text": "second"}\n')
    batch = _all(path)
    assert batch.documents.column("source_id").to_pylist() == ["ok1", "ok2"]
    assert batch.skips["line_too_long"] == 1
    assert "line 2" in batch.messages[0]


def test_truncated_gzip_dump_keeps_rows_before_the_cut(tmp_path: Path) -> None:
    data = gzip.compress(b"".join(
        json.dumps({"id": f"r{i}", "text": f"row {i} " + "x" * 200}).encode() + b"\n"
        for i in range(2000)
    ))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(data[: len(data) // 2])
    batch = _all(path)
    assert 0 < batch.documents.num_rows < 2000
    assert batch.skips["truncated_file"] == 1


def test_overlong_text_keeps_its_beginning_and_is_counted():
    from affidavit.tasks.ingest_common import MAX_TEXT_CHARS, rows_to_documents

    batch = rows_to_documents([{"id": "big", "text": "word " * (MAX_TEXT_CHARS // 4)}],
                              source_kind="archive", source_path="big.jsonl")
    assert batch.skips["text_truncated"] == 1
    assert len(batch.documents.column("text")[0].as_py()) == MAX_TEXT_CHARS
    assert any("big.jsonl: record 0" in m for m in batch.messages)


def test_json_dump_over_the_cap_is_a_counted_skip(tmp_path, monkeypatch):
    import affidavit.tasks.ingest_dumps as dumps

    monkeypatch.setattr(dumps, "MAX_JSON_FILE_BYTES", 100)
    path = tmp_path / "big.json"
    path.write_text("[" + ",".join(f'{{"id": {i}, "text": "some text here"}}'
                                   for i in range(20)) + "]")
    batches = list(dumps.read_dump(path))
    assert sum(b.skips["json_file_too_large"] for b in batches) == 1
    assert sum(b.documents.num_rows for b in batches) == 0


def test_dump_reads_wayback_first_seen_and_host(tmp_path: Path) -> None:
    """A dump's ``wayback_first_seen`` and ``host`` columns reach the documents (edge direction)."""
    path = tmp_path / "d.jsonl"
    rows = [
        {"id": "a", "url": "https://a.example/1", "host": "A.example", "text": "alpha beta",
         "published_at": "2024-07-26T09:00:00+02:00",
         "wayback_first_seen": "2024-07-25T06:00:00Z"},
        {"id": "b", "url": "https://b.example/2", "text": "gamma delta"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    docs = {d["source_id"]: d for d in _all(path).documents.to_pylist()}
    assert docs["a"]["wayback_first_seen"] == _utc(2024, 7, 25, 6)
    assert docs["a"]["host"] == "a.example"
    assert docs["b"]["wayback_first_seen"] is None


# ------------------------------------------------------------- a text field no row has
@pytest.mark.parametrize("name", ["notext.jsonl", "notext.json"])
def test_a_text_field_no_row_has_is_one_refusal_naming_the_keys(tmp_path, name):
    rows = [{"id": f"d{i}", "url": f"https://example.org/{i}", "body": "Exports rose."}
            for i in range(50)]
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in rows) if name.endswith(".jsonl")
                    else json.dumps(rows), encoding="utf-8")
    batches = []
    with pytest.raises(ValueError, match=r"no row has a 'nosuch' field \(the rows have body, "
                       r"id, url; name the text field with --text-column\)") as info:
        batches.extend(read_dump(path, mapping=ColumnMapping(text="nosuch")))
    assert str(info.value).startswith(f"{path}: ")
    batch = merge_batches(batches)
    assert batch.n_documents == 0
    assert batch.messages == []  # not one "empty text" note per row
    # the refusal counts the file once (as a CSV header or a Parquet schema without the column
    # is counted): its rows are not counted again
    assert batch.skips == {}


@pytest.mark.parametrize(("name", "data"), [
    ("one.json", '{"a": 1}'), ("list.json", '[{"a": 1}, {"b": 2}]'),
    ("rows.jsonl", '{"a": 1}\n{"b": 2}\n'), ("rows.csv", "a,b\n1,2\n"),
])
def test_a_dump_no_row_of_which_has_text_is_counted_once(tmp_path, warehouse, name, data):
    from affidavit.flows.context import RunRecord
    from affidavit.flows.stages import ingest_sources

    (tmp_path / name).write_text(data, encoding="utf-8")
    run = RunRecord(warehouse, "backfill_archive", {})
    ingest_sources(warehouse, [str(tmp_path / name)], run=run)
    skips = {k: v for k, v in run.counts.items() if k.startswith("skip:")}
    assert skips == {"skip:source_unreadable": 1}
    assert run.counts["sources_refused"] == 1
    assert len(run.messages) == 1


def test_rows_without_the_text_field_beside_rows_with_it_are_one_counted_note(tmp_path):
    path = tmp_path / "mixed.jsonl"
    lines = [{"id": "a", "text": "Exports rose 12 percent."},
             *({"id": f"b{i}", "body": "no text here", "extra": i} for i in range(30)),
             {"id": "c", "text": "Imports fell 3 percent."}]
    path.write_text("\n".join(json.dumps(r) for r in lines), encoding="utf-8")
    batch = _all(path)
    assert batch.n_documents == 2
    assert batch.skips["no_text_field"] == 30
    assert batch.messages == [f"{path}: 30 of 32 rows have no 'text' field (they have body, "
                              "extra, id): skipped"]


def test_the_keys_named_are_capped(tmp_path):
    path = tmp_path / "wide.jsonl"
    path.write_text(json.dumps({f"k{i:02d}": i for i in range(40)}) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"k11 and 28 more; name") as info:
        _all(path)
    assert len(str(info.value)) < 300


# ------------------------------------------------------------ row numbers in notes, from 1
def test_parquet_csv_and_json_notes_number_rows_from_one(tmp_path):
    import pyarrow.parquet as pq

    rows = [{"id": "a", "text": "Exports rose."}, {"id": "b", "text": ""}]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "d.parquet")
    (tmp_path / "d.csv").write_text("id,text\na,Exports rose.\nb,\n", encoding="utf-8")
    (tmp_path / "d.json").write_text(json.dumps(rows), encoding="utf-8")
    (tmp_path / "d.jsonl").write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    said = {n: _all(tmp_path / n).messages for n in ("d.parquet", "d.csv", "d.json", "d.jsonl")}
    # the second row is the empty one, in every format
    assert said == {"d.parquet": [f"{tmp_path / 'd.parquet'}: row 2: empty text: skipped"],
                    "d.csv": [f"{tmp_path / 'd.csv'}: row 2: empty text: skipped"],
                    "d.json": [f"{tmp_path / 'd.json'}: item 2: empty text: skipped"],
                    "d.jsonl": [f"{tmp_path / 'd.jsonl'}: line 2: empty text: skipped"]}


def test_row_numbers_in_notes_leave_the_doc_ids_of_rows_without_id_as_they_were(tmp_path):
    import pyarrow.parquet as pq

    path = tmp_path / "d.parquet"
    pq.write_table(pa.Table.from_pylist([{"text": "Exports rose."}]), path)
    doc = _all(path).documents.to_pylist()[0]
    # the locator of a row without URL or id is its 0-based position, as stored before
    assert doc["doc_id"] == make_doc_id(f"{path}#0", content_sha256("Exports rose."))


# ------------------------------------------------------------ one list of dump extensions
def _write_rows(path: Path, rows: list[dict[str, str]]) -> None:
    """Write ``rows`` in the format the name of ``path`` gives (gzipped after ``.gz``)."""
    import pyarrow.parquet as pq

    from affidavit.tasks.input_checks import dump_format

    fmt = dump_format(path)
    if fmt == "parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
        return
    if fmt in ("csv", "tsv"):
        sep = "," if fmt == "csv" else "\t"
        data = "\n".join([sep.join(rows[0]), *(sep.join(r.values()) for r in rows)]) + "\n"
    elif fmt == "json":
        data = json.dumps(rows)
    else:
        data = "".join(json.dumps(r) + "\n" for r in rows)
    raw = data.encode("utf-8")
    path.write_bytes(gzip.compress(raw) if path.suffix == ".gz" else raw)


@pytest.mark.parametrize("name", [
    *(f"docs{ext}" for ext in (".jsonl", ".ndjson", ".jsonlines", ".json", ".csv", ".tsv",
                               ".tab", ".parquet")),
    *(f"docs{ext}.gz" for ext in (".jsonl", ".ndjson", ".jsonlines", ".json", ".csv", ".tsv",
                                  ".tab")),
])
def test_every_dump_extension_is_detected_checked_and_read_alike(tmp_path: Path,
                                                                  name: str) -> None:
    from affidavit.tasks.input_checks import DUMP_FORMATS, dump_format, dump_text_fault

    assert dump_format(name) is not None  # the list the checks and the reader share
    assert set(DUMP_FORMATS) >= {name.removesuffix(".gz").removeprefix("docs")}
    path = tmp_path / name
    _write_rows(path, [{"id": "a", "body": "Exports rose."}])
    assert detect_kind(path) == "dump"
    batch = merge_batches(ingest_path(str(path), mapping=ColumnMapping(text="body")))
    assert batch.documents.column("text").to_pylist() == ["Exports rose."]
    with pytest.raises(ValueError, match="'text'"):
        _all(path)
    if dump_format(path) != "json":  # a JSON document is decided by the reader, not up front
        assert "text" in (dump_text_fault(path, "text") or "")


def test_a_name_of_no_dump_extension_is_refused_naming_them_all(tmp_path: Path) -> None:
    path = tmp_path / "docs.parquet.gz"
    path.write_bytes(gzip.compress(b"PAR1"))
    with pytest.raises(ValueError, match=r"unknown dump extension; expected \.jsonl, .*\.tab "
                       r"\(optionally \.gz\), \.parquet"):
        _all(path)


# ------------------------------------------------------------ non-UTF-8 bytes: where
@pytest.mark.parametrize(("name", "data", "where"), [
    ("d.jsonl", b'{"id": "1", "text": "ok"}\n{"id": "2", "text": "caf\xe9"}\n'
                b'{"id": "3", "text": "na\xefve"}\n', "d.jsonl: line 2"),
    ("d.csv", b"id,text,title\n1,ok,t\n2,caf\xe9,na\xefve\n3,na\xefve,t\n", "d.csv: row 2"),
    ("d.json", b'[{"id": "1", "text": "ok"},\n {"id": "2", "text": "caf\xe9"}]', "d.json: line 2"),
])
def test_a_non_utf8_repair_is_noted_where_it_first_is(tmp_path: Path, name: str, data: bytes,
                                                      where: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    batch = _all(path)
    notes = [m for m in batch.messages if "not UTF-8" in m]
    assert notes == [f"{tmp_path}/{where}: bytes that are not UTF-8 read as Windows-1252: kept "
                     "(later such rows are counted, not noted)"]
    # counted once a row (a CSV row with two such fields is one row), once a JSON document
    assert batch.skips["non_utf8_text"] == {"d.jsonl": 2, "d.csv": 2, "d.json": 1}[name]


def test_non_utf8_bytes_of_a_text_column_are_noted_with_their_row() -> None:
    batch = rows_to_documents([{"text": "ok", "_index": 0, "_unit": "row", "_number": 1},
                               {"text": b"caf\xe9", "_index": 1, "_unit": "row", "_number": 2}],
                              source_kind="archive", source_path="d.parquet")
    assert batch.skips["non_utf8_text"] == 1
    assert batch.messages[0].startswith("d.parquet: row 2: bytes that are not UTF-8 read as")


# ------------------------------------------------------------ an id given again, other text
@pytest.mark.parametrize("name", ["d.jsonl", "d.csv", "d.parquet"])
@pytest.mark.parametrize("batch_rows", [1, 100])
def test_an_id_given_again_with_other_text_is_kept_counted_and_noted(tmp_path: Path, name: str,
                                                                     batch_rows: int) -> None:
    rows = [{"id": "7", "text": "Exports rose."}, {"id": "8", "text": "Imports fell."},
            {"id": "7", "text": "Exports rose 12 percent."},  # id 7 again, other text
            {"id": "8", "text": "Imports fell."},  # the same row again: not this note
            {"id": "7", "text": "Exports rose 13 percent."}]
    path = tmp_path / name
    _write_rows(path, rows)
    batch = _all(path, batch_rows=batch_rows)  # across batches as within one
    texts = [r["text"] for r in batch.documents.to_pylist() if r["source_id"] == "7"]
    assert texts == ["Exports rose.", "Exports rose 12 percent.", "Exports rose 13 percent."]
    assert batch.skips["id_repeated_other_text"] == 2
    unit = {"d.jsonl": "line", "d.csv": "row", "d.parquet": "row"}[name]
    assert [m for m in batch.messages if "given before" in m] == [
        f"{path}: {unit} 3: id '7' was given before ({unit} 1) with other text: both kept as "
        "versions (later such rows are counted, not noted)"]


# ------------------------------------------------------------ notes in input order
def _numbers(messages: list[str]) -> list[int]:
    import re

    return [int(re.search(r": (?:line|row|item) (\d+)", m).group(1)) for m in messages]


@pytest.mark.parametrize("batch_rows", [2, 100])
def test_notes_come_in_input_order_whoever_writes_them(tmp_path: Path, batch_rows: int) -> None:
    # the reader's notes (bad lines, repaired bytes) and the rows' notes (empty text, wrong
    # type, untrusted dates) interleave by line, not reader's first
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"id": "1", "text": "ok"}\n'
                     b'{"id": "2", "text": "   "}\n'
                     b"not json\n"
                     b'{"id": "4", "text": ["a list"]}\n'
                     b'{"id": "5", "text": "caf\xe9"}\n'
                     b'{"id": "6", "text": "ok", "published_at": "someday"}\n'
                     b"[1, 2]\n")
    batch = _all(path, batch_rows=batch_rows)
    assert _numbers(batch.messages) == [2, 3, 4, 5, 6, 7]


def test_csv_notes_come_in_input_order(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_bytes(b"id,text\n1,\n2,x,extra\n3,caf\xe9\n4,\n")
    assert _numbers(_all(path).messages) == [1, 2, 3, 4]


def test_a_repeated_row_and_removed_nul_characters_are_noted_where_they_first_are(tmp_path):
    row = {"id": "d1", "text": "The Lumen Bridge in Corvallo opened on 14 May 2024."}
    (tmp_path / "dup.jsonl").write_text((json.dumps(row) + "\n") * 3)
    dup = _all(tmp_path / "dup.jsonl")
    assert dup.skips["duplicate_in_batch"] == 2
    said = [m for m in dup.messages if "the same document as" in m]
    assert len(said) == 1
    assert "line 2: the same document as line 1" in said[0]
    (tmp_path / "nul.csv").write_text("id,text\n1,The bridge\x00 opened in May.\n"
                                      "2,The zoo\x00 welcomed two cubs.\n")
    nul = _all(tmp_path / "nul.csv")
    assert nul.skips["nul_removed"] == 2
    said = [m for m in nul.messages if "NUL characters removed" in m]
    assert len(said) == 1
    assert "row 1" in said[0]
