"""The README's exit-code table, command by command, on inputs written here."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest
from typer.testing import CliRunner

from affidavit.flows.cli import EXIT_ERROR, EXIT_OK, EXIT_USAGE, app

GOOD = "The harbour council approved a budget of 12 million euros on Tuesday evening."


def _invoke(args: list[str]):  # noqa: ANN202
    return CliRunner().invoke(app, args)


@pytest.fixture(scope="module")
def stocked(prefect_harness, tmp_path_factory):  # noqa: ANN001, ANN201
    """A home with a few documents backfilled."""
    folder = tmp_path_factory.mktemp("stock")
    docs = folder / "docs.jsonl"
    docs.write_text("\n".join(json.dumps({"id": str(i), "url": f"https://n{i}.example.org/a",
                                          "text": f"{GOOD} Report {i} says ferries rose."})
                              for i in range(4)) + "\n")
    home = folder / "home"
    res = _invoke(["backfill", str(docs), "--home", str(home)])
    assert res.exit_code == EXIT_OK, res.output
    return home


def test_missing_feed_exits_like_missing_backfill_input(prefect_harness, tmp_path):
    home = str(tmp_path / "h")
    run = _invoke(["run", "--feed", str(tmp_path / "missing.xml"), "--home", home])
    back = _invoke(["backfill", str(tmp_path / "missing.xml"), "--home", home])
    claims = _invoke(["run", "--claims", str(tmp_path / "missing.jsonl"), "--home", home])
    assert run.exit_code == back.exit_code == claims.exit_code == EXIT_ERROR
    for r in (run, back, claims):
        assert "no such file" in " ".join(r.output.split())
        assert "Traceback" not in r.output


@pytest.mark.parametrize(("name", "content"), [
    # one of each kind through the CLI; every kind of refusal is covered by
    # tests/unit/test_hostile_input.py without a flow run (a JSONL or CSV dump without the text
    # column is refused before the run: tests/unit/test_cli_refusals.py; a JSON one in it)
    ("notext.json", b'[{"body": "x"}]'), ("gz.warc.gz", gzip.compress(b"")),
    ("bad.xml", b"<rss><channel><item><title>x</ti"),
])
def test_inputs_with_nothing_readable_are_refused_non_zero(prefect_harness, tmp_path, name,
                                                           content):
    path = tmp_path / name
    path.write_bytes(content)
    res = _invoke(["backfill", str(path), "--home", str(tmp_path / "h")])
    assert res.exit_code == EXIT_ERROR, res.output
    said = " ".join(res.output.split())
    assert "refused" in said or "nothing to read" in said  # in the run, or an empty file before it
    assert "Traceback" not in res.output


def test_usage_errors_exit_2(prefect_harness, tmp_path):
    res = _invoke(["run", "--home", str(tmp_path / "h")])
    assert res.exit_code == EXIT_USAGE


def test_source_of_empty_or_gzipped_page(prefect_harness, tmp_path):
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    res = _invoke(["source", str(empty), "--home", str(tmp_path / "h")])
    assert res.exit_code == EXIT_ERROR
    assert "empty file" in " ".join(res.output.split())
    page = tmp_path / "page.html.gz"
    page.write_bytes(gzip.compress(
        b'<html><head><link rel="canonical" href="https://www.reuters.com/x">'
        b"<title>T</title></head><body><p>" + GOOD.encode() + b"</p></body></html>"))
    res = _invoke(["source", str(page), "--home", str(tmp_path / "h"), "--json"])
    assert res.exit_code == EXIT_OK, res.output
    assert json.loads(res.output)["host"] == "reuters.com"


def test_deleted_index_is_rebuilt_not_reported_as_no_capability(stocked):
    shutil.rmtree(stocked / "index")
    res = _invoke(["verify", GOOD, "--home", str(stocked), "--mode", "quick", "--json"])
    assert res.exit_code == EXIT_OK, res.output
    out = json.loads(res.output)
    assert "no search capability" not in (out["message"] or "")
    assert "4 indexed again" in json.dumps(out["capabilities"])


def test_a_damaged_part_is_one_line(stocked, tmp_path):
    from affidavit.flows.cli import describe_error
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse, WarehouseError

    home = tmp_path / "copy"
    shutil.copytree(stocked, home, symlinks=True)
    part = next(p for p in (home / "tables" / "documents").glob("part-*.parquet")
                if "empty" not in p.name)
    part.write_bytes(b"PAR1 not really parquet")
    wh = Warehouse(resolve_home(home))
    for call in (lambda: wh.read("documents"), lambda: wh.query("select * from evidence"),
                 lambda: wh.existing_keys("documents"), lambda: wh.count("documents")):
        with pytest.raises(WarehouseError) as info:
            call()
        line = describe_error(info.value)
        assert "\n" not in line
        assert part.name in line
    res = _invoke(["verdicts", "--home", str(home)])  # views over documents: one line, exit 1
    assert res.exit_code in (EXIT_OK, EXIT_ERROR)
    assert "Traceback" not in res.output


def test_a_full_disk_is_one_line_and_keeps_what_was_written(prefect_harness, tmp_path,
                                                            monkeypatch):
    import pyarrow.parquet as pq

    docs = tmp_path / "docs.jsonl"
    docs.write_text(json.dumps({"id": "1", "text": GOOD}) + "\n")
    home = tmp_path / "h"
    real = pq.write_table

    def full(table, where, **kw):  # noqa: ANN001, ANN003, ANN202
        if table.num_rows and "doc_id" in table.column_names:
            raise OSError(28, "No space left on device")
        return real(table, where, **kw)

    monkeypatch.setattr(pq, "write_table", full)
    res = _invoke(["backfill", str(docs), "--home", str(home)])
    monkeypatch.undo()
    assert res.exit_code == EXIT_ERROR
    text = " ".join(res.output.split())
    assert "no space left on device" in text
    assert "disk is full" in text
    # the command's own error is one line (Prefect's log of the task failure is off outside
    # tests: the CLI sets PREFECT_LOGGING_LEVEL=CRITICAL unless AFFIDAVIT_DEBUG is set)
    assert res.output.strip().splitlines()[-1].startswith("error:") or "error: " in text
    assert not list((home / "tables" / "_staging").glob("*.tmp"))


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_text_to_verify_is_a_bad_argument_as_an_empty_question_is(tmp_path, text):
    res = _invoke(["verify", text, "--home", str(tmp_path / "h")])
    assert res.exit_code == EXIT_USAGE, res.output
    assert "the text is empty" in res.output
    asked = _invoke(["research", text, "--home", str(tmp_path / "h")])
    assert asked.exit_code == EXIT_USAGE, asked.output


def test_an_empty_file_to_verify_is_a_refused_input(tmp_path):
    (tmp_path / "empty.txt").write_text(" \n")
    res = _invoke(["verify", "--file", str(tmp_path / "empty.txt"), "--home", str(tmp_path / "h")])
    assert res.exit_code == EXIT_ERROR, res.output
    assert "empty.txt is empty" in res.output


def test_text_over_verifys_limit_is_refused_before_any_run(tmp_path):
    from affidavit.flows.cli import VERIFY_MAX_BYTES

    big = tmp_path / "big.txt"
    big.write_text("The Lumen Bridge opened on 14 May 2024. " * (VERIFY_MAX_BYTES // 40 + 10))
    res = _invoke(["verify", "--file", str(big), "--home", str(tmp_path / "h")])
    assert res.exit_code == EXIT_ERROR, res.output
    assert "run --claims" in res.output
    assert not (tmp_path / "h").exists()  # refused before a run (or a home) was started


@pytest.mark.parametrize("target", ["ftp://example.org/page.html", "file:///etc/hostname",
                                    "gopher://example.org/1"])
def test_source_of_an_unsupported_scheme_names_the_supported_ones(tmp_path, target):
    res = _invoke(["source", target, "--home", str(tmp_path / "h")])
    assert res.exit_code == EXIT_ERROR
    line = " ".join(res.output.split())
    assert f"{target.split(':')[0]}:// scheme is not supported" in line
    assert "http:// or https://" in line
    assert "no such file" not in line


@pytest.mark.parametrize("command", [["run", "--feed"], ["backfill"], ["origins"]])
@pytest.mark.parametrize("target", ["ftp://example.org/feed.xml", "file:///etc/hostname"])
def test_inputs_of_an_unsupported_scheme_are_refused_before_anything_starts(
    tmp_path, command, target
):
    res = _invoke([*command, target, "--home", str(tmp_path / "h")])
    assert res.exit_code == EXIT_ERROR, res.output
    line = " ".join(res.output.split())
    assert f"{target.split(':')[0]}:// scheme is not supported" in line
    assert "no such file" not in line
    assert not (tmp_path / "h").exists()


@pytest.mark.parametrize("name", ["empty.jsonl", "empty.csv", "blank.json"])
def test_an_empty_claims_file_is_refused_before_anything_starts(tmp_path, name):
    f = tmp_path / name
    f.write_text("" if name.startswith("empty") else "\n \n")
    res = _invoke(["run", "--claims", str(f), "--home", str(tmp_path / "h")])
    assert res.exit_code == EXIT_ERROR, res.output
    assert "empty" in " ".join(res.output.split())
    assert not (tmp_path / "h").exists()
