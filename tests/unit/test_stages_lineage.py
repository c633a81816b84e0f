"""Tests for flows.stages.refresh_lineage: incremental runs from the stored passage material."""

from __future__ import annotations

import polars as pl

from affidavit.flows.context import RunRecord
from affidavit.flows.stages import refresh_lineage
from affidavit.tasks.ingest_common import rows_to_documents
from affidavit.tasks.lineage import build_lineage
from affidavit.warehouse.home import resolve_home
from affidavit.warehouse.store import Warehouse
from tests.unit.test_lineage import DERIVED, INDEPENDENT, ORIGIN, OTHER, T0


def _add(wh: Warehouse, rows: list[dict]) -> list[str]:
    batch = rows_to_documents(rows, source_kind="archive", source_path=None)
    return wh.append_new("documents", pl.from_arrow(batch.documents))["doc_id"].to_list()


def test_second_run_reads_no_stored_text_and_equals_a_build_from_scratch(tmp_path, monkeypatch):
    wh = Warehouse(resolve_home(tmp_path / "h"))
    first = [
        {"url": "https://wire.example/o", "text": ORIGIN, "published_at": T0},
        {"url": "https://wire.example/i", "text": INDEPENDENT, "published_at": T0},
    ]
    later = [
        {"url": "https://copy.example/c", "text": "Home | World\n" + ORIGIN,
         "published_at": T0.replace(hour=18)},
        {"url": "https://post.example/d", "text": DERIVED, "published_at": T0.replace(hour=20)},
        {"url": "https://wire.example/x", "text": OTHER, "published_at": T0.replace(hour=21)},
    ]
    refresh_lineage(wh, _add(wh, first), run=RunRecord(wh, "test", {}))
    assert wh.count("passage_grams") == 2
    new_ids = _add(wh, later)
    texts_read: list[set[str]] = []
    texts = wh.texts

    def spy(ids):
        texts_read.append(set(ids))
        return texts(ids)

    monkeypatch.setattr(wh, "texts", spy)
    refresh_lineage(wh, new_ids, run=RunRecord(wh, "test", {}))
    assert texts_read == [set(new_ids)]  # only the new documents' texts
    assert wh.count("passage_grams") == 5
    docs = wh.read("documents", columns=["doc_id", "text", "host", "published_at"])
    scratch = build_lineage(docs)
    keys = ["parent_doc_id", "child_doc_id"]
    stored = wh.read("lineage_edges").sort(keys)
    assert stored.select(keys, "kind").equals(scratch.edges.sort(keys).select(keys, "kind"))
    assert wh.read("origins").sort("doc_id").select("doc_id", "origin_doc_id").equals(
        scratch.origins.sort("doc_id").select("doc_id", "origin_doc_id")
    )


def test_a_home_without_packed_material_gets_it_and_equals_a_build(tmp_path):
    # a home whose passage material was kept before its packed form was (or a run killed
    # between the two): the next run packs it from the lists, then reads it packed
    import pyarrow.parquet as pq

    wh = Warehouse(resolve_home(tmp_path / "h"))
    first = [
        {"url": "https://wire.example/o", "text": ORIGIN, "published_at": T0},
        {"url": "https://wire.example/i", "text": INDEPENDENT, "published_at": T0},
    ]
    later = [
        {"url": "https://post.example/d", "text": DERIVED, "published_at": T0.replace(hour=20)},
        {"url": "https://wire.example/x", "text": OTHER, "published_at": T0.replace(hour=21)},
    ]
    refresh_lineage(wh, _add(wh, first), run=RunRecord(wh, "test", {}))
    assert wh.count("passage_packed") == 2
    parts = [p for p in wh.data_dir("passage_packed").glob("part-*.parquet")
             if "empty" not in p.name]
    meta = pq.ParquetFile(parts[0]).metadata.row_group(0)
    codecs = {meta.column(k).path_in_schema: meta.column(k).compression
              for k in range(meta.num_columns)}
    assert {codecs[c] for c in ("word_hashes", "ngram_hashes", "sentence_words",
                                 "quoted_words")} == {"UNCOMPRESSED"}
    assert codecs["doc_id"] == "ZSTD"
    for p in parts:
        p.unlink()
    assert wh.count("passage_packed") == 0
    run = RunRecord(wh, "test", {})
    refresh_lineage(wh, _add(wh, later), run=run)
    assert not any("packed" in m for m in run.messages)  # the update read them packed
    assert wh.count("passage_packed") == wh.count("passage_grams") == 4
    docs = wh.read("documents", columns=["doc_id", "text", "host", "published_at"])
    scratch = build_lineage(docs)
    keys = ["parent_doc_id", "child_doc_id"]
    assert wh.read("lineage_edges").sort(keys).select(keys, "kind").equals(
        scratch.edges.sort(keys).select(keys, "kind"))
    assert wh.read("origins").sort("doc_id").select("doc_id", "origin_doc_id").equals(
        scratch.origins.sort("doc_id").select("doc_id", "origin_doc_id"))


def test_a_build_with_words_on_disk_stores_the_same_material_a_part_at_a_time(
    tmp_path, monkeypatch
):
    # a first backfill large enough to keep its words on disk returns its passage material
    # as Parquet parts: the home stores every row of every part once, as a home built in
    # memory does, and the next run reads it as usual
    import affidavit.tasks.lineage as lineage_module
    from tests.unit.test_lineage import _synthetic_archive

    archive = _synthetic_archive(70, 29)
    rows = [
        {"url": f"https://{r['host']}/{r['doc_id']}", "text": r["text"],
         "published_at": r["published_at"]}
        for r in archive.iter_rows(named=True)
    ]
    monkeypatch.setattr(lineage_module, "_PREPARE_BATCH", 8)
    monkeypatch.setattr(lineage_module, "_MATERIAL_BATCH", 16)
    written: list[int] = []
    parts_of = lineage_module._material_parts

    def spy(prep, config, folder):
        written.append(len(prep.doc_ids))
        return parts_of(prep, config, folder)

    monkeypatch.setattr(lineage_module, "_material_parts", spy)
    homes = {}
    for spill in (False, True):
        monkeypatch.setattr(lineage_module, "SPILL_MIN_BATCHES", 1 if spill else 10**9)
        wh = Warehouse(resolve_home(tmp_path / f"h{int(spill)}"))
        refresh_lineage(wh, _add(wh, rows[:60]), run=RunRecord(wh, "test", {}))
        refresh_lineage(wh, _add(wh, rows[60:]), run=RunRecord(wh, "test", {}))
        homes[spill] = wh
    for name, key in (("passage_grams", "doc_id"), ("passage_packed", "doc_id"),
                      ("lineage_edges", ["parent_doc_id", "child_doc_id"]),
                      ("origins", "doc_id"), ("signatures", "doc_id")):
        a, b = homes[True].read(name).sort(key), homes[False].read(name).sort(key)
        assert a.height == b.height > 0, name
        assert a.equals(b), name
    assert homes[True].count("passage_grams") == 70
    assert written == [60]  # the first run kept its words on disk (4 parts of 16 or fewer)
