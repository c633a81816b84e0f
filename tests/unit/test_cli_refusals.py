"""Bad inputs refused up front: one line, exit 1, before Prefect starts, nothing written.

``PREFECT_API_URL`` points at a closed port, so a command that reached Prefect would fail
differently ("Failed to reach API") and quickly, instead of starting a local server.
"""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from affidavit.flows.cli import app

BINARY = bytes(range(256)) * 64
"""Every byte value: what an image, an archive or a compiled file looks like to a text reader."""


@pytest.fixture
def no_prefect(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # port 9: refused


def _refused(args: list[str], home: Path) -> str:
    res = CliRunner().invoke(app, [*args, "--home", str(home)])
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith("error: ")
    assert "Failed to reach API" not in res.output
    assert not home.exists()  # neither the home nor Prefect's folder was created
    return lines[0]


def test_run_with_a_missing_claims_file_is_refused_before_prefect(no_prefect, tmp_path):
    line = _refused(["run", "--claims", str(tmp_path / "missing.jsonl")], tmp_path / "h")
    assert "missing.jsonl: no such file" in line


@pytest.mark.parametrize("name", ["claims.jsonl", "claims.csv", "claims.json.gz"])
def test_run_with_a_binary_claims_file_is_refused_before_prefect(no_prefect, tmp_path, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress(BINARY) if name.endswith(".gz") else BINARY)
    line = _refused(["run", "--claims", str(path)], tmp_path / "h")
    assert f"{name}: not text" in line


def test_run_with_a_claims_file_of_another_extension_is_refused_before_prefect(no_prefect,
                                                                                tmp_path):
    path = tmp_path / "claims.xlsx"
    path.write_bytes(BINARY)
    assert "unsupported claims file format" in _refused(["run", "--claims", str(path)],
                                                        tmp_path / "h")


@pytest.mark.parametrize(("command", "name", "data", "said"), [
    (["run", "--claims"], "claims.txt", b"", "claims.txt: empty: a claims file holds one claim"),
    (["run", "--claims"], "claims.txt", b"\n \n", "claims.txt: empty: a claims file holds"),
    (["audit", "--sessions"], "sessions.txt", b"", "sessions.txt: empty: a sessions file holds"),
    (["audit", "--sessions"], "sessions.parquet", b"", "sessions.parquet: empty: a sessions "),
    (["run", "--claims"], "claims.txt", b"The bridge opened.\n",
     "unsupported claims file format '"),
])
def test_an_empty_input_is_said_empty_whatever_its_extension(no_prefect, tmp_path, command, name,
                                                             data, said):
    # an empty claims.txt was "unsupported claims file format", an empty sessions.parquet
    # "not a Parquet file": an empty file holds nothing in any format
    (tmp_path / name).write_bytes(data)
    assert said in _refused([*command, str(tmp_path / name)], tmp_path / "h")


@pytest.mark.parametrize(("name", "said"), [
    ("sessions.bin", "unsupported sessions file '"),
    ("sessions.jsonl", "sessions.jsonl: not text"),
    ("sessions.parquet", "sessions.parquet: not a Parquet file"),
])
def test_audit_with_an_unreadable_sessions_file_is_refused_before_prefect(no_prefect, tmp_path,
                                                                          name, said):
    path = tmp_path / name
    path.write_bytes(BINARY)
    assert said in _refused(["audit", "--sessions", str(path)], tmp_path / "h")


def test_audit_with_binary_evidence_is_refused_naming_the_file(no_prefect, tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text("All 12 tests pass.\n", encoding="utf-8")
    good = tmp_path / "pytest.txt"
    good.write_text("11 passed, 1 failed in 0.52s\n", encoding="utf-8")
    blob = tmp_path / "blob.bin"
    blob.write_bytes(BINARY)
    line = _refused(["audit", str(answer), "--evidence", str(good), "--evidence", str(blob)],
                    tmp_path / "h")
    assert f"{blob}: not text" in line
    assert "evidence" in line
    line = _refused(["audit", str(blob), "--evidence", str(good)], tmp_path / "h")
    assert "answer" in line


def test_record_from_files_refuses_binary_evidence(tmp_path):
    from affidavit.tasks.audit import record_from_files

    answer = tmp_path / "answer.txt"
    answer.write_text("All 12 tests pass.\n", encoding="utf-8")
    blob = tmp_path / "blob.bin"
    blob.write_bytes(BINARY)
    with pytest.raises(ValueError, match="not text"):
        record_from_files(answer, [blob])


@pytest.mark.parametrize("data", [
    "claim\nLe pont de Lumen a ouvert le 14 mai 2024 à Corvallo, près du lycée.\n".encode("cp1252"),
    '{"claim": "Die Brücke wurde am 14. Mai 2024 eröffnet."}\n'.encode("utf-16"),
    '{"claim": "Die Brücke wurde am 14. Mai 2024 eröffnet."}\n'.encode(),
])
def test_claims_files_in_other_encodings_are_not_taken_for_binary(tmp_path, data):
    from affidavit.tasks.input_checks import check_claims_file

    path = tmp_path / ("claims.csv" if data.startswith(b"claim") else "claims.jsonl")
    path.write_bytes(data)
    check_claims_file(path)  # no error


def test_checks_read_only_the_head_of_a_file(tmp_path):
    from affidavit.tasks.input_checks import check_sessions_file

    path = tmp_path / "sessions.jsonl"
    with path.open("wb") as fh:
        fh.write(b'{"id": "1", "answer": "ok", "evidence": []}\n' * 2000)
        fh.write(BINARY)  # past the sniffed head: found later, as counted bad lines
    assert os.path.getsize(path) > 65_536
    check_sessions_file(path)


@pytest.mark.parametrize("command", [["backfill"], ["run", "--feed"]])
def test_inputs_that_all_do_not_exist_are_refused_before_prefect(no_prefect, tmp_path, command):
    line = _refused([*command, str(tmp_path / "missing.xml")], tmp_path / "h")
    assert "missing.xml: no such file" in line


def test_a_missing_input_beside_a_readable_one_is_left_to_the_run(tmp_path):
    from affidavit.flows.cli import _check_some_input_exists

    good = tmp_path / "docs.jsonl"
    good.write_text('{"id": "1", "text": "x"}\n', encoding="utf-8")
    _check_some_input_exists([str(good), str(tmp_path / "missing.jsonl")])  # no refusal
    _check_some_input_exists(["https://example.org/feed.xml"])  # a URL is polled, not checked


@pytest.mark.parametrize(("name", "data", "extra", "said"), [
    ("claims.jsonl", '{"foo": "Grain exports rose 12 percent"}\n', [],
     "no claim text column among its keys (foo)"),
    ("claims.json", '{"a": 1}', [], "no claim text column among its keys (a)"),
    ("claims.csv", "a,b\n1,2\n", ["--text-column", "z"], "no column 'z' (--text-column)"),
    ("claims.jsonl", '"just a string"\n["a list"]\n', [], "no record is an object"),
])
def test_claims_without_a_text_column_are_refused_before_prefect(no_prefect, tmp_path, name,
                                                                   data, extra, said):
    path = tmp_path / name
    path.write_text(data)
    line = _refused(["run", "--claims", str(path), *extra], tmp_path / "h")
    assert said in line


def test_a_text_column_named_or_found_later_passes_the_check(tmp_path):
    from affidavit.tasks.claims_file import check_claims_columns

    path = tmp_path / "claims.jsonl"
    path.write_text('"not an object"\n{"Statement": "Exports rose 12 percent."}\n')
    check_claims_columns(path)  # the first object record names a text column
    other = tmp_path / "other.jsonl"
    other.write_text('{"body": "Exports rose 12 percent."}\n')
    check_claims_columns(other, text_column="body")
    with pytest.raises(ValueError, match=r"no column 'missing' \(--text-column\) in its first "
                       r"record \(body\)"):
        check_claims_columns(other, text_column="missing")


def test_a_file_of_audit_records_given_as_one_answer_is_refused(no_prefect, tmp_path):
    records = tmp_path / "sessions.jsonl"
    records.write_text('{"id": "r1", "answer": "All 212 tests passed.", "evidence": []}\n')
    home = tmp_path / "h"
    res = CliRunner().invoke(app, ["audit", str(records), "--home", str(home)])
    assert res.exit_code == 2, res.output
    assert "give it with --sessions" in res.output
    assert not home.exists()
    # a plain-text answer in a .json file goes on to the audit (which then fails here, at the
    # closed Prefect port of the fixture): it is not taken for records
    answer = tmp_path / "answer.json"
    answer.write_text("The config is JSON and lists 3 services.")
    res = CliRunner().invoke(app, ["audit", str(answer), "--home", str(home)])
    assert "--sessions" not in res.output


@pytest.mark.parametrize(("args", "said"), [
    (["--sessions", "{d}/empty.jsonl"], "empty.jsonl: empty: a sessions file holds one record"),
    (["{d}/empty.txt", "--evidence", "{d}/ev.txt"], "empty.txt: empty: the answer file holds "
     "no text"),
])
def test_empty_audit_inputs_are_refused_before_prefect(no_prefect, tmp_path, args, said):
    (tmp_path / "empty.jsonl").write_text("\n \n")
    (tmp_path / "empty.txt").write_text("  \n")
    (tmp_path / "ev.txt").write_text("55 passed in 4.81s\n")
    line = _refused(["audit", *(a.format(d=tmp_path) for a in args)], tmp_path / "h")
    assert said in line


def test_audit_records_with_evidence_files_are_refused_too(no_prefect, tmp_path):
    records = tmp_path / "sessions.jsonl"
    records.write_text('{"id": "r1", "answer": "All 212 tests passed.", "evidence": []}\n')
    (tmp_path / "ev.txt").write_text("210 passed, 2 skipped\n")
    res = CliRunner().invoke(app, ["audit", str(records), "--evidence", str(tmp_path / "ev.txt"),
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 2, res.output
    assert "give it with --sessions" in res.output


@pytest.mark.parametrize(("make", "said"), [
    (lambda d: (d / "feeds").mkdir(), "feeds: is a directory, not a feed file"),
    (lambda d: (d / "feeds").write_text("  \n"), "feeds: empty: a feed file holds"),
    (lambda d: (d / "feeds").write_bytes(BINARY), "feeds: not text (binary data)"),
])
def test_a_run_whose_only_feed_cannot_be_read_is_refused_before_prefect(no_prefect, tmp_path,
                                                                        make, said):
    make(tmp_path)
    line = _refused(["run", "--feed", str(tmp_path / "feeds")], tmp_path / "h")
    assert said in line


def _write_dump(path: Path, rows: list[dict[str, object]]) -> None:
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    elif path.suffix == ".csv":
        keys = list(rows[0])
        path.write_text("\n".join([",".join(keys), *(",".join(str(r[k]) for k in keys)
                                                     for r in rows)]) + "\n")
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.mark.parametrize(("name", "said"), [
    ("docs.jsonl", "docs.jsonl: no row has a 'nosuch' field (the rows have body, id, url; name "
     "the text field with --text-column)"),
    ("docs.csv", "docs.csv: no 'nosuch' column in its header (it has id, url, body; name the "
     "text column with --text-column)"),
    ("docs.parquet", "docs.parquet: no 'nosuch' column in its Parquet schema (it has id, url, "
     "body; name the text column with --text-column)"),
])
@pytest.mark.parametrize("command", ["backfill", "origins"])
def test_a_text_column_no_row_has_is_one_line_before_prefect(no_prefect, tmp_path, name, said,
                                                              command):
    rows = [{"id": f"d{i}", "url": f"https://example.org/{i}", "body": "Exports rose."}
            for i in range(25)]
    _write_dump(tmp_path / name, rows)
    line = _refused([command, "--text-column", "nosuch", str(tmp_path / name)], tmp_path / "h")
    assert line == f"error: {tmp_path}/{said}"  # the file as it was given


@pytest.mark.parametrize(("option", "column", "said"), [
    ("--id-column", "nope", "docs.jsonl: no row has a 'nope' field (the rows have body, id, url; "
     "name the id field with --id-column)"),
    ("--date-column", "when", "docs.jsonl: no row has a 'when' field (the rows have body, id, "
     "url; name the date field with --date-column)"),
    ("--url-column", "link", "docs.jsonl: no row has a 'link' field (the rows have body, id, url; "
     "name the URL field with --url-column)"),
])
@pytest.mark.parametrize("command", ["backfill", "origins"])
def test_another_column_no_row_has_is_one_line_before_prefect(
    no_prefect, tmp_path, option, column, said, command
):
    # a column named by an option that no row has would store every document without it
    rows = [{"id": f"d{i}", "url": f"https://example.org/{i}", "body": "Exports rose."}
            for i in range(5)]
    _write_dump(tmp_path / "docs.jsonl", rows)
    line = _refused([command, "--text-column", "body", option, column,
                     str(tmp_path / "docs.jsonl")], tmp_path / "h")
    assert line == f"error: {tmp_path}/{said}"


def test_origins_reads_dumps_with_the_column_mapping_of_backfill(no_prefect, tmp_path):
    import json

    text = "Grain exports rose twelve percent in March the ministry said on Tuesday"
    rows = [{"key": "a", "body": text, "when": "2024-03-01"},
            {"key": "b", "body": text + " in Rome", "when": "2024-03-02"}]
    _write_dump(tmp_path / "docs.csv", rows)
    res = CliRunner().invoke(app, ["origins", str(tmp_path / "docs.csv"), "--text-column", "body",
                                   "--id-column", "key", "--date-column", "when", "--json",
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout[res.stdout.index("{"):])
    assert (data["n_documents"], data["n_origins"]) == (2, 1)
    # the dated column directs the edge: the earlier row is the origin
    [edge] = data["edges"]
    assert edge["direction_basis"] == "origin_time"


def test_a_dump_with_the_text_column_later_or_beside_a_good_input_is_left_to_the_run(tmp_path):
    from affidavit.flows.cli import _check_dump_text_columns
    from affidavit.tasks.input_checks import DUMP_HEAD_BYTES

    big = tmp_path / "big.jsonl"  # the text field only past the head: the reader decides
    filler = '{"id": "x", "body": "' + "y" * 1000 + '"}\n'
    big.write_text(filler * (DUMP_HEAD_BYTES // len(filler) + 1) + '{"id": "z", "text": "t"}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "b", "body": "t"}\n')
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "g", "text": "t"}\n')
    _check_dump_text_columns([str(big)], "text")
    _check_dump_text_columns([str(bad), str(good)], "text")
    _check_dump_text_columns([str(bad), "https://example.org/feed.xml"], "text")


@pytest.mark.parametrize(("name", "extra", "said"), [
    ("sessions.jsonl", [], "sessions.jsonl: no answer column: looked for answer, response, "
     "output_text, completion, text; its first record has reply, rid, tools (name it with "
     "--answer-column)"),
    ("sessions.json", [], "sessions.json: no answer column: looked for answer, response, "
     "output_text, completion, text; its first record has reply, rid, tools (name it with "
     "--answer-column)"),
    ("sessions.parquet", [], "sessions.parquet: no answer column: looked for answer, response, "
     "output_text, completion, text; its schema has reply, rid, tools (name it with "
     "--answer-column)"),
    ("sessions.jsonl", ["--answer-column", "reply", "--evidence-column", "calls"],
     "sessions.jsonl: no column 'calls' (--evidence-column): its first record has reply, rid, "
     "tools"),
    ("sessions.jsonl", ["--answer-column", "answer"],
     "sessions.jsonl: no column 'answer' (--answer-column): its first record has reply, rid, "
     "tools"),
])
def test_audit_sessions_with_wrong_columns_are_refused_before_prefect(no_prefect, tmp_path,
                                                                       name, extra, said):
    rows = [{"rid": i, "reply": f"All {i} tests pass.", "tools": []} for i in range(30)]
    path = tmp_path / name
    if name.endswith(".json"):
        import json

        path.write_text(json.dumps(rows))
    else:
        _write_dump(path, rows)
    line = _refused(["audit", "--sessions", str(path), *extra], tmp_path / "h")
    assert line == f"error: {tmp_path}/{said}"


def test_sessions_with_an_answer_column_pass_the_column_check(tmp_path):
    from affidavit.tasks.audit import check_sessions_columns

    path = tmp_path / "sessions.jsonl"
    path.write_text('"not an object"\n{"ID": "1", "Response": "ok", "tool_calls": []}\n')
    check_sessions_columns(path)  # the first object record has an answer column
    check_sessions_columns(path, answer_column="Response", id_column="ID")
    with pytest.raises(ValueError, match=r"no column 'id' \(--id-column\)"):
        check_sessions_columns(path, id_column="id")


def test_records_without_an_answer_column_are_counted_not_noted_one_by_one(tmp_path):
    from affidavit.tasks.audit import read_sessions

    path = tmp_path / "sessions.jsonl"
    path.write_text("".join(f'{{"rid": {i}, "reply": "ok"}}\n' for i in range(15)))
    records, skips, notes = read_sessions(path)
    assert records == []
    assert skips["missing_answer"] == 15
    assert not any("no answer column" in n and n.startswith("line") for n in notes)
    assert sum("no answer column found" in n for n in notes) == 1


@pytest.mark.parametrize("content", ["", "\n\n", '{"id": "1", "body": "x"}\n'])
def test_origins_of_an_input_that_gives_nothing_says_its_error_once(no_prefect, tmp_path,
                                                                    content):
    path = tmp_path / "empty.jsonl"
    path.write_text(content)
    line = _refused(["origins", str(path)], tmp_path / "h")  # one line in all
    assert line.count("empty.jsonl: ") == 1  # the file and its fault, named once


def test_origins_of_inputs_that_give_nothing_notes_each_once(no_prefect, tmp_path):
    (tmp_path / "a.jsonl").write_text("")
    (tmp_path / "b.jsonl").write_text('{"id": "1", "body": "x"}\n')
    res = CliRunner().invoke(app, ["origins", str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"),
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 1, res.output
    lines = res.output.strip().splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["note", "note", "error"]
    assert res.output.count("a.jsonl") == 1
    assert res.output.count("b.jsonl") == 1
    assert res.output.count("no documents could be read") == 1


@pytest.mark.parametrize("args", [
    ["backfill", "{loop}"], ["origins", "{loop}"], ["run", "--claims", "{loop}"],
    ["run", "--feed", "{loop}"], ["audit", "--sessions", "{loop}"], ["audit", "{loop}"],
    ["source", "{loop}"], ["verify", "--file", "{loop}"],
])
def test_a_symlink_loop_is_said_as_one_not_as_a_missing_file(no_prefect, tmp_path, args):
    (tmp_path / "a.jsonl").symlink_to(tmp_path / "b.jsonl")
    (tmp_path / "b.jsonl").symlink_to(tmp_path / "a.jsonl")
    line = _refused([a.format(loop=tmp_path / "a.jsonl") for a in args], tmp_path / "h")
    assert "a.jsonl: symlink loop" in line
    assert "no such file" not in line


def test_path_faults_are_told_by_their_errno(tmp_path):
    from affidavit.tasks.input_checks import path_fault

    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "broken").symlink_to(tmp_path / "nowhere")
    (tmp_path / "file").write_text("x")
    assert path_fault(tmp_path / "loop") == "symlink loop"
    assert path_fault(tmp_path / "broken") == (f"broken symlink (to {tmp_path / 'nowhere'}, "
                                               "which does not exist)")
    assert path_fault(tmp_path / "missing") == "no such file"
    assert path_fault(tmp_path / "file" / "x") == f"{tmp_path / 'file'} is a file, not a folder"
    assert path_fault(tmp_path / "file") is None


@pytest.mark.parametrize(("data", "said"), [
    (b"a,b\n1,2\n", "junk.csv: no 'text' column in its header (it has a, b; name the text column "
     "with --text-column)"),
    (BINARY, "junk.csv: not text (binary data): a CSV dump is text, one row a line"),
])
def test_origins_of_a_csv_without_usable_columns_is_one_line(no_prefect, tmp_path, data, said):
    (tmp_path / "junk.csv").write_bytes(data)
    assert _refused(["origins", str(tmp_path / "junk.csv")],
                    tmp_path / "h") == f"error: {tmp_path}/{said}"
    # beside a readable input, the same line is its note (no header list, no mapping repr)
    (tmp_path / "good.jsonl").write_text('{"id": "1", "text": "Exports rose."}\n')
    res = CliRunner().invoke(app, ["origins", str(tmp_path / "good.jsonl"),
                                   str(tmp_path / "junk.csv"), "--home", str(tmp_path / "h")])
    [note] = [ln for ln in res.output.splitlines() if "junk.csv" in ln]
    assert note == f"note: {tmp_path / said}: refused"


STORY = "Grain exports rose twelve percent in March the ministry said on Tuesday"


def test_origins_reports_skips_and_repairs_as_backfill_counts_them(tmp_path, warehouse):
    import json

    from affidavit.flows.context import RunRecord
    from affidavit.flows.stages import ingest_sources

    path = tmp_path / "docs.jsonl"
    path.write_bytes(b'{"id": "1", "text": "' + STORY.encode() + b'"}\n'
                     b'{"id": "2", "text": "caf\xe9 ' + STORY.encode() + b'"}\n'
                     b"not json\n"
                     b'{"id": "4", "text": "   "}\n')
    res = CliRunner().invoke(app, ["origins", str(path), "--home", str(tmp_path / "h")])
    assert res.exit_code == 0, res.output
    assert "skipped: bad_json_line 1, empty_text 1" in res.output
    assert "repaired or warned: non_utf8_text 1" in res.output
    res = CliRunner().invoke(app, ["origins", str(path), "--json", "--home", str(tmp_path / "h")])
    data = json.loads(res.stdout[res.stdout.index("{"):])
    # the same counts as backfill's ingest stage gives for the same file
    run = RunRecord(warehouse, "backfill_archive", {})
    ingest_sources(warehouse, [str(path)], run=run)
    assert data["counts"] == {k: v for k, v in run.counts.items()
                              if k.startswith(("skip:", "repaired:")) or k == "documents_read"}
    assert data["counts"]["skip:bad_json_line"] == 1
    assert data["messages"] == run.messages


def test_origins_with_a_refused_input_beside_a_readable_one_exits_1(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_text(f'{{"id": "1", "text": "{STORY}"}}\n')
    res = CliRunner().invoke(app, ["origins", str(good), str(tmp_path / "missing.jsonl"),
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 1, res.output  # as every command answers a refused input
    assert "1 document(s), 1 independent origin(s)" in res.output
    assert "skipped: source_unreadable 1" in res.output


@pytest.mark.parametrize("command", ["backfill", "origins"])
@pytest.mark.parametrize(("name", "said"), [
    ("empty.jsonl", "empty.jsonl: empty file: nothing to read"),
    ("blank.csv", "blank.csv: empty file (nothing but whitespace): nothing to read"),
    ("empty.jsonl.gz", "empty.jsonl.gz: empty file: nothing to read"),
    ("folder", "folder: is a directory, not a file: give the files in it (a folder is not "
     "read)"),
    ("/dev/null", "/dev/null: not a regular file (a device or a pipe): save it to a file first"),
])
def test_an_input_that_can_give_nothing_is_refused_before_prefect(no_prefect, tmp_path, command,
                                                                 name, said):
    path = Path(name) if name.startswith("/") else tmp_path / name
    if name == "folder":
        path.mkdir()
    elif name.endswith(".gz"):
        path.write_bytes(gzip.compress(b""))
    elif not name.startswith("/"):
        path.write_text("" if name == "empty.jsonl" else "\n \n\t\n")
    line = _refused([command, str(path)], tmp_path / "h")
    assert line == f"error: {tmp_path / said if not name.startswith('/') else said}"


def test_an_empty_input_beside_a_readable_one_is_left_to_the_run(tmp_path):
    from affidavit.flows.cli import _check_input_files

    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "good.jsonl").write_text('{"id": "1", "text": "x"}\n')
    _check_input_files([str(tmp_path / "empty.jsonl"), str(tmp_path / "good.jsonl")])
    _check_input_files([str(tmp_path / "empty.jsonl"), "https://example.org/feed.xml"])


def test_audit_sessions_holding_no_record_or_a_zero_limit_are_refused(no_prefect, tmp_path):
    empty = tmp_path / "el.json"
    empty.write_text("[]\n")
    line = _refused(["audit", "--sessions", str(empty)], tmp_path / "h")
    assert "el.json: holds no record" in line
    one = tmp_path / "one.jsonl"
    one.write_text('{"id": "a", "answer": "All 3 tests pass.", "evidence": ["3 passed"]}\n')
    res = CliRunner().invoke(app, ["audit", "--sessions", str(one), "--limit", "0",
                                   "--home", str(tmp_path / "h2")])
    assert res.exit_code == 2
    assert not (tmp_path / "h2").exists()


@pytest.mark.parametrize(("name", "body", "said"), [
    ("claims.json", "[]", "holds no claim rows"),
    ("claims.json", "{}", "holds no claim rows"),
    ("claims.csv", "id,text\n", "holds no claim rows (a header line only)"),
    ("claims.json", '"just a string"', "is a JSON string, not a list of claims"),
    ("claims.json", "null", "is null, not a list of claims"),
    ("claims.json", "[1,", "not JSON"),
    ("claims.jsonl", "x\ny\n", "no line is a JSON record (line 1"),
    ("claims.csv", 'id,text\n1,"unclosed\n2,more\n', "unclosed quote at line 2"),
    # every row a counted skip: refused at once with the counts, as the run would count them
    ("claims.jsonl", '{"claim": 1}\n', "no claim could be read (wrong_type 1)"),
    ("claims.jsonl", '{"claim": ""}\n{"claim": "  "}\n', "no claim could be read (empty_text 2)"),
])
def test_run_with_a_claims_file_of_no_claim_is_refused_before_prefect(no_prefect, tmp_path,
                                                                      name, body, said):
    path = tmp_path / name
    path.write_text(body, encoding="utf-8")
    line = _refused(["run", "--claims", str(path)], tmp_path / "h")
    assert said in line
    assert "empty file" not in line


_COMMANDS = [["run", "--claims", "CLAIMS"], ["backfill", "DOCS"], ["verify", "The bridge opened."],
             ["research", "Did the bridge open?"], ["demo"]]
_HOME_REFUSALS = [(["--home", ""], 2, "--home is empty"),
                  (["--home", "CLAIMS"], 1, "as the affidavit home"),
                  (["--home", "UNDER_CLAIMS"], 1, "claims.jsonl is a file")]
_ALLOW_REFUSAL = (["--allow-private", "999.1.1.1/99"], 2, "--allow-private: '999.1.1.1/99'")


@pytest.mark.parametrize(("command", "extra", "code", "said"), [
    *((c, *r) for c in _COMMANDS for r in _HOME_REFUSALS),
    *((c, *_ALLOW_REFUSAL) for c in _COMMANDS if c != ["demo"]),  # demo takes no --allow-private
])
def test_argument_refusals_come_before_the_starting_line(no_prefect, tmp_path, command, extra,
                                                         code, said):
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"claim": "The bridge opened in 2024."}\n', encoding="utf-8")
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"id": "1", "text": "The bridge opened in 2024."}\n', encoding="utf-8")
    names = {"CLAIMS": str(claims), "DOCS": str(docs), "UNDER_CLAIMS": str(claims / "home")}
    args = [names.get(a, a) for a in [*command, *extra]]
    if "--home" not in args:
        args += ["--home", str(tmp_path / "h")]
    res = CliRunner().invoke(app, args)
    assert res.exit_code == code, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output  # no "starting (Prefect's local server …)" line
    assert lines[0].startswith("error: ")
    assert said in lines[0]
    assert not (tmp_path / "h").exists()


@pytest.mark.parametrize("command", [["origins", "DOCS"], ["verdicts"], ["recall", "bridge"],
                                     ["export", "claimreview"], ["source", "DOCS"],
                                     ["backfill", "DOCS"]])
@pytest.mark.parametrize("home", ["FILE", "FILE/home", "FILE/a/b"])
def test_a_home_that_is_or_lies_under_a_file_is_one_line_for_every_command(no_prefect, tmp_path,
                                                                           command, home):
    # a home under a file ("--home notes.txt/home") was taken by origins and source, said to
    # hold nothing by verdicts, and refused by backfill only after its "starting" line
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"id": "1", "text": "The bridge opened in 2024."}\n', encoding="utf-8")
    file = tmp_path / "notes.txt"
    file.write_text("not a folder\n", encoding="utf-8")
    home = home.replace("FILE", str(file))
    res = CliRunner().invoke(app, [*(str(docs) if a == "DOCS" else a for a in command),
                                   "--home", home])
    assert res.exit_code == 1, res.output
    assert res.output.strip() == (f"error: cannot use {home} as the affidavit home (set --home "
                                  "or AFFIDAVIT_HOME to a folder): "
                                  + ("it is a file" if home == str(file) else f"{file} is a file"))


_LLM = {"AFFIDAVIT_LLM_BASE_URL": "http://127.0.0.1:9/v1", "AFFIDAVIT_LLM_MODEL": "m"}


@pytest.mark.parametrize(("variable", "value", "why"), [
    ("AFFIDAVIT_SEARXNG_URL", "localhost:8888", "no http:// or https:// scheme"),
    ("AFFIDAVIT_SEARXNG_URL", "https://", "no host"),
    ("AFFIDAVIT_LLM_BASE_URL", "localhost:8000/v1", "no http:// or https:// scheme"),
    ("AFFIDAVIT_LLM_BASE_URL", "http://127.0.0.1:80x/v1", "a bad port"),
    # a space in the host was taken (the run said the search was unavailable); an unclosed
    # IPv6 bracket was called a bad port
    ("AFFIDAVIT_SEARXNG_URL", "http://exa mple.com", "a space or a character no host name holds"),
    ("AFFIDAVIT_SEARXNG_URL", "http://[::1", "an unclosed [ in its host"),
])
@pytest.mark.parametrize("command", [["run", "--claims", "CLAIMS"], ["verify", "Exports rose."],
                                     ["research", "Did exports rise?"]])
def test_an_endpoint_url_that_is_no_url_is_one_line_naming_its_variable(
        no_prefect, tmp_path, monkeypatch, variable, value, why, command):
    # such a URL was taken, and the run said "configured but unavailable" or "unreachable:
    # Request URL is missing an 'http://' or 'https://' protocol", naming no variable
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"claim": "Exports rose 12 percent in 2023."}\n', encoding="utf-8")
    monkeypatch.setenv("AFFIDAVIT_LLM_MODEL", "m")
    monkeypatch.setenv(variable, value)
    home = tmp_path / "h"
    res = CliRunner().invoke(app, [*(str(claims) if a == "CLAIMS" else a for a in command),
                                   "--home", str(home)])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == (f"error: {variable} {value!r} is not an http(s) URL ({why}): "
                                  "give one such as " + ("http://localhost:8888" if "SEARXNG"
                                                         in variable else
                                                         "http://localhost:8000/v1"))
    assert not home.exists()


def test_an_llm_auditor_url_that_is_no_url_is_one_line_naming_its_variable(
        no_prefect, tmp_path, monkeypatch):
    answer = tmp_path / "answer.txt"
    answer.write_text("All 12 tests pass.\n", encoding="utf-8")
    monkeypatch.setenv("AFFIDAVIT_LLM_MODEL", "m")
    monkeypatch.setenv("AFFIDAVIT_LLM_BASE_URL", "http://bob:s3cret@llm.example:x/v1")
    res = CliRunner().invoke(app, ["audit", str(answer), "--auditor", "llm",
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == ("error: AFFIDAVIT_LLM_BASE_URL 'http://llm.example:x/v1' is not "
                                  "an http(s) URL (a bad port): give one such as "
                                  "http://localhost:8000/v1")  # the password is not shown


@pytest.mark.parametrize(("args", "env", "named"), [
    ([], {"AFFIDAVIT_PUBLISH_BASE_URL": "ftp://x.example/"}, "AFFIDAVIT_PUBLISH_BASE_URL"),
    ([], {"AFFIDAVIT_PUBLISHER_URL": "x.example"}, "AFFIDAVIT_PUBLISHER_URL"),
    (["--base-url", "ftp://x.example/"], {}, "--base-url"),
])
def test_a_publishing_url_that_is_no_url_names_where_it_was_given(tmp_path, monkeypatch, args,
                                                                  env, named):
    # it was "error: base_url must be an http(s) URL, got 'ftp://x.example/'"
    from affidavit.warehouse.home import resolve_home

    resolve_home(str(tmp_path / "h")).tables.mkdir(parents=True)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    res = CliRunner().invoke(app, ["export", "claimreview", *args, "--home", str(tmp_path / "h")])
    assert res.exit_code == 2, res.output
    line = res.output.strip()
    assert line.startswith(f"error: {named} '"), line
    assert "is not an http(s) URL (no http:// or https:// scheme)" in line


@pytest.mark.parametrize(("command", "env", "said"), [
    (["run", "--claims", "CLAIMS"], {"AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE": "half"},
     "AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE must be a number in 0..1, got 'half'"),
    (["verify", "The bridge opened in 2024."], {"AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE": "2"},
     "AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE must be a number in 0..1, got '2'"),
    (["demo"], {"AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE": "-1"},
     "AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE must be a number in 0..1, got '-1'"),
    (["audit", "--sessions", "SESSIONS", "--auditor", "llm"], {},
     "--auditor llm needs AFFIDAVIT_LLM_BASE_URL and AFFIDAVIT_LLM_MODEL"),
    (["audit", "--sessions", "SESSIONS", "--auditor", "llm"],
     {**_LLM, "AFFIDAVIT_AUDIT_EVIDENCE_CHARS": "-5"},
     "AFFIDAVIT_AUDIT_EVIDENCE_CHARS must be positive: '-5'"),
    (["audit", "--sessions", "SESSIONS", "--auditor", "llm"],
     {**_LLM, "AFFIDAVIT_AUDIT_RECORD_TIMEOUT_S": "soon"},
     "AFFIDAVIT_AUDIT_RECORD_TIMEOUT_S is not a number: 'soon'"),
    # "inf" and "nan" read as floats: one failed the run at its deadline, the other every record
    (["audit", "--sessions", "SESSIONS", "--auditor", "llm"],
     {**_LLM, "AFFIDAVIT_AUDIT_RECORD_TIMEOUT_S": "inf"},
     "AFFIDAVIT_AUDIT_RECORD_TIMEOUT_S must be at most 86400 seconds: 'inf'"),
    (["audit", "--sessions", "SESSIONS", "--auditor", "llm"],
     {**_LLM, "AFFIDAVIT_AUDIT_RECORD_TIMEOUT_S": "nan"},
     "AFFIDAVIT_AUDIT_RECORD_TIMEOUT_S must be positive: 'nan'"),
    # the report a run writes would use other URLs than the ones asked for
    (["run", "--claims", "CLAIMS"], {"AFFIDAVIT_PUBLISH_BASE_URL": "foo"},
     "AFFIDAVIT_PUBLISH_BASE_URL 'foo' is not an http(s) URL (no http:// or https:// scheme): "
     "give one such as https://example.org/checks/"),
])
def test_a_bad_setting_in_the_environment_is_a_bad_argument(no_prefect, tmp_path, monkeypatch,
                                                            command, env, said):
    for name in ("AFFIDAVIT_LLM_BASE_URL", "AFFIDAVIT_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"claim": "The bridge opened in 2024."}\n', encoding="utf-8")
    sessions = tmp_path / "s.jsonl"
    sessions.write_text('{"id": "a", "answer": "It passed.", "evidence": []}\n',
                        encoding="utf-8")
    names = {"CLAIMS": str(claims), "SESSIONS": str(sessions)}
    home = tmp_path / "h"
    res = CliRunner().invoke(app, [*(names.get(a, a) for a in command), "--home", str(home)])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert lines == [f"error: {said}"], res.output  # no "starting" line: nothing was started
    assert not home.exists()


@pytest.mark.parametrize(("command", "option"), [
    (["backfill", "DOCS"], "--text-column"), (["backfill", "DOCS"], "--id-column"),
    (["backfill", "DOCS"], "--url-column"), (["backfill", "DOCS"], "--title-column"),
    (["backfill", "DOCS"], "--date-column"), (["backfill", "DOCS"], "--wayback-column"),
    (["origins", "DOCS"], "--text-column"), (["origins", "DOCS"], "--id-column"),
    (["run", "--claims", "CLAIMS"], "--text-column"),
    (["audit", "--sessions", "SESSIONS"], "--id-column"),
    (["audit", "--sessions", "SESSIONS"], "--answer-column"),
    (["audit", "--sessions", "SESSIONS"], "--evidence-column"),
])
@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_column_name_is_a_bad_argument(no_prefect, tmp_path, command, option, value):
    files = {"CLAIMS": ("claims.jsonl", '{"claim": "The bridge opened in 2024."}\n'),
             "DOCS": ("docs.jsonl", '{"id": "1", "text": "The bridge opened in 2024."}\n'),
             "SESSIONS": ("s.jsonl", '{"id": "1", "answer": "It passed.", "evidence": []}\n')}
    args = []
    for a in command:
        if a in files:
            name, body = files[a]
            (tmp_path / name).write_text(body, encoding="utf-8")
            a = str(tmp_path / name)
        args.append(a)
    res = CliRunner().invoke(app, [*args, option, value, "--home", str(tmp_path / "h")])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == f"error: {option} is empty: give the name of a column"
    assert not (tmp_path / "h").exists()


_UTF16_CLAIMS = "id,text\n1,The Lumen Bridge opened on 14 May 2024.\n2,Revenue rose 12%.\n"
_UTF16_JSONL = '{"id": "1", "text": "The Lumen Bridge opened on 14 May 2024."}\n'


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(("command", "name", "body"), [
    (["run", "--claims"], "claims.csv", _UTF16_CLAIMS),
    (["run", "--claims"], "claims.jsonl", _UTF16_JSONL),
    (["backfill"], "docs.csv", _UTF16_CLAIMS),
    (["backfill"], "docs.jsonl", _UTF16_JSONL),
    (["backfill"], "docs.json", f"[{_UTF16_JSONL}]"),
    (["origins"], "docs.jsonl", _UTF16_JSONL),
    (["audit", "--sessions"], "sessions.jsonl", '{"id": "1", "answer": "It passed."}\n'),
    (["audit"], "answer.txt", "All 12 tests pass.\n"),
    (["verify", "--file"], "text.txt", "The Lumen Bridge opened on 14 May 2024.\n"),
    (["run", "--feed"], "feed.xml", '<?xml version="1.0"?><rss version="2.0"><channel>'
                                    '<item><title>T</title></item></channel></rss>'),
])
def test_utf16_without_a_byte_order_mark_is_said_as_such(no_prefect, tmp_path, command, name,
                                                         body, encoding):
    path = tmp_path / name
    path.write_bytes(body.encode(encoding))  # no byte-order mark: read as UTF-8, not text
    line = _refused([*command, str(path)], tmp_path / "h")
    order = "little" if encoding.endswith("le") else "big"
    assert f"{name}: not text as UTF-8: it looks like UTF-16 ({order}-endian) saved without a " \
           "byte-order mark" in line


def test_a_utf16_json_dump_among_others_is_refused_by_the_reader_in_those_words(tmp_path):
    from affidavit.tasks.ingest_dumps import read_dump

    path = tmp_path / "docs.jsonl"
    path.write_bytes(_UTF16_JSONL.encode("utf-16-le"))
    with pytest.raises(ValueError, match=r"docs.jsonl: not text as UTF-8: it looks like UTF-16"):
        list(read_dump(path))


@pytest.mark.parametrize("command", [["run", "--feed"], ["backfill"], ["origins"], ["source"]])
def test_a_text_given_where_a_file_or_url_goes_is_said_to_be_neither(no_prefect, tmp_path,
                                                                     monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    text = "Some claim text that is not a path or URL"
    line = _refused([*command, text], tmp_path / "h")
    assert line == f'error: {text}: not a file or URL: to check a text use verify "TEXT" (a ' \
                   "claims file: run --claims)"


def test_a_plain_text_file_given_as_a_feed_is_said_to_be_plain_text(no_prefect, tmp_path):
    path = tmp_path / "claim.txt"
    path.write_text("The council should build the bridge.\nIt would cost 40 million euros.\n",
                    encoding="utf-8")
    line = _refused(["run", "--feed", str(path)], tmp_path / "h")
    assert line.startswith(f"error: {path}: is plain text, not an RSS/Atom/JSON Feed document; ")
    assert "XML" not in line


def test_a_plain_text_feed_among_others_is_noted_as_plain_text():
    from affidavit.tasks.ingest_feeds import parse_feed

    batch = parse_feed(b"Prices rose 5% in 2024.\nThe council voted.\n", source="claim.txt")
    assert dict(batch.skips) == {"not_a_feed": 1}
    assert batch.messages == ["claim.txt: is plain text, not an RSS/Atom/JSON Feed document; to "
                              "check its claims use verify --file (a claims file: run --claims): "
                              "refused"]


@pytest.mark.parametrize("command", [["run", "--feed"], ["backfill"]])
def test_a_text_holding_a_url_further_on_is_not_taken_for_a_url(no_prefect, tmp_path,
                                                                 monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    text = "see https://example.org/x for the claim"
    line = _refused([*command, text], tmp_path / "h")
    assert line == f"error: {text}: no such file, and not a URL (a URL starts with http:// or " \
                   "https://)"


def test_a_backfill_input_of_no_kind_it_reads_is_refused_before_prefect(no_prefect, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("The bridge opened in 2024.\n", encoding="utf-8")
    line = _refused(["backfill", str(path)], tmp_path / "h")
    assert line.startswith(f"error: {path}: cannot tell whether this is a feed, a WARC/WET "
                           "archive or a dump")


@pytest.mark.parametrize(("content", "looks"), [(b'{"id": "1", "text": "Some text."}\n', "text"),
                                                (BINARY, "binary data")])
def test_backfill_of_a_parquet_name_that_is_not_parquet_is_refused_before_prefect(
        no_prefect, tmp_path, content, looks):
    path = tmp_path / "docs.parquet"
    path.write_bytes(content)
    line = _refused(["backfill", str(path)], tmp_path / "h")
    assert f"docs.parquet: not a Parquet file (it does not start and end with the bytes 'PAR1'; " \
           f"it looks like {looks})" in line


def test_a_real_parquet_dump_is_not_refused_as_not_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from affidavit.tasks.input_checks import dump_not_text_fault

    path = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"id": ["1"], "text": ["Some text."]}), path)
    assert dump_not_text_fault(path) is None


def test_after_ctrl_c_an_error_is_not_printed_and_the_exit_is_130(tmp_path, monkeypatch, capsys):
    """What fails once Ctrl-C was pressed fails because of it (Prefect's task engine, stopped
    under it, raises errors such as "Task run is not set"): one interrupted line is said, by
    the supervisor, not the error."""
    import sys

    from affidavit.flows import cli, supervise

    monkeypatch.setenv("AFFIDAVIT_SUPERVISED", "1")  # the supervisor says it was interrupted
    monkeypatch.setattr(sys, "argv", ["affidavit", "verdicts", "--home", str(tmp_path / "no")])
    usage = next(c for c in cli.typer.BadParameter.__mro__ if c.__name__ == "UsageError")
    click = next(c for c in cli.typer.BadParameter.__mro__ if c.__name__ == "ClickException")
    assert cli._run_app(usage, click) == 1
    assert "no affidavit home" in capsys.readouterr().err
    supervise.INTERRUPTED.set()
    try:
        assert cli._run_app(usage, click) == supervise.EXIT_INTERRUPTED
    finally:
        supervise.INTERRUPTED.clear()
    assert capsys.readouterr().err == ""


def _stored_home(path: Path, n_docs: int) -> Path:
    """A home as a command leaves it: every table's empty part, and ``n_docs`` documents."""
    import polars as pl

    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    wh = Warehouse(resolve_home(path))
    if n_docs:
        ids = [f"d{i}" for i in range(n_docs)]
        wh.write("documents", pl.DataFrame({
            "doc_id": ids, "content_sha256": [f"h{i}" for i in ids],
            "source_kind": ["user"] * n_docs, "is_snippet_only": [False] * n_docs,
            "text": ["The Lumen Bridge opened to traffic on 14 May 2024."] * n_docs}))
    return path


@pytest.mark.parametrize("command", [
    ["verify", "The Lumen Bridge opened to traffic on 14 May 2024."],
    ["research", "Did the Lumen Bridge open in 2024?"],
])
@pytest.mark.parametrize("stored", [False, True])  # no home yet; a home of no document
def test_research_with_nothing_to_search_is_refused_before_prefect(no_prefect, monkeypatch,
                                                                    tmp_path, command, stored):
    from affidavit.flows.cli import EXIT_NO_CAPABILITY
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import count_stored_rows

    monkeypatch.delenv("AFFIDAVIT_SEARXNG_URL", raising=False)
    home = _stored_home(tmp_path / "h", 0) if stored else tmp_path / "h"
    res = CliRunner().invoke(app, [*command, "--home", str(home)])
    assert res.exit_code == EXIT_NO_CAPABILITY, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output  # no "starting (Prefect's local server …)" line
    assert lines[0].startswith("error: research could not run: no search capability")
    assert "AFFIDAVIT_SEARXNG_URL" in lines[0]
    if stored:  # the placeholder part is there, and no run was recorded
        assert (home / "tables" / "documents" / "part-0000-empty.parquet").exists()
        assert count_stored_rows(resolve_home(home), "runs") == 0
    else:
        assert not home.exists()


@pytest.mark.parametrize(("n_docs", "searxng", "refused"), [
    (0, None, True), (0, "  ", True),  # an empty variable configures nothing
    (1, None, False), (0, "http://127.0.0.1:9", False),  # a configured one is probed by the run
])
def test_research_is_refused_up_front_only_when_nothing_could_be_searched(
        monkeypatch, tmp_path, n_docs, searxng, refused):
    import typer

    from affidavit.flows.cli import EXIT_NO_CAPABILITY, _refuse_without_search

    home = _stored_home(tmp_path / "h", n_docs)
    if searxng is None:
        monkeypatch.delenv("AFFIDAVIT_SEARXNG_URL", raising=False)
    else:
        monkeypatch.setenv("AFFIDAVIT_SEARXNG_URL", searxng)
    if refused:
        with pytest.raises(typer.Exit) as info:
            _refuse_without_search(str(home))
        assert info.value.exit_code == EXIT_NO_CAPABILITY
    else:
        _refuse_without_search(str(home))  # left to the run's preflight


def test_stored_rows_are_counted_from_the_parts_without_writing(tmp_path):
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import count_stored_rows

    assert count_stored_rows(resolve_home(tmp_path / "none"), "documents") == 0
    assert not (tmp_path / "none").exists()
    home = resolve_home(_stored_home(tmp_path / "h", 3))
    assert count_stored_rows(home, "documents") == 3
    (home.tables / "documents" / "part-junk.parquet").write_bytes(b"not parquet")
    assert count_stored_rows(home, "documents") is None  # the run finds out and says it
    assert count_stored_rows(home, "origins") is None  # a replaced table: not counted here


@contextmanager
def _fifo_written(path: Path, data: bytes) -> Iterator[None]:
    """A FIFO at ``path`` with a writer of ``data`` waiting for a reader, done at exit.

    A command that opens the FIFO reads ``data`` (as a pipe fed by another command would give
    it); one that refuses it unopened leaves the writer waiting, and the exit lets it finish.
    """
    import threading

    os.mkfifo(path)

    def write() -> None:
        try:
            with path.open("wb") as fh:
                fh.write(data)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        yield
    finally:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a reader: the writer's open returns
        writer.join()
        os.close(fd)


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/null", "{dir}"])
def test_verify_refuses_a_file_that_is_not_a_regular_one_unopened(no_prefect, tmp_path, target):
    # a device is no text: /dev/null said "is empty", /dev/zero was read to the cap (a pipe is
    # read once, as ``--file <(command)`` gives one: see the next test)
    given = {"{dir}": str(tmp_path)}.get(target, target)
    line = _refused(["verify", "--file", given], tmp_path / "h")
    said = ("is a directory, not a file" if target == "{dir}" else
            "not a regular file or a pipe (a device): save it to a file first")
    assert line == f"error: cannot verify {given}: {said}"


def test_verify_reads_a_pipe_that_never_ends_only_up_to_its_limit(no_prefect, tmp_path):
    # ``verify --file <(command)`` is a pipe: it is read once, and a pipe fed without end stops
    # being read once over the limit and is refused, not read into memory whole
    import threading

    from affidavit.flows.cli import VERIFY_MAX_BYTES

    fifo = tmp_path / "text.fifo"
    os.mkfifo(fifo)
    offered = 64 * 1024 * 1024
    written = [0]

    def feed() -> None:
        chunk = b"The Lumen Bridge opened on 14 May 2024. " * 1024
        try:
            with fifo.open("wb") as fh:
                while written[0] < offered:
                    fh.write(chunk)
                    written[0] += len(chunk)
        except BrokenPipeError:  # the reader closed its end: it read no more
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    line = _refused(["verify", "--file", str(fifo)], tmp_path / "h")
    writer.join()
    assert "text.fifo: more than" in line
    assert f"over verify's {VERIFY_MAX_BYTES:,}" in line
    assert written[0] < offered  # it stopped reading long before the stream ended


def test_the_claims_reader_refuses_a_pipe_unopened(tmp_path):
    # a flow run from a deployment reads its claims file without the CLI's look first
    from affidavit.tasks.claims_file import read_claims_file

    fifo = tmp_path / "claims.jsonl"
    with _fifo_written(fifo, b'{"claim": "Exports rose 12 percent in 2023."}\n'), \
            pytest.raises(ValueError, match=r"claims.jsonl: not a regular file \(a device or a "):
        read_claims_file(fifo)


def test_a_pipe_given_as_a_feed_is_not_opened_to_look_for_an_opml_list(tmp_path):
    # ``run --feed FIFO --claims c.jsonl`` waited for ever: the OPML look at the feed's head
    # opened the pipe before the reader could refuse it
    from affidavit.tasks.opml import OpmlError, is_opml, read_opml

    opml = b'<?xml version="1.0"?><opml version="2.0"><body><outline xmlUrl="https://e.org/f"/>'
    with _fifo_written(tmp_path / "subs", opml + b"</body></opml>"):
        assert not is_opml(tmp_path / "subs")
    with _fifo_written(tmp_path / "subs.opml", opml + b"</body></opml>"), \
            pytest.raises(OpmlError, match=r"subs.opml: not a regular file \(a device or a pipe\)"):
        read_opml(tmp_path / "subs.opml")


def test_a_device_given_as_a_feed_is_refused_before_prefect(no_prefect, tmp_path):
    # a device or a pipe is read twice (the up-front look at its head, then the reader): a
    # pipe's head was gone and the feed read as empty; /dev/zero was read without end
    line = _refused(["run", "--feed", os.devnull], tmp_path / "h")
    assert line == (f"error: {os.devnull}: not a regular file (a device or a pipe): save it to "
                    "a file first")


def test_a_device_among_feeds_is_refused_by_the_reader_unread():
    from affidavit.tasks.ingest import ingest_path

    with pytest.raises(ValueError, match=r"not a regular file \(a device or a pipe\)"):
        list(ingest_path(os.devnull, kind="feed"))


@pytest.mark.parametrize(("value", "said"), [
    ("{dir}", "is a directory, not a file of hosts"),
    (os.devnull, "not a regular file (a device or a pipe): save it to a file first"),
    ("{missing}", "no such file"),
])
def test_a_credibility_list_that_is_not_a_file_is_one_line_naming_the_variable(
        tmp_path, monkeypatch, value, said):
    value = value.format(dir=tmp_path, missing=tmp_path / "missing.txt")
    monkeypatch.setenv("AFFIDAVIT_CREDIBILITY_LOW", value)
    page = tmp_path / "page.html"
    page.write_text("<html><head><title>T</title></head><body><p>Text.</p></body></html>")
    res = CliRunner().invoke(app, ["source", str(page)])
    assert res.exit_code == 1, res.output
    assert res.output.strip() == (f"error: cannot read the credibility list "
                                  f"AFFIDAVIT_CREDIBILITY_LOW={value}: {said}")


@pytest.mark.parametrize("command", [["run", "--claims", "{claims}"], ["verify", "Exports rose."],
                                     ["research", "Did exports rise?"], ["demo"]])
def test_a_research_command_with_an_unreadable_credibility_list_is_refused_before_prefect(
        no_prefect, tmp_path, monkeypatch, command):
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"claim": "Exports rose 12 percent in 2023."}\n')
    monkeypatch.setenv("AFFIDAVIT_CREDIBILITY_HIGH", str(tmp_path))
    line = _refused([c.format(claims=claims) for c in command], tmp_path / "h")
    assert line == (f"error: cannot read the credibility list AFFIDAVIT_CREDIBILITY_HIGH="
                    f"{tmp_path}: is a directory, not a file of hosts")


def test_a_text_argument_whose_bytes_are_not_utf8_is_read_as_the_files_are():
    # a byte that is not UTF-8 in an argument (a Latin-1 terminal, a variable filled from a
    # Windows file) reaches Python as a lone surrogate (U+DC80-U+DCFF): read as Windows-1252
    from affidavit.flows.cli import _argv_text

    raw = "Caf\xe9 prices rose \u201csharply\u201d.".encode("cp1252")
    assert _argv_text(raw.decode("utf-8", "surrogateescape")) == \
        "Caf\xe9 prices rose \u201csharply\u201d."
    assert _argv_text("Zu\u0308rich stays as it is") == "Zu\u0308rich stays as it is"


@pytest.mark.parametrize("command", [["verify"], ["research"]])
def test_a_text_argument_with_a_byte_that_is_not_utf8_reaches_the_search_check(
        no_prefect, tmp_path, command):
    # it was "error: 'utf-8' codec can't encode character '\udce9' ...: surrogates not allowed"
    text = b"The caf\xe9 in Corvallo opened on 14 May 2024.".decode("utf-8", "surrogateescape")
    res = CliRunner().invoke(app, [*command, text, "--home", str(tmp_path / "h")])
    assert res.exit_code == 3, res.output
    assert "research could not run: no search capability" in res.output
    assert "codec" not in res.output


def test_an_output_file_given_by_a_symlink_is_written_through_it(tmp_path):
    # the file was written beside the link and renamed over it: the link became a file
    from affidavit.flows.cli import write_output_file

    target = tmp_path / "published" / "cr.json"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "cr.json"
    link.symlink_to(target)
    write_output_file(link, "[]\n")
    assert link.is_symlink()
    assert target.read_text() == "[]\n"


@pytest.mark.parametrize("out", ["notes.txt/cr.json", "notes.txt/a/b/cr.json"])
def test_an_output_file_under_a_file_names_that_file(no_prefect, tmp_path, monkeypatch, out):
    # it was "error: cannot write notes.txt/cr.json: No such file or directory"
    from affidavit.warehouse.home import resolve_home

    resolve_home(str(tmp_path / "h")).tables.mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("not a folder\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["export", "claimreview", "--out", out,
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 1, res.output
    assert res.output.strip() == (f"error: cannot write {out}: notes.txt is a file, not a "
                                  "folder")
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "not a folder\n"


@pytest.mark.parametrize("command", [["run", "--claims", "PATH"], ["backfill", "PATH"],
                                     ["audit", "--sessions", "PATH"], ["source", "PATH"]])
def test_an_input_under_a_file_names_that_file(no_prefect, tmp_path, monkeypatch, command):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("not a folder\n", encoding="utf-8")
    args = ["notes.txt/in.jsonl" if a == "PATH" else a for a in command]
    assert _refused(args, tmp_path / "h") == ("error: notes.txt/in.jsonl: notes.txt is a file, "
                                              "not a folder")


def test_an_output_pipe_is_written_into_not_replaced(tmp_path):
    # a pipe (or a device: /dev/stdout, /dev/full) was replaced by a regular file, as root
    # even in /dev; it is written into, and a write that fails is an error
    import threading

    from affidavit.flows.cli import write_output_file

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    write_output_file(fifo, "[1]\n")
    reader.join()
    assert got == ["[1]\n"]
    assert fifo.is_fifo()


@pytest.mark.parametrize(("args", "code", "said"), [
    (["origins", "EMPTY"], 1, "empty file"),
    (["backfill", "EMPTY"], 1, "empty file"),
    (["audit", "--sessions", "DIR"], 1, "is a directory"),
    (["source", "DIR"], 1, "is a directory"),
    (["run", "--claims", "EMPTY"], 1, "empty"),
    (["verify", "The bridge opened.", "--mode", "slow"], 2, "unknown mode 'slow'"),
    (["verdicts", "--status", "TRUE"], 2, "unknown status"),
    (["recall", "bridge"], 1, "no affidavit home"),
    (["export", "claimreview"], 1, "no affidavit home"),
])
def test_an_error_with_json_is_one_json_object_on_stdout(no_prefect, tmp_path, args, code, said):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    names = {"EMPTY": str(empty), "DIR": str(tmp_path)}
    home = tmp_path / "h"
    res = CliRunner().invoke(app, [*(names.get(a, a) for a in args), "--json",
                                   "--home", str(home)])
    assert res.exit_code == code, res.output
    data = json.loads(res.stdout)
    assert data["exit_code"] == code
    assert said in data["error"]
    assert res.stderr.strip() == f"error: {data['error']}"  # the line on stderr stays
    assert not home.exists()


def test_an_error_without_json_writes_nothing_on_stdout(no_prefect, tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    CliRunner().invoke(app, ["origins", str(empty), "--json", "--home", str(tmp_path / "h")])
    res = CliRunner().invoke(app, ["origins", str(empty), "--home", str(tmp_path / "h")])
    assert res.exit_code == 1
    assert res.stdout == ""


@pytest.mark.parametrize(("command", "flag", "url"), [
    (["run", "--claims"], "--claims", "ftp://x.example/c.jsonl"),
    (["run", "--claims"], "--claims", "http://127.0.0.1:9/c.jsonl"),
    (["verify", "--file"], "--file", "https://x.example/a.txt"),
    (["audit", "--sessions"], "--sessions", "s3://bucket/sessions.jsonl"),
])
def test_a_url_given_to_a_local_file_option_is_a_bad_argument(no_prefect, tmp_path, command,
                                                               flag, url):
    # it was "error: ftp://x.example/c.jsonl: no such file" (exit 1), as if a URL were read
    home = tmp_path / "h"
    res = CliRunner().invoke(app, [*command, url, "--home", str(home)])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == (f"error: {flag} reads a local file, not a URL: {url} "
                                  "(download it first)")
    assert not home.exists()


def test_export_without_what_to_export_is_one_error_line() -> None:
    # it printed the group's help on stdout and exited 2, unlike every other usage fault
    res = CliRunner().invoke(app, ["export"])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith("error: export needs what to export")


def test_export_takes_the_home_before_what_to_export(tmp_path, monkeypatch) -> None:
    # "affidavit export --home H claimreview" said "No such option: --home"; the README says
    # --home may come before or after a command
    monkeypatch.setenv("AFFIDAVIT_HOME", str(tmp_path / "unused"))  # restored after the test
    home = str(tmp_path / "missing")
    before = CliRunner().invoke(app, ["export", "--home", home, "claimreview"])
    after = CliRunner().invoke(app, ["export", "claimreview", "--home", home])
    assert "No such option" not in before.output, before.output
    assert (before.exit_code, before.output) == (after.exit_code, after.output)
    assert home in after.output, after.output


@pytest.mark.parametrize("out", ["", "  "])
def test_an_empty_output_path_is_a_bad_argument(no_prefect, tmp_path, out):
    # it was "error: cannot write .: Device or resource busy" (exit 1)
    res = CliRunner().invoke(app, ["export", "claimreview", "--out", out,
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == "error: --out is empty: give a file path"


def test_origins_takes_the_allow_private_its_fetch_hint_names(no_prefect, tmp_path):
    # the blocked-address note says "allow it with AFFIDAVIT_ALLOW_PRIVATE or --allow-private";
    # origins had no such option ("No such option: --allow-private")
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"id": "1", "text": "The bridge opened in 2024."}\n', encoding="utf-8")
    res = CliRunner().invoke(app, ["origins", str(docs), "--allow-private", "999.1.1.1/99",
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 2, res.output
    assert "--allow-private: '999.1.1.1/99'" in res.output
    res = CliRunner().invoke(app, ["origins", str(docs), "--allow-private", "127.0.0.1",
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 0, res.output
