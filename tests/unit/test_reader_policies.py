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
