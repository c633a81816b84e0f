"""Rules every reader of user files shares: repeated CSV columns, text decoding, file names."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from affidavit.flows.cli import app
from affidavit.tasks.claims_file import read_claims_file
from affidavit.tasks.ingest_common import ColumnMapping
from affidavit.tasks.ingest_dumps import read_dump


@pytest.fixture
def no_prefect(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # port 9: refused


def _dump(path: Path, **kw) -> tuple[list[dict], dict, list[str]]:
    rows, skips, notes = [], {}, []
    for batch in read_dump(path, **kw):
        rows += batch.documents.to_pylist()
        for k, v in batch.skips.items():
            skips[k] = skips.get(k, 0) + v
        notes += batch.messages
    return rows, skips, notes


# -- a column named twice in a CSV/TSV header ---------------------------------------------------

@pytest.mark.parametrize(("header", "mapping", "said"), [
    ("id,text,text", ColumnMapping(), "the text column 'text' appears 2 times"),
    ("id,id,text", ColumnMapping(), "the id column 'id' appears 2 times"),
    ("key,body,body", ColumnMapping(id="key", text="body"), "the text column 'body'"),
])
def test_a_dump_repeating_a_column_it_reads_is_refused(tmp_path, header, mapping, said):
    path = tmp_path / "docs.csv"
    path.write_text(f"{header}\n1,first text of the row,second text of the row\n",
                    encoding="utf-8")
    with pytest.raises(ValueError, match=said):
        _dump(path, mapping=mapping)


def test_a_dump_repeating_a_column_it_does_not_read_is_noted(tmp_path):
    path = tmp_path / "docs.tsv"
    path.write_text("id\ttext\tx\tx\n1\tThe text of the row.\ta\tb\n", encoding="utf-8")
    rows, _, notes = _dump(path)
    assert [r["text"] for r in rows] == ["The text of the row."]
    assert any("column 'x' appears more than once in its header (not read" in n for n in notes)


def test_a_claims_file_repeating_its_claim_column_is_refused(tmp_path):
    path = tmp_path / "claims.csv"
    path.write_text("id,claim,claim\n1,The bridge opened in 2024.,It did not.\n",
                    encoding="utf-8")
    with pytest.raises(ValueError, match="the claim text column 'claim' appears 2 times"):
        read_claims_file(path)


def test_a_claims_file_repeating_an_unread_column_is_noted(tmp_path):
    path = tmp_path / "claims.csv"
    path.write_text("id,claim,x,x\n1,The bridge opened in 2024.,a,b\n", encoding="utf-8")
    rows, _, notes = read_claims_file(path)
    assert [r["text"] for r in rows] == ["The bridge opened in 2024."]
    assert any("column 'x' appears more than once" in n for n in notes)


@pytest.mark.parametrize(("command", "body"), [
    (["backfill"], "id,text,text\n1,first text,second text\n"),
    (["origins"], "id,text,text\n1,first text,second text\n"),
    (["run", "--claims"], "id,claim,claim\n1,The bridge opened in 2024.,It did not.\n"),
])
def test_a_repeated_column_is_refused_before_prefect(no_prefect, tmp_path, command, body):
    path = tmp_path / "in.csv"
    path.write_text(body, encoding="utf-8")
    res = CliRunner().invoke(app, [*command, str(path), "--home", str(tmp_path / "h")])
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert "appears 2 times in its header" in lines[0]
    assert not (tmp_path / "h").exists()


# -- one text decoding for every reader ---------------------------------------------------------

CP1252_TEXT = "Caf\u00e9 prices rose \u201c5 percent\u201d in 2023."
"""A claim whose non-ASCII characters all exist in Windows-1252 (é and curly quotes)."""


def _texts_read_by_every_reader(tmp_path: Path, encode) -> dict[str, str]:
    """The text each reader of user files gets from the same content, in files encoded so."""
    from affidavit.tasks.audit import read_sessions, record_from_files

    out = {}
    for name, body in [("c.jsonl", f'{{"claim": "{CP1252_TEXT}"}}\n'),
                       ("c.csv", f'id,claim\n1,"{CP1252_TEXT}"\n')]:
        (tmp_path / name).write_bytes(encode(body))
        rows, _, _ = read_claims_file(tmp_path / name)
        out[f"claims {name}"] = rows[0]["text"]
    for name, body in [("d.jsonl", f'{{"id": "1", "text": "{CP1252_TEXT}"}}\n'),
                       ("d.json", f'[{{"id": "1", "text": "{CP1252_TEXT}"}}]'),
                       ("d.csv", f'id,text\n1,"{CP1252_TEXT}"\n'),
                       ("d.tsv", f'id\ttext\n1\t{CP1252_TEXT}\n')]:
        (tmp_path / name).write_bytes(encode(body))
        rows, _, _ = _dump(tmp_path / name)
        out[f"dump {name}"] = rows[0]["text"]
    (tmp_path / "s.jsonl").write_bytes(encode(
        f'{{"id": "1", "answer": "{CP1252_TEXT}", "evidence": []}}\n'))
    out["sessions"] = read_sessions(tmp_path / "s.jsonl")[0][0].answer
    (tmp_path / "answer.txt").write_bytes(encode(CP1252_TEXT))
    (tmp_path / "evidence.txt").write_bytes(encode(CP1252_TEXT))
    rec = record_from_files(tmp_path / "answer.txt", [tmp_path / "evidence.txt"])
    out["answer file"], out["evidence file"] = rec.answer, rec.evidence[0].output
    return out


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "utf-32", "cp1252"])
def test_every_reader_decodes_a_file_alike(tmp_path, encoding):
    texts = _texts_read_by_every_reader(tmp_path, lambda s: s.encode(encoding))
    assert texts == dict.fromkeys(texts, CP1252_TEXT)


def test_bytes_not_utf8_in_a_utf8_file_are_read_as_windows_1252_and_noted(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"claim": "The bridge opened in 2024."}\n'
                     + f'{{"claim": "{CP1252_TEXT}"}}\n'.encode("cp1252"))
    rows, skips, notes = read_claims_file(path)
    assert rows[1]["text"] == CP1252_TEXT
    assert skips["non_utf8_text"] == 3
    assert any("read as Windows-1252 (first on line 2)" in n for n in notes)


def test_a_utf16_dump_passes_the_up_front_checks(tmp_path):
    from affidavit.tasks.input_checks import check_claims_file, dump_text_fault, input_file_fault

    path = tmp_path / "d.csv"
    path.write_bytes("id,text\n1,Z\u00fcrich opened a bridge.\n".encode("utf-16"))
    assert input_file_fault(path) is None
    assert dump_text_fault(path, "text") is None
    check_claims_file(path)  # raises when refused


# -- control characters do not make a text binary -----------------------------------------------

def _verify(path: Path, home: Path):
    return CliRunner().invoke(app, ["verify", "--file", str(path), "--home", str(home)])


def test_verify_reads_a_text_with_a_few_control_characters(no_prefect, monkeypatch, tmp_path):
    # a search service configured (never reached): an empty home is then no refusal
    monkeypatch.setenv("AFFIDAVIT_SEARXNG_URL", "http://127.0.0.1:9")
    path = tmp_path / "t.txt"
    path.write_bytes(b"Paris has\x01\x02\x03 2 million people.\x0c\n")
    res = _verify(path, tmp_path / "h")
    assert "not text" not in res.output
    assert "verify: starting" in res.output  # past the checks of the input


@pytest.mark.parametrize("data", [
    b"P\x00a\x00r\x00i\x00s\x00 \x00i\x00s\x00 \x00b\x00i\x00g\x00",  # UTF-16 without its mark
    bytes(range(256)) * 8,
])
def test_verify_still_refuses_nul_heavy_or_binary_data(no_prefect, tmp_path, data):
    path = tmp_path / "t.bin"
    path.write_bytes(data)
    res = _verify(path, tmp_path / "h")
    assert res.exit_code == 1
    assert "not text" in res.output
    assert ("UTF-16" in res.output) == (data[1:2] == b"\x00")  # said as what it is
    assert not (tmp_path / "h").exists()


# -- a file given as a feed that is not one -----------------------------------------------------

@pytest.mark.parametrize(("name", "body", "said"), [
    ("docs.jsonl", '{"id": "1", "text": "A."}\n{"id": "2", "text": "B."}\n', "is JSON Lines"),
    ("one.jsonl", '{"claim": "The bridge opened in 2024."}\n', "is JSON Lines"),
    ("docs.json", '[{"id": "1", "text": "A."}]', "is a JSON list"),
    ("docs.json", '{"data": [{"id": "1", "text": "A."}]}', "is a JSON object without an 'items'"),
])
def test_json_that_is_not_a_feed_is_said_as_what_it_is(no_prefect, tmp_path, name, body, said):
    from affidavit.tasks.ingest_feeds import parse_feed

    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    res = CliRunner().invoke(app, ["run", "--feed", str(path), "--home", str(tmp_path / "h")])
    assert res.exit_code == 1
    line = res.output.strip()
    assert line.startswith(f"error: {path}: {said}")
    assert "not an RSS/Atom/JSON Feed document" in line
    assert "use backfill" in line
    assert "not JSON" not in line
    assert not (tmp_path / "h").exists()
    # the same words for a feed URL that serves it (the parser's note)
    batch = parse_feed(body.encode(), source=f"https://x.example/{name}")
    assert batch.skips["not_a_feed"] == 1
    assert said in batch.messages[0]


# -- the same dump given twice --------------------------------------------------------------------

def test_a_dump_given_twice_is_noted_and_counted(tmp_path):
    import gzip

    from affidavit.tasks.ingest import ingest_path
    from affidavit.tasks.ingest_common import IngestTally

    body = "".join(f'{{"id": "{i}", "text": "Story number {i} is here."}}\n' for i in range(3))
    plain = tmp_path / "docs.jsonl"
    plain.write_text(body, encoding="utf-8")
    packed = tmp_path / "docs.jsonl.gz"
    packed.write_bytes(gzip.compress(body.encode()))
    other = tmp_path / "other.jsonl"
    other.write_text('{"id": "9", "text": "Another story."}\n', encoding="utf-8")
    tally = IngestTally()
    for source in (str(plain), str(other), str(packed)):
        tally.begin(source)
        for batch in ingest_path(source):
            tally.add(batch)
        tally.end(source, None)
    assert tally.counts["documents_read"] == 7
    assert tally.counts["skip:repeats_earlier_input"] == 3
    assert tally.counts["sources_refused"] == 0
    assert [m for m in tally.messages if "repeat" in m] == [
        f"{packed}: 3 of its 3 document(s) repeat documents of {plain}, read before in this "
        "run (the same file given twice?): counted once"]


# -- notes name a file as it was given ------------------------------------------------------------

@pytest.mark.parametrize(("name", "body"), [
    ("mix.jsonl", 'not json\n{"id": "1", "text": "   "}\n'),
    ("mix.csv", 'id,text\n1,"   "\n2,a,b\n'),
    ("mix.json", '[1, {"id": "1", "text": "   "}]'),
])
def test_reader_and_row_notes_name_the_file_alike(tmp_path, monkeypatch, name, body):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / name).write_text(body, encoding="utf-8")
    given = f"in/{name}"
    _, _, notes = _dump(Path(given))
    assert len(notes) == 2  # one of the reader, one of a row (its empty text)
    assert all(n.startswith(f"{given}: ") for n in notes), notes
    (tmp_path / "in" / "c.csv").write_text('claim\n"  "\nIt rose.,x\nIt fell.\n',
                                               encoding="utf-8")
    _, _, notes = read_claims_file("in/c.csv")
    file_notes = [n for n in notes if not n.startswith("claims read from column")]
    assert len(file_notes) == 2
    assert all(n.startswith("in/c.csv: line ") for n in file_notes), file_notes


def test_verify_removes_control_characters_as_the_readers_do(tmp_path, monkeypatch):
    import affidavit.flows.analyst as analyst
    from affidavit.flows import cli

    seen: list[str] = []
    monkeypatch.setattr(analyst, "verify", lambda body, **_: seen.append(body))
    monkeypatch.setattr(cli, "_run_research", lambda fn, **_: fn(None, None))
    monkeypatch.setenv("AFFIDAVIT_SEARXNG_URL", "http://127.0.0.1:9")  # no refusal up front
    path = tmp_path / "t.txt"
    path.write_bytes(b"The Lumen Bridge in Corvallo opened\x07 on 14 May 2024.\x1b[31m Northwind "
                     b"Robotics reported revenue of 42 million dollars.\n")
    res = CliRunner().invoke(app, ["verify", "--file", str(path), "--home", str(tmp_path / "h")])
    assert res.exit_code == 0, res.output
    assert seen == ["The Lumen Bridge in Corvallo opened on 14 May 2024. Northwind Robotics "
                    "reported revenue of 42 million dollars.\n"]
    assert "6 control character(s) removed or repaired" in res.output


@pytest.mark.parametrize(("name", "body", "said"), [
    ("list.json", "[]", "holds no rows (an empty JSON list)"),
    ("s.json", '"just a string"', "the JSON document is a string, not a list of records"),
    ("h.csv", "id,text\n", "holds no rows (a header line only)"),
])
@pytest.mark.parametrize("command", ["backfill", "origins"])
def test_a_dump_of_no_row_is_refused_before_prefect(no_prefect, tmp_path, name, body, said,
                                                    command):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    res = CliRunner().invoke(app, [command, str(path), "--home", str(tmp_path / "h")])
    assert res.exit_code == 1, res.output
    assert said in res.output
    assert "starting" not in res.output
    assert not (tmp_path / "h").exists()


def test_a_claims_file_named_gz_that_is_not_gzip_is_said_as_backfill_says_it(no_prefect,
                                                                             tmp_path):
    path = tmp_path / "fake.jsonl.gz"
    path.write_text('{"claim": "The Lumen Bridge opened in 2024."}\n', encoding="utf-8")
    res = CliRunner().invoke(app, ["run", "--claims", str(path), "--home", str(tmp_path / "h")])
    assert res.exit_code == 1, res.output
    assert "not gzip data: the name ends in .gz" in res.output
    assert "Not a gzipped file" not in res.output


def test_a_sessions_file_that_is_a_json_string_is_refused_up_front(no_prefect, tmp_path):
    path = tmp_path / "sess.json"
    path.write_text('"just a string"', encoding="utf-8")
    res = CliRunner().invoke(app, ["audit", "--sessions", str(path), "--home",
                                   str(tmp_path / "h")])
    assert res.exit_code == 1, res.output
    assert res.output.startswith("error: ")
    assert "holds neither a list nor an object of records" in res.output
    assert not (tmp_path / "h").exists()


@pytest.mark.parametrize(("name", "data"), [
    ("docs.jsonl", b'{"claim": "The Lumen Bridge opened in 2024."}\n'),
    ("page.xml", b"<html><body>not a feed</body></html>"),
])
def test_a_refused_feed_input_is_noted_once_in_feed_words(name, data):
    from affidavit.tasks.ingest_common import IngestTally
    from affidavit.tasks.ingest_feeds import parse_feed

    tally = IngestTally()
    tally.begin(name)
    tally.add(parse_feed(data, source=name))
    tally.end(name, None)
    assert len(tally.messages) == 1, tally.messages
    assert tally.messages[0].endswith(": refused")
    assert "no record of it held a document" not in tally.messages[0]
    assert tally.counts["sources_refused"] == 1


@pytest.mark.parametrize(("args", "files"), [
    (["run", "--claims", "./x.csv"], {"x.csv": b""}),
    (["run", "--claims", "./x.csv"], {"x.csv": b"id,body\n1,Prices rose.\n"}),
    (["run", "--claims", "./x.csv"], {"x.csv": bytes(range(256)) * 8}),
    (["run", "--claims", "./x.json"], {"x.json": b"[]"}),
    (["run", "--claims", "./x/"], {"x/y": b""}),
    (["audit", "--sessions", "./x.jsonl"], {"x.jsonl": b'{"id": 1}\n'}),
    (["audit", "--sessions", "./x.json"], {"x.json": b'"a string"'}),
    (["audit", "./x.txt"], {"x.txt": b"  \n"}),
    (["audit", "a.txt", "--evidence", ".//x.txt"], {"a.txt": b"It passed.", "x.txt": b"\0" * 9}),
])
def test_a_refusal_names_the_file_as_it_was_typed(no_prefect, tmp_path, monkeypatch, args, files):
    monkeypatch.chdir(tmp_path)
    for rel, data in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    typed = next(a for a in args if "/x" in a)  # "./x.csv" (a Path would print "x.csv")
    res = CliRunner().invoke(app, [*args, "--home", str(tmp_path / "h")])
    assert res.exit_code == 1, res.output
    assert f"error: {typed}: " in res.output or f"{typed!r}" in res.output, res.output


def test_claims_file_notes_name_the_file_as_it_was_typed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.jsonl").write_text('not json\n{"claim": " "}\n{"claim": "It rose."}\n',
                                      encoding="utf-8")
    _, _, notes = read_claims_file("./c.jsonl")
    file_notes = [n for n in notes if not n.startswith("claims read from column")]
    assert len(file_notes) == 2
    assert all(n.startswith("./c.jsonl: line ") for n in file_notes), file_notes


# -- a raw control character inside a JSON string -----------------------------------------------

def test_a_raw_tab_or_nul_inside_a_json_string_keeps_its_row(tmp_path):
    claims = tmp_path / "c.jsonl"
    claims.write_bytes(b'{"claim": "The Harle\ttower closed in 2024."}\n'
                       b'{"claim": "The Harle pool reopened\x00 in May 2025."}\n')
    rows, skips, _ = read_claims_file(claims)
    assert [r["text"] for r in rows] == ["The Harle tower closed in 2024.",
                                        "The Harle pool reopened in May 2025."]
    assert skips["control_chars_removed"] == 1  # the NUL (a tab is whitespace)
    dump = tmp_path / "d.jsonl"
    dump.write_bytes(b'{"id": "a", "text": "The Harle pool reopened\x00 in May 2025 after '
                     b'repairs."}\n{"id": "b", "text": "The Harle\ttower closed in 2024 after a '
                     b'storm."}\n')
    docs, dskips, _ = _dump(dump)
    assert {d["text"] for d in docs} == {  # a document keeps its tab as written
        "The Harle pool reopened in May 2025 after repairs.",
        "The Harle\ttower closed in 2024 after a storm."}
    assert not dskips.get("bad_json_line")
