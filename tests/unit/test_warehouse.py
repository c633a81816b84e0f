from __future__ import annotations

from datetime import UTC, datetime

import duckdb
import polars as pl
import pyarrow as pa
import pytest

from affidavit.schemas.registry import TABLES
from affidavit.warehouse.home import resolve_home
from affidavit.warehouse.store import Warehouse, WarehouseError, conform, sql_literal


def _docs(ids: list[str]) -> pl.DataFrame:
    return pl.DataFrame({
        "doc_id": ids,
        "content_sha256": [f"h{i}" for i in ids],
        "source_kind": ["user"] * len(ids),
        "is_snippet_only": [False] * len(ids),
        "text": [f"text {i}" for i in ids],
    })


def test_home_resolution_prefers_argument_then_env(tmp_path):
    assert resolve_home(tmp_path / "a").root == (tmp_path / "a").resolve()
    env = {"AFFIDAVIT_HOME": str(tmp_path / "b")}
    assert resolve_home(environ=env).root == (tmp_path / "b").resolve()
    assert resolve_home(environ={}).root.name == ".affidavit"


def test_append_unique_is_idempotent(warehouse):
    assert warehouse.append_unique("documents", _docs(["a", "b"])) == 2
    assert warehouse.append_unique("documents", _docs(["a", "b"])) == 0
    assert warehouse.append_unique("documents", _docs(["b", "c", "c"])) == 1
    assert warehouse.count("documents") == 3
    assert sorted(warehouse.read("documents")["doc_id"].to_list()) == ["a", "b", "c"]


def test_replace_keeps_only_new_content(warehouse):
    rows = pl.DataFrame({"doc_id": ["a", "b"], "origin_doc_id": ["a", "a"],
                         "lineage_id": ["a", "a"], "in_cycle": [False, False]})
    warehouse.replace("origins", rows)
    warehouse.replace("origins", rows.head(1))
    assert warehouse.read("origins")["doc_id"].to_list() == ["a"]


def test_conform_rejects_nulls_in_required_columns():
    bad = pa.table({"doc_id": [None], "content_sha256": ["x"], "source_kind": ["user"],
                    "is_snippet_only": [False]})
    with pytest.raises(WarehouseError, match="doc_id"):
        conform(bad, TABLES["documents"])


def test_unknown_table_is_an_error(warehouse):
    with pytest.raises(WarehouseError, match="unknown table"):
        warehouse.table_dir("nope")


def test_views_match_pyarrow_schemas(warehouse):
    """DuckDB's DESCRIBE of every view agrees with the pyarrow schema (names and order)."""
    path = warehouse.sync_duckdb()
    with duckdb.connect(str(path)) as con:
        for name, schema in TABLES.items():
            described = con.execute(f"describe {name}").fetchall()
            assert [r[0] for r in described] == schema.names, name
        types = {r[0]: r[1] for r in con.execute("describe documents").fetchall()}
    assert types["published_at"] == "TIMESTAMP WITH TIME ZONE"
    assert types["is_snippet_only"] == "BOOLEAN"


def test_verdicts_latest_keeps_newest_run(warehouse):
    base = {"claim_text": "c", "status": "PARTIAL", "confidence": 0.2,
            "supporting_origins": 1, "refuting_origins": 0, "supporting_publishers": 1,
            "refuting_publishers": 0, "sources_total": 1, "n_admitted": 1, "n_rejected": 0,
            "judge": "lexical", "mode": "standard"}
    old = {**base, "run_id": "r1", "claim_id": "k",
           "decided_at": datetime(2026, 1, 1, tzinfo=UTC)}
    new = {**base, "run_id": "r2", "claim_id": "k", "status": "SUPPORTED",
           "decided_at": datetime(2026, 2, 1, tzinfo=UTC)}
    warehouse.write("verdicts", pl.DataFrame([old]))
    warehouse.write("verdicts", pl.DataFrame([new]))
    df = warehouse.query("select status, count(*) over () as n from verdicts_latest")
    assert df.rows() == [("SUPPORTED", 1)]


