"""Hostile and malformed input, class by class: each is a counted skip, a NULL with a counted
warning, or a one-line refusal, never a crash or a silently wrong value (inputs written here)."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re

import pytest

from affidavit.tasks.charset import decode_document
from affidavit.tasks.extract import date_is_stated, extract_html
from affidavit.tasks.ingest import ingest_path
from affidavit.tasks.ingest_archive import read_warc
from affidavit.tasks.ingest_common import parse_datetime, rows_to_documents
from affidavit.tasks.ingest_dumps import read_dump
from affidavit.tasks.ingest_feeds import parse_feed
from affidavit.tasks.sanitize import display_text, loads_untrusted_json, strip_control_chars

GOOD = "The harbour council approved a budget of 12 million euros on Tuesday evening."


def _all(batches):
    from affidavit.tasks.ingest_common import merge_batches

    return merge_batches(list(batches))


# ---------------------------------------------------------------- JSON that crashes a parser
def test_jsonl_deep_nesting_huge_integers_and_lone_surrogates_skip_only_their_line(tmp_path):
    path = tmp_path / "hostile.jsonl"
    lines = [
        json.dumps({"id": "ok1", "text": GOOD}),
        '{"id": "deep", "text": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"id": "big", "text": "x", "n": ' + "9" * 5000 + "}",
        '{"id": "sur", "text": "broken \\ud800 surrogate"}',
        json.dumps({"id": "ok2", "text": GOOD + " Again."}),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    batch = _all(read_dump(path))
    assert batch.documents.column("source_id").to_pylist() == ["ok1", "ok2"]
    assert batch.skips["bad_json_line"] == 2
    assert batch.skips["lone_surrogate"] == 1
    assert any("line 2: nested too deeply" in m for m in batch.messages)
    assert any("line 3: unreadable value" in m for m in batch.messages)
    assert any("line 4:" in m and "surrogate" in m for m in batch.messages)


def test_json_array_nested_too_deep_is_a_file_skip_not_a_crash(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 50_000 + "]" * 50_000)
    batch = _all(read_dump(path))
    assert batch.skips["bad_json_file"] == 1
    assert batch.n_documents == 0


def test_loads_untrusted_json_has_one_error_type():
    from affidavit.tasks.sanitize import UntrustedJSONError

    for bad, why in (("{", "not JSON"), ("[" * 10_000, "nested too deeply"),
                     ('{"n": ' + "1" * 5000 + "}", "unreadable value")):
        with pytest.raises(UntrustedJSONError, match=why):
            loads_untrusted_json(bad)


def test_json_error_notes_say_where_once(tmp_path):
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps({"id": "1", "text": GOOD}) + "\n"
                    + '{"id": "2", "text": "a \x01 control"}\n'
                    + '{"id": "3", "text": "never closed}', encoding="utf-8")
    batch = _all(read_dump(path))
    # a raw control character inside a string is removed and counted, the row kept
    assert batch.skips["bad_json_line"] == 1
    assert batch.skips["control_chars_removed"] == 1
    assert any("line 2: 1 control character(s) removed" in m for m in batch.messages)
    notes = [m for m in batch.messages if "not JSON" in m]
    assert any("line 3: not JSON (Unterminated string starting at column 21)" in m
               for m in notes), notes
    assert not any(" at at " in m for m in batch.messages)
    doc = tmp_path / "broken.json"
    doc.write_text('[\n {"id": "1",\n  "text": "never closed}\n]', encoding="utf-8")
    batch = _all(read_dump(doc))
    assert any("not JSON (Unterminated string starting at line 3, column 11)" in m
               for m in batch.messages), batch.messages


def test_a_record_cut_short_is_placed_where_its_text_ends(tmp_path):
    # the decoder points past the line break ("line 2 column 1" of a one-line record): the
    # notes said "column 1" (JSONL) or a line after the last one (JSON)
    from affidavit.tasks.audit import read_sessions
    from affidavit.tasks.claims_file import read_claims_file

    cut = '{"id": "2", "text": "' + GOOD + '"'
    col = len(cut) + 1
    (tmp_path / "d.jsonl").write_text(json.dumps({"id": "1", "text": GOOD}) + "\n" + cut + "\n",
                                      encoding="utf-8")
    (tmp_path / "d.json").write_text('[\n {"id": "1", "text": "x"},\n\n', encoding="utf-8")
    said = f"(Expecting ',' delimiter at column {col}, where the text ends)"
    for notes in (_all(read_dump(tmp_path / "d.jsonl")).messages,
                  read_claims_file(tmp_path / "d.jsonl")[2],
                  read_sessions(tmp_path / "d.jsonl")[2]):
        assert any("line 2: " in m and said in m for m in notes), notes
    col = len(' {"id": "1", "text": "x"},') + 1
    notes = _all(read_dump(tmp_path / "d.json")).messages
    assert any(f"(Expecting value at line 2, column {col}, where the text ends)" in m
               for m in notes), notes


def test_sessions_file_lines_nested_too_deep_are_counted_skips(tmp_path):
    from affidavit.tasks.audit import read_sessions

    path = tmp_path / "sessions.jsonl"
    path.write_text(json.dumps({"id": "a", "answer": GOOD, "evidence": []}) + "\n"
                    + '{"id": "deep", "answer": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
                    + '{"id": "b", "answer": "open string}', encoding="utf-8")
    records, skips, notes = read_sessions(path)
    assert [r.record_id for r in records] == ["a"]
    assert skips["bad_json"] == 2
    assert any("line 2: invalid JSON: nested too deeply" in n for n in notes), notes
    assert any("line 3: invalid JSON: not JSON (Unterminated string starting at column 23)"
               in n for n in notes), notes


# ------------------------------------------------------------------------------ wrong types
@pytest.mark.parametrize(("field", "value"), [
    ("text", 12345), ("text", ["a", "list"]), ("text", {"an": "object"}), ("title", {"x": 1}),
    ("title", [1, 2]), ("url", 7), ("published_at", {"y": 2020}), ("published_at", True),
])
def test_wrong_typed_fields_refuse_the_row(field, value):
    row = {"_index": 3, "_unit": "line", "text": GOOD, field: value}
    batch = rows_to_documents([row, {"text": GOOD + " Second."}], source_kind="archive",
                              source_path="d.jsonl")
    assert batch.n_documents == 1
    assert batch.skips["wrong_type"] == 1
    assert any(m.startswith(f"d.jsonl: line 3: {field}") for m in batch.messages)


# ------------------------------------------------------------------------ control characters
def test_control_characters_are_stripped_and_counted():
    row = {"text": "Line one\x00\x07 and \x1b[2J\x1b[31mred\x1b[0m text.\nSecond line\x9b.",
           "title": "Title\twith\ttabs\x1b]0;evil\x07 and\nnewline", "author": "A\x08B"}
    batch = rows_to_documents([row], source_kind="archive", source_path="c.jsonl")
    doc = batch.documents.to_pylist()[0]
    assert doc["text"] == "Line one and red text.\nSecond line."
    assert doc["title"] == "Title with tabs and newline"
    assert doc["author"] == "AB"
    assert batch.skips["control_chars_removed"] == 1
    assert strip_control_chars("a\x1b[2Jb") == ("ab", 4)


def test_display_cuts_long_fields_and_never_passes_terminal_controls():
    shown = display_text("\x1b[2J\x1b]0;title\x07" + "T" * 600_000 + "\u202eevil", limit=200)
    assert "\x1b" not in shown
    assert "\x07" not in shown
    assert "\u202e" not in shown
    assert shown.endswith("(+599804 chars)")
    assert len(shown) < 230


# ------------------------------------------------------------------------------------ dates
@pytest.mark.parametrize("raw", [
    "Mon, 01 Jan 0001 00:00:00 GMT",   # email.utils reads year 1 as 2001
    "Sat, 01 Jun 2024 12:00 CEST",      # zone abbreviation email.utils reads as UTC
    "2024-06-01 12:00 CEST",
    "Tue, 10 Jun 2003 04:00:00 IST",    # ambiguous abbreviation
    "0001-01-01",
    "yesterday",
])
def test_untrusted_dates_are_null(raw):
    assert parse_datetime(raw) is None


def test_untrusted_dates_are_counted_and_named():
    batch = rows_to_documents([{"text": GOOD, "published_at": "Sat, 01 Jun 2024 12:00 CEST"}],
                              source_kind="feed", source_path="f.xml")
    doc = batch.documents.to_pylist()[0]
    assert doc["published_at"] is None
    assert doc["published_at_raw"] == "Sat, 01 Jun 2024 12:00 CEST"
    assert batch.skips["date_untrusted"] == 1
    assert any("CEST" in m and "NULL" in m for m in batch.messages)
    # zones RFC 822 defines still parse
    assert parse_datetime("Sat, 01 Jun 2024 12:00 EDT").hour == 16


@pytest.mark.parametrize("raw", [-1, 0, pytest.param(10**400, id="401-digit-int"), float("inf"),
                                 253402300800000])
def test_an_epoch_number_that_is_no_date_is_a_counted_null_and_the_row_is_kept(raw):
    # 10**400 raised OverflowError and lost the row (bad_row); -1 was 1969-12-31T23:59:59
    batch = rows_to_documents([{"text": GOOD, "published_at": raw}], source_kind="archive",
                              source_path="d.jsonl")
    doc, = batch.documents.to_pylist()
    assert doc["published_at"] is None
    assert dict(batch.skips) == {"date_untrusted": 1}
    note, = (m for m in batch.messages if "published_at" in m)
    assert note.endswith("is not a date that can be trusted: stored as NULL")
    assert "'" not in note  # a number cut short is not shown as a string


def test_extractor_dates_need_to_be_stated_on_the_page():
    body = "<p>" + (GOOD + " ") * 6 + "</p><p>The company was founded in 1998.</p>"
    page = extract_html(f"<html><body><article>{body}</article></body></html>".encode())
    assert page is not None
    assert page.published_at is None  # trafilatura offers 1998-01-01 from "founded in 1998"
    assert page.date_untrusted == "1998-01-01"
    dated = extract_html(('<html><head><meta property="article:published_time" '
                          'content="2024-03-05T10:00:00Z"></head><body><article>'
                          f"{body}</article></body></html>").encode())
    assert dated.published_at is not None
    assert dated.published_at.date().isoformat() == "2024-03-05"
    assert date_is_stated("Published 5 March 2024", "2024-03-05")
    assert not date_is_stated("In 2024 we grew", "2024-01-01")


# ---------------------------------------------------------------------------------- charset
def test_charset_header_then_bom_then_meta():
    cp = "<meta charset='utf-8'><p>\u201cQuoted\u201d caf\u00e9</p>".encode("cp1252")
    # the header wins over a wrong meta; Latin-1 labels read as Windows-1252
    assert decode_document(cp, content_type="text/html; charset=ISO-8859-1").text.endswith(
        "<p>\u201cQuoted\u201d caf\u00e9</p>")
    # a BOM wins over meta
    bom = b"\xef\xbb\xbf<meta charset='windows-1252'><p>caf\xc3\xa9</p>"
    assert decode_document(bom).text == "<meta charset='windows-1252'><p>caf\u00e9</p>"
    # meta when nothing else
    meta = b"<meta charset='windows-1252'><p>caf\xe9 \x93q\x94</p>"
    assert decode_document(meta).text.endswith("caf\u00e9 \u201cq\u201d</p>")
    # declared UTF-8 but one stray byte: only that byte is replaced, and counted
    stray = "<p>M\u00f6we Z\u00fcrich</p>".encode() + b"<p>Caf\xe9</p>"
    d = decode_document(stray, content_type="text/html; charset=utf-8")
    assert d.text == "<p>M\u00f6we Z\u00fcrich</p><p>Caf\ufffd</p>"
    assert d.n_replaced == 1
    # declared UTF-8, written in Windows-1252 throughout: read as Windows-1252, flagged
    d = decode_document("<p>caf\u00e9 \u00fcber</p>".encode("cp1252"),
                        content_type="text/html; charset=utf-8")
    assert d.text == "<p>caf\u00e9 \u00fcber</p>"
    assert d.declared_wrong


def test_feed_with_one_stray_byte_is_not_mojibake():
    xml = ('<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>t</title>'
           "<item><title>B\u00fchne</title><link>https://x.example/1</link><description>"
           "Die M\u00f6we in Z\u00fcrich.</description></item><item><title>Caf</title>"
           "<link>https://x.example/2</link><description>Das Caf").encode() + (
        b"\xe9 bleibt ge\xc3\xb6ffnet.</description></item></channel></rss>")
    batch = parse_feed(xml, source="f.xml")
    texts = batch.documents.column("text").to_pylist()
    assert texts == ["Die M\u00f6we in Z\u00fcrich.", "Das Caf\ufffd bleibt ge\u00f6ffnet."]
    assert batch.skips["replacement_chars"] == 1


# ------------------------------------------------------------------------------------- feeds
def test_title_only_items_are_kept_and_escaped_cdata_is_unwrapped():
    xml = (b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
           b"<item><title>Ferry fares rise 8 percent</title><link>https://x.example/a</link>"
           b"</item><item><title>b</title><link>https://x.example/b</link><description>"
           b"&lt;![CDATA[&lt;b&gt;Port traffic fell 3 percent.&lt;/b&gt;]]&gt;</description>"
           b"</item></channel></rss>")
    batch = parse_feed(xml, source="f.xml")
    assert batch.documents.column("text").to_pylist() == ["Ferry fares rise 8 percent",
                                                          "Port traffic fell 3 percent."]
    assert batch.skips["title_only_entry"] == 1
    assert batch.skips["escaped_cdata_unwrapped"] == 1


def test_json_feed_prefers_the_fuller_html_body():
    feed = {"version": "https://jsonfeed.org/version/1.1", "items": [{
        "id": "1", "url": "https://x.example/1", "content_text": "Short teaser.",
        "content_html": "<p>Short teaser.</p><p>The full story says the dam holds 40 million "
                        "cubic metres.</p>", "date_updated": "2026-01-02T00:00:00Z"}]}
    doc = parse_feed(json.dumps(feed).encode(), source="f.json").documents.to_pylist()[0]
    assert "40 million cubic metres" in doc["text"]
    assert doc["modified_at"].isoformat().startswith("2026-01-02")


# ------------------------------------------------------------------------------- page cap
def test_truncation_at_the_page_cap_is_flagged():
    html = ("<html><body><article>" + "<p>" + GOOD + "</p>" * 1 + "</article>"
            + "<p>filler</p>" * 2000 + "</body></html>").encode()
    page = extract_html(html, max_bytes=4096)
    assert page is not None
    assert page.truncated
    assert not extract_html(html).truncated


# -------------------------------------------------------------------------------------- WARC
def _warc_record(payload: bytes, *, version: str = "WARC/1.0", digest: str | None = None) -> bytes:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n" + payload
    if digest is None:
        digest = "sha1:" + base64.b32encode(hashlib.sha1(http).digest()).decode()
    head = (f"{version}\r\nWARC-Type: response\r\nWARC-Target-URI: https://x.example/p\r\n"
            f"WARC-Date: 2024-01-01T00:00:00Z\r\nContent-Type: application/http; msgtype=response"
            f"\r\nWARC-Block-Digest: {digest}\r\nContent-Length: {len(http)}\r\n\r\n").encode()
    return head + http + b"\r\n\r\n"


def test_warc_digests_are_checked_and_unknown_versions_counted(tmp_path):
    good = _warc_record(GOOD.encode())
    damaged = _warc_record(b"Tampered " + GOOD.encode(),
                           digest="sha1:" + base64.b32encode(hashlib.sha1(b"x").digest()).decode())
    future = _warc_record((GOOD + " v2").encode(), version="WARC/2.0")
    path = tmp_path / "a.warc"
    path.write_bytes(good + damaged + future)
    batch = _all(read_warc(path))
    assert batch.n_documents == 2
    assert batch.skips["warc_digest_mismatch"] == 1
    assert batch.skips["warc_version_unknown"] == 1


# --------------------------------------------------------------------- empty inputs refused
@pytest.mark.parametrize(("name", "content", "reason"), [
    ("empty.jsonl", b"", "empty_file"),
    ("empty.csv", b"", "empty_file"),
    ("header.csv", b"id,text\n", "empty_file"),
    ("empty.warc", b"", "empty_file"),
    ("empty.warc.gz", gzip.compress(b""), "empty_file"),
])
def test_empty_inputs_are_refused(tmp_path, name, content, reason):
    path = tmp_path / name
    path.write_bytes(content)
    batch = _all(ingest_path(str(path)))
    assert batch.n_documents == 0
    assert batch.skips[reason] == 1
    assert any(m.endswith("refused") for m in batch.messages)


@pytest.mark.parametrize(("name", "said"), [
    ("x.csv", "x.csv: no 'text' column in its header (it has id, body; name the text column "
     "with --text-column)"),
    ("x.parquet", "x.parquet: no 'text' column in its Parquet schema (it has id, body; name the "
     "text column with --text-column)"),
    ("blank.csv", 'blank.csv: no \'text\' column in its header (it has "", ""; name the text '
     "column with --text-column)"),
    ("binary.csv", "binary.csv: not text (binary data): a CSV dump is text, one row a line"),
])
def test_missing_text_column_is_one_clear_line_as_the_up_front_check_says(tmp_path, name, said):
    # the reader's line (a note when another input is read) is the up-front check's, word for
    # word: the columns found and the option, no list or mapping repr
    import pyarrow as pa
    import pyarrow.parquet as pq

    from affidavit.tasks.input_checks import dump_text_fault

    path = tmp_path / name
    if name == "x.parquet":
        pq.write_table(pa.table({"id": ["1"], "body": ["hello"]}), path)
    elif name == "binary.csv":
        path.write_bytes(bytes(range(256)) * 4)
    else:
        path.write_text("id,body\n1,hello\n" if name == "x.csv" else ",\n1,2\n")
    with pytest.raises(ValueError, match=f"^{re.escape(f'{tmp_path}/{said}')}$"):
        _all(ingest_path(str(path)))
    assert dump_text_fault(path, "text") == f"{tmp_path}/{said}"


def test_a_file_that_cannot_be_read_does_not_stop_the_files_after_it(tmp_path, warehouse):
    from affidavit.flows.context import RunRecord
    from affidavit.flows.stages import ingest_sources

    (tmp_path / "a.jsonl").write_text('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    (tmp_path / "b.jsonl").write_bytes(b"\x00\xff" * 10)
    (tmp_path / "c.jsonl").write_text(json.dumps({"id": "c", "text": GOOD}) + "\n")
    run = RunRecord(warehouse, "test", {})
    added = ingest_sources(warehouse, [str(tmp_path / "missing.jsonl"), str(tmp_path),
                                       str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                                       str(tmp_path / "c.jsonl")], run=run)
    assert len(added) == 1
    assert run.counts["sources_refused"] == 4
    assert run.counts["documents_read"] == 1
    assert all("\n" not in m for m in run.messages)
    assert any("missing.jsonl: no such file: refused" in m for m in run.messages)
    # a file whose every record was skipped is named, with why
    assert any(m.startswith(f"{tmp_path / 'a.jsonl'}: refused: no record of it held a "
                            "document (skipped: ") for m in run.messages)


def test_claims_file_hostile_lines_are_counted(tmp_path):
    from affidavit.tasks.claims import read_claims_file

    path = tmp_path / "claims.jsonl"
    path.write_text("\n".join([
        json.dumps({"claim": GOOD}),
        '{"claim": ' + "[" * 50_000 + "]" * 50_000 + "}",
        '{"claim": 1' + "0" * 5000 + "}",
        '{"claim": "lone \\udc00 surrogate"}',
        json.dumps({"claim": 42}),
        json.dumps({"claim": "Escape \u001b[2J in a claim about 12 ferries."}),
    ]) + "\n")
    rows, skips, _ = read_claims_file(path)
    assert [r["text"] for r in rows] == [GOOD, "Escape in a claim about 12 ferries."]
    assert skips["bad_json"] == 2
    assert skips["lone_surrogate"] == 1
    assert skips["wrong_type"] == 1


def test_claims_file_stray_byte_is_repaired_and_its_line_named(tmp_path):
    from affidavit.tasks.claims import read_claims_file

    path = tmp_path / "claims.jsonl"
    path.write_bytes(json.dumps({"claim": "Z\u00fcrich opened 3 bridges in 2024."},
                                ensure_ascii=False).encode() + b"\n"
                     + b'{"claim": "Caf\xe9 prices rose 5 percent in 2023."}\n')
    rows, skips, messages = read_claims_file(path)
    assert [r["text"] for r in rows] == ["Z\u00fcrich opened 3 bridges in 2024.",
                                         "Caf\u00e9 prices rose 5 percent in 2023."]
    assert skips["non_utf8_text"] == 1
    assert any("read as Windows-1252 (first on line 2)" in m for m in messages)


def test_claims_file_bidi_overrides_leave_the_stored_claim(tmp_path):
    from affidavit.tasks.claims import read_claims_file

    path = tmp_path / "claims.csv"
    path.write_text("claim\nThe tariff rose \u202e5 percent\u202c in 2023.\n", encoding="utf-8")
    rows, skips, _ = read_claims_file(path)
    assert [r["text"] for r in rows] == ["The tariff rose 5 percent in 2023."]
    assert skips["control_chars_removed"] == 1


def test_a_symlink_loop_among_inputs_is_refused_as_a_loop(tmp_path, warehouse):
    from affidavit.flows.context import RunRecord
    from affidavit.flows.stages import ingest_sources

    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    (tmp_path / "c.jsonl").write_text(json.dumps({"id": "c", "text": GOOD}) + "\n")
    run = RunRecord(warehouse, "test", {})
    added = ingest_sources(warehouse, [str(loop), str(tmp_path / "c.jsonl")], run=run)
    assert len(added) == 1
    assert run.counts["sources_refused"] == 1
    assert f"{loop}: symlink loop: refused" in run.messages


@pytest.mark.parametrize(("name", "content"), [
    ("docs.jsonl.gz", b'{"id": "1", "text": "Exports rose."}\n'),
    ("docs.csv.gz", b"id,text\n1,Exports rose.\n"),
    ("feed.xml.gz", b"<rss><channel><item><title>x</title></item></channel></rss>"),
    ("crawl.warc.gz", b"WARC/1.0\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n"),
])
def test_a_gz_name_on_bytes_that_are_not_gzip_is_refused_not_read_as_text(tmp_path, name,
                                                                          content):
    from affidavit.tasks.input_checks import input_file_fault

    path = tmp_path / name
    path.write_bytes(content)
    said = "not gzip data: the name ends in .gz but the file does not start with gzip's bytes"
    with pytest.raises(ValueError, match=f"^{re.escape(f'{path}: {said}')}"):
        list(ingest_path(str(path)))
    assert input_file_fault(path).startswith(said)  # and up front, before anything starts
    path.write_bytes(gzip.compress(content))  # the same bytes gzipped are read
    list(ingest_path(str(path)))


def test_windows_1252_punctuation_read_as_c1_controls_is_repaired():
    # "we\x92ve": a curly apostrophe decoded as Latin-1 upstream; kept as the character it was
    row = {"text": "Droughts have not changed since we\x92ve used \x93fossil\x94 fuels \x96 "
                   "a claim.\x9b2J", "title": "Caf\x92s"}
    batch = rows_to_documents([row], source_kind="archive", source_path="c.jsonl")
    doc = batch.documents.to_pylist()[0]
    assert doc["text"] == "Droughts have not changed since we’ve used “fossil” fuels – a claim.2J"
    assert doc["title"] == "Caf’s"
    assert batch.skips["control_chars_removed"] == 1