def test_newer_layout_is_refused(tmp_path):
    wh = Warehouse(resolve_home(tmp_path / "h"))
    (wh.paths.tables / "_warehouse.json").write_text('{"version": 99}')
    with pytest.raises(WarehouseError, match="newer"):
        Warehouse(resolve_home(tmp_path / "h"))


def test_sql_literal_escapes_quotes():
    assert sql_literal("a'b") == "'a''b'"
    with duckdb.connect() as con:
        assert con.execute(f"select {sql_literal(chr(39) + 'x')}").fetchone() == ("'x",)


def test_parquet_round_trip_keeps_types(warehouse):
    ts = datetime(2024, 5, 14, 15, 0, tzinfo=UTC)
    df = _docs(["a"]).with_columns(pl.lit(ts).alias("published_at"))
    warehouse.append_unique("documents", df)
    back = warehouse.read("documents")
    assert back["published_at"].to_list() == [ts]
    assert back.schema["published_at"] == pl.Datetime("us", "UTC")


def test_home_written_before_decided_by_reads_it_as_null(tmp_path):
    """A verdicts part (and empty part) written without ``decided_by`` (verdicts schema v1) still
    reads: the view has the column, NULL for old rows, and new rows keep theirs."""
    import pyarrow.parquet as pq

    from affidavit.warehouse.store import write_parquet_atomic

    wh = Warehouse(resolve_home(tmp_path / "h"))
    v1 = pa.schema([f for f in TABLES["verdicts"] if f.name != "decided_by"])
    folder = wh.table_dir("verdicts")
    write_parquet_atomic(v1.empty_table(), folder / "part-0000-empty.parquet")
    row = {"run_id": "r1", "claim_id": "k1", "claim_text": "c", "status": "PARTIAL",
           "confidence": 0.2, "supporting_origins": 1, "refuting_origins": 0,
           "supporting_publishers": 1, "refuting_publishers": 0, "sources_total": 1,
           "n_admitted": 1, "n_rejected": 0, "judge": "lexical", "mode": "standard",
           "decided_at": datetime(2026, 1, 1, tzinfo=UTC)}
    old = pa.Table.from_pylist([row]).select([n for n in v1.names if n in row])
    pq.write_table(old, folder / "part-old.parquet")
    wh = Warehouse(resolve_home(tmp_path / "h"))  # reopening refreshes the empty part
    assert "decided_by" in wh.query("select * from verdicts_latest").columns
    wh.write("verdicts", pl.DataFrame([{**row, "run_id": "r2", "claim_id": "k2",
                                        "decided_by": "PARTIAL: 1 origin"}]))
    df = wh.query("select claim_id, decided_by from verdicts_latest order by claim_id")
    assert df.rows() == [("k1", None), ("k2", "PARTIAL: 1 origin")]


def test_read_only_queries_of_a_copied_home_read_its_own_tables(tmp_path):
    # the stored views hold the absolute paths of the home they were made in: read through
    # them, a copy showed the tables of the original (kept when the copy was damaged, and
    # whatever the original got since); the views are built in memory until a writer re-points
    import shutil

    from affidavit.warehouse.readonly import query_views

    original = Warehouse(resolve_home(tmp_path / "a"))
    original.sync_duckdb()
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    sql = "select count(*) as n from verdicts"
    assert query_views(original.paths, sql) == [{"n": 0}]
    assert query_views(resolve_home(tmp_path / "b"), sql) is None


def test_a_damaged_empty_placeholder_part_is_written_again(tmp_path):
    # it carries no row, only the table's columns: a damaged one stopped every command that
    # opened the home with pyarrow's "Parquet magic bytes not found in footer" (export as a
    # bad argument, exit 2), naming no file
    import pyarrow.parquet as pq

    from affidavit.warehouse.store import _EMPTY_PART

    home = tmp_path / "home"
    Warehouse(resolve_home(home))
    placeholder = home / "tables" / "verdicts" / _EMPTY_PART
    placeholder.write_bytes(b"not parquet at all")
    wh = Warehouse(resolve_home(home))
    assert pq.read_schema(placeholder).names == TABLES["verdicts"].names
    assert wh.query("select count(*) as n from verdicts").to_dicts() == [{"n": 0}]
